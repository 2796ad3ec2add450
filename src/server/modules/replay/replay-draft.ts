/**
 * Plays an assistant (the draft) against a caller's recorded words as a text conversation on
 * the Responses API: its instructions, first message, tools and built-ins, as a call offers
 * them. No tool runs (docs/decisions/044-replay-against-draft.md): a tool call is answered with
 * the original call's answer of the same tool, a built-in is acknowledged without acting.
 */
import { HANDOFF_TEXTS } from "../../../shared/calls.ts";
import { MAX_REPLAY_ROUNDS_PER_TURN, REPLAY_MESSAGES, type ReplaySide, type ReplayToolCall } from "../../../shared/replay.ts";
import type { ResponsesClient, ResponsesFunctionTool, ResponsesInputItem, ResponsesUsage } from "../../openai/responses-client.ts";
import { BUILT_IN_NAMES, builtInTools, DEFAULT_HANDOFF, RESERVED_TOOL_NAMES } from "../../voice/builtins.ts";
import type { CallAssistant } from "../../voice/call-session-types.ts";
import { ToolCatalog } from "../../voice/tool-resolution.ts";
import type { RecordedAnswerBook } from "./replay-turns.ts";

/** What the text model is told beyond the assistant's own instructions: it is speaking on a phone. */
const SPOKEN_NOTE =
  "\n\n(This conversation is a phone call: the caller's lines are their transcribed speech, and your replies are spoken aloud to them.)";
const MAX_OUTPUT_TOKENS = 2_000;
const NO_ANSWER = { error: "This tool gave no answer: it was not called in the original call, and a replay never calls tools." };

export interface DraftPlay {
  /** The draft's side of each turn: [opening, caller turn 1, ...]; null for turns not reached. */
  sides: Array<ReplaySide | null>;
  stopped: string | null;
  usage: { input_tokens: number; cached_tokens: number; output_tokens: number };
}

function parseArguments(text: string): unknown {
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return text;
  }
}

export async function playDraft(options: {
  client: ResponsesClient;
  model: string;
  assistant: CallAssistant;
  callerTurns: readonly string[];
  answers: RecordedAnswerBook;
  signal?: AbortSignal;
}): Promise<DraftPlay> {
  const { client, model, assistant, answers } = options;
  const catalog = new ToolCatalog(assistant.tools, RESERVED_TOOL_NAMES);
  const tools: ResponsesFunctionTool[] = [...builtInTools(assistant.handoff ?? DEFAULT_HANDOFF), ...catalog.providerTools()].map(
    (t) => ({ type: "function", name: t.name, description: t.description, parameters: t.parameters, strict: false }),
  );
  const input: ResponsesInputItem[] = [];
  const usage = { input_tokens: 0, cached_tokens: 0, output_tokens: 0 };
  const add = (u: ResponsesUsage) => {
    usage.input_tokens += u.input_tokens;
    usage.cached_tokens += u.input_tokens_details?.cached_tokens ?? 0;
    usage.output_tokens += u.output_tokens;
  };

  // The opening: a call speaks the first message word for word before the caller says anything.
  const first = assistant.firstMessage?.trim();
  const sides: Array<ReplaySide | null> = [{ said: first ? [first] : [], tool_calls: [] }];
  if (first) input.push({ role: "assistant", content: first });

  let stopped: string | null = null;
  for (const words of options.callerTurns) {
    if (stopped) {
      sides.push(null);
      continue;
    }
    const side: ReplaySide = { said: [], tool_calls: [] };
    sides.push(side);
    input.push({ role: "user", content: words });
    for (let round = 0; ; round += 1) {
      if (round >= MAX_REPLAY_ROUNDS_PER_TURN) {
        stopped = REPLAY_MESSAGES.tooManyRounds;
        break;
      }
      const result = await client.create(
        {
          model,
          instructions: `${assistant.instructions}${SPOKEN_NOTE}`,
          input,
          ...(tools.length > 0 ? { tools } : {}),
          max_output_tokens: MAX_OUTPUT_TOKENS,
          store: false,
          metadata: { purpose: "call_replay" },
        },
        { signal: options.signal },
      );
      add(result.usage);
      const text = result.text?.trim();
      if (text) {
        side.said.push(text);
        input.push({ role: "assistant", content: text });
      }
      if (result.functionCalls.length === 0) break;
      for (const call of result.functionCalls) {
        const args = parseArguments(call.arguments);
        const { answer, ends } = answerOf(call.name, args, catalog, answers);
        side.tool_calls.push({ name: answer.name, arguments: args, result: answer.result, answered_from: answer.answered_from });
        input.push(call, { type: "function_call_output", call_id: call.call_id, output: JSON.stringify(answer.result ?? null) });
        if (ends) stopped = ends;
      }
      if (stopped) break;
    }
  }
  return { sides, stopped, usage };
}

/** The answer a tool call of the draft gets, and whether it ends the draft's conversation. */
function answerOf(name: string, args: unknown, catalog: ToolCatalog, answers: RecordedAnswerBook): { answer: ReplayToolCall; ends: string | null } {
  const record = (result: unknown, answered_from: ReplayToolCall["answered_from"], toolName = name): ReplayToolCall => ({ name: toolName, arguments: args, result, answered_from });
  if (name === BUILT_IN_NAMES.endCall) return { answer: record({ ok: true }, "simulated"), ends: REPLAY_MESSAGES.endedByDraft };
  if (name === BUILT_IN_NAMES.transferCall) {
    const label = typeof (args as { destination?: unknown })?.destination === "string" ? (args as { destination: string }).destination : "a person";
    return { answer: record({ ok: true, message: HANDOFF_TEXTS.transferredTo(label) }, "simulated"), ends: REPLAY_MESSAGES.transferredByDraft(label) };
  }
  const resolved = catalog.resolve(name, args);
  if (!resolved.ok) return { answer: record({ error: resolved.error }, "unavailable"), ends: null };
  const tool = resolved.tool;
  if (tool.id.startsWith("builtin:")) return { answer: record({ ok: true }, "simulated", tool.name), ends: null };
  const recorded = answers.take(tool);
  return { answer: recorded ? record(recorded.result, "original", tool.name) : record(NO_ANSWER, "unavailable", tool.name), ends: null };
}
