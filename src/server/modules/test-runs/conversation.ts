/**
 * One scenario played as a text conversation: the assistant under test (its first message, then
 * a model turn per caller turn, with up to MAX_TOOL_ROUNDS rounds of tool calls answered from
 * the scenario's tool answers — never the real endpoints) against the simulated caller (a model
 * playing the persona, or the scripted turns), up to max_turns caller turns; then the judge.
 */
import { TEST_RUN_MESSAGES, type TestTurn } from "../../../shared/scenarios.ts";
import type { ResponsesRequest } from "../../openai/responses-client.ts";
import { BUILT_IN_NAMES } from "../../voice/builtins.ts";
import type { ProviderFunctionTool } from "../../voice/tool-resolution.ts";
import { assistantTurnRequest, callerTurnRequest, verdictRequest, type AssistantTurnAnswer, type CallerTurnAnswer, type VerdictAnswer } from "./test-requests.ts";

/** Tool calls the assistant may chain within one turn before it must answer the caller. */
export const MAX_TOOL_ROUNDS = 3;

export interface PlayedScenario {
  persona: string;
  goal: string;
  facts: string | null;
  rubric: string;
  maxTurns: number;
  toolAnswers: Record<string, unknown>;
  callerTurns: string[] | null;
}

export interface Conversation {
  model: string;
  firstMessage: string | null;
  instructions: string | null;
  /** The user's tools (their declared names, with each one's name as the user gave it) and the built-ins. */
  tools: readonly (ProviderFunctionTool & { userName?: string })[];
}

/** Sends one request and answers the parsed JSON; throws to abandon the scenario (cancelled, failed). */
export type Ask = <T>(request: ResponsesRequest) => Promise<T>;

export interface Outcome {
  transcript: TestTurn[];
  passed: boolean;
  reasons: string[];
}

export async function playConversation(conversation: Conversation, scenario: PlayedScenario, ask: Ask): Promise<Outcome> {
  const turns: TestTurn[] = [];
  const { model } = conversation;
  if (conversation.firstMessage) turns.push({ role: "assistant", text: conversation.firstMessage });
  let ended = false;
  for (let n = 0; n < scenario.maxTurns && !ended; n += 1) {
    const caller = await callerTurn(scenario, n, model, turns, ask);
    if (caller === null) break;
    if (caller.say) turns.push({ role: "caller", text: caller.say });
    ended = await assistantTurn(conversation, scenario, turns, ask);
    if (caller.done) break;
  }
  const verdict = await ask<VerdictAnswer>(verdictRequest(model, scenario.rubric, turns));
  return { transcript: turns, passed: verdict.passed, reasons: verdict.reasons };
}

/** The caller's next turn; null when a scripted caller has said everything. */
async function callerTurn(scenario: PlayedScenario, n: number, model: string, turns: TestTurn[], ask: Ask): Promise<CallerTurnAnswer | null> {
  if (scenario.callerTurns) {
    const say = scenario.callerTurns[n];
    return say === undefined ? null : { say, done: n === scenario.callerTurns.length - 1 };
  }
  const answer = await ask<CallerTurnAnswer>(callerTurnRequest(model, scenario, turns));
  return { say: answer.say.trim(), done: answer.done };
}

/** The assistant answers, calling tools as it asks; true when it ended or transferred the call. */
async function assistantTurn(conversation: Conversation, scenario: PlayedScenario, turns: TestTurn[], ask: Ask): Promise<boolean> {
  for (let round = 0; round <= MAX_TOOL_ROUNDS; round += 1) {
    // The last round offers no tools, so the turn always ends with words for the caller.
    const tools = round < MAX_TOOL_ROUNDS ? conversation.tools : [];
    const answer = await ask<AssistantTurnAnswer>(assistantTurnRequest(conversation.model, conversation.instructions, tools, turns));
    if (answer.reply.trim()) turns.push({ role: "assistant", text: answer.reply.trim() });
    const calls = answer.tool_calls ?? [];
    if (calls.length === 0) return false;
    let ends = false;
    for (const call of calls) {
      turns.push({ role: "tool", text: JSON.stringify(toolAnswer(conversation, scenario, call.name)), tool: { name: call.name, arguments: call.arguments } });
      if (call.name === BUILT_IN_NAMES.endCall || call.name === BUILT_IN_NAMES.transferCall) ends = true;
    }
    if (ends) return true;
  }
  return false;
}

/** The scenario's answer for a tool, by the name the user gave it or the name it was declared under. */
function toolAnswer(conversation: Conversation, scenario: PlayedScenario, name: string): unknown {
  if (name === BUILT_IN_NAMES.endCall) return { ok: true, message: "The call will end after your goodbye." };
  if (name === BUILT_IN_NAMES.transferCall) return { ok: true, message: "The caller is being transferred." };
  const tool = conversation.tools.find((t) => t.name === name);
  for (const key of [tool?.userName, name]) {
    if (key !== undefined && Object.hasOwn(scenario.toolAnswers, key)) return scenario.toolAnswers[key];
  }
  return { error: TEST_RUN_MESSAGES.noTestAnswer };
}
