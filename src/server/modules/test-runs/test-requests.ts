/**
 * The three kinds of Responses API request a test conversation makes (docs/decisions/043-test-runs.md):
 * the assistant's turn (its instructions, tools and built-ins, answering in a strict JSON shape
 * that carries its tool calls), the simulated caller's turn (the persona), and the judge's
 * verdict against the rubric. Each names its Structured Outputs format, so a fake can tell them apart.
 */
import type { TestTurn } from "../../../shared/scenarios.ts";
import type { ResponsesInputMessage, ResponsesRequest } from "../../openai/responses-client.ts";
import type { ProviderFunctionTool } from "../../voice/tool-resolution.ts";

export const TEST_FORMATS = { assistant: "assistant_turn", caller: "caller_turn", judge: "test_verdict" } as const;

export interface AssistantTurnAnswer {
  reply: string;
  /** Absent when the assistant has no tools. `arguments` is a JSON object as text. */
  tool_calls?: { name: string; arguments: string }[];
}
export interface CallerTurnAnswer {
  say: string;
  done: boolean;
}
export interface VerdictAnswer {
  passed: boolean;
  reasons: string[];
}

/** What the judge and the logs read: one line per turn. */
export function transcriptText(turns: readonly TestTurn[]): string {
  return turns
    .map((t) => (t.role === "tool" ? `Tool ${t.tool?.name ?? "?"}(${t.tool?.arguments ?? "{}"}) answered: ${t.text}` : `${t.role === "caller" ? "Caller" : "Assistant"}: ${t.text}`))
    .join("\n");
}

export function assistantTurnRequest(model: string, instructions: string | null, tools: readonly ProviderFunctionTool[], turns: readonly TestTurn[]): ResponsesRequest {
  const toolList = tools.map((t) => `- ${t.name}: ${t.description}\n  Arguments (JSON Schema): ${JSON.stringify(t.parameters)}`).join("\n");
  const rules = [
    "This is a text rehearsal of a phone call: reply with exactly what you would say aloud to the caller, briefly, as on the phone.",
    tools.length > 0
      ? `To use a function, list it in tool_calls with its arguments as a JSON object in text; you then get its result and answer again. Functions:\n${toolList}`
      : null,
  ].filter(Boolean);
  const properties: Record<string, unknown> = { reply: { type: "string", description: "What you say to the caller now (may be empty while calling a function)." } };
  if (tools.length > 0) {
    properties.tool_calls = {
      type: "array",
      items: {
        type: "object",
        properties: { name: { type: "string", enum: tools.map((t) => t.name) }, arguments: { type: "string", description: "The arguments as a JSON object." } },
        required: ["name", "arguments"],
        additionalProperties: false,
      },
    };
  }
  return {
    model,
    instructions: [instructions ?? "", ...rules].filter((s) => s !== "").join("\n\n"),
    input: turnsAsMessages(turns, "assistant"),
    text: { format: { type: "json_schema", name: TEST_FORMATS.assistant, strict: true, schema: { type: "object", properties, required: Object.keys(properties), additionalProperties: false } } },
    store: false,
  };
}

export function callerTurnRequest(model: string, scenario: { persona: string; goal: string; facts: string | null }, turns: readonly TestTurn[]): ResponsesRequest {
  const instructions = [
    "You play a caller phoning a business, to test its voice assistant. Stay in character; never say you are testing or an AI.",
    `Who you are: ${scenario.persona}`,
    `What you want from this call: ${scenario.goal}`,
    scenario.facts ? `What you know (use it when asked): ${scenario.facts}` : null,
    "Say only the caller's next turn, one or two short spoken sentences. Set done to true once your goal is reached, it is clear it will not be, or the assistant has ended the call.",
  ].filter(Boolean);
  return {
    model,
    instructions: instructions.join("\n"),
    input: turns.length > 0 ? turnsAsMessages(turns, "caller") : [{ role: "user", content: "(The call has connected and nobody has spoken yet: you start.)" }],
    text: {
      format: {
        type: "json_schema",
        name: TEST_FORMATS.caller,
        strict: true,
        schema: { type: "object", properties: { say: { type: "string" }, done: { type: "boolean" } }, required: ["say", "done"], additionalProperties: false },
      },
    },
    store: false,
  };
}

export function verdictRequest(model: string, rubric: string, turns: readonly TestTurn[]): ResponsesRequest {
  return {
    model,
    instructions: [
      "You judge a test conversation between a business's phone assistant and a simulated caller against the success criteria below.",
      "passed is true only if every criterion is met. Give one to five short reasons that cite what was said.",
      `Success criteria:\n${rubric}`,
    ].join("\n\n"),
    input: [{ role: "user", content: `The conversation:\n${transcriptText(turns) || "(nothing was said)"}` }],
    text: {
      format: {
        type: "json_schema",
        name: TEST_FORMATS.judge,
        strict: true,
        schema: { type: "object", properties: { passed: { type: "boolean" }, reasons: { type: "array", items: { type: "string" } } }, required: ["passed", "reasons"], additionalProperties: false },
      },
    },
    store: false,
  };
}

/** The conversation from one side: its own lines are "assistant", the other side's "user"; tool results are developer notes. */
function turnsAsMessages(turns: readonly TestTurn[], self: "assistant" | "caller"): ResponsesInputMessage[] {
  const messages: ResponsesInputMessage[] = [];
  for (const t of turns) {
    if (t.role === "tool") {
      // The caller never hears the assistant's tools.
      if (self === "assistant") messages.push({ role: "developer", content: `Function ${t.tool?.name ?? "?"} called with ${t.tool?.arguments ?? "{}"} returned: ${t.text}` });
      continue;
    }
    if (t.text === "") continue;
    messages.push({ role: t.role === (self === "assistant" ? "assistant" : "caller") ? "assistant" : "user", content: t.text });
  }
  if (messages.length === 0 || messages[messages.length - 1]!.role === "assistant") messages.push({ role: "user", content: "(The other side is silent.)" });
  return messages;
}
