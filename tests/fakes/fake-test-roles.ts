/**
 * The fake Responses API playing the three parts of an assistant test by script: the assistant
 * under test, the simulated caller and the judge. Requests are told apart by their Structured
 * Outputs format name (the server's TEST_FORMATS); each part gets the request body, so a script
 * can answer by the persona, the rubric or how far the conversation has gone.
 *
 *   fake.script = testRoles({
 *     caller: (req) => ({ say: req.callerTurn === 0 ? "Where is order 42?" : "Thanks, bye", done: req.callerTurn > 0 }),
 *     assistant: (req) => (req.toolResults === 0 ? { reply: "", tool_calls: [{ name: "lookup_order", arguments: '{"id":"42"}' }] } : { reply: "It shipped." }),
 *     judge: (req) => ({ passed: req.transcript.includes("shipped"), reasons: ["Gave the status"] }),
 *   });
 *
 * Answers go through the fake's strict-schema check like any scripted answer: an assistant
 * answer without `tool_calls` gets `[]` when the request's schema has them.
 */
import type { FakeResponsesStep } from "./fake-responses.ts";

type Json = Record<string, unknown>;

export interface RoleRequest {
  body: Json;
  /** The request's instructions (the assistant's own, or the caller's persona, or the judge's rubric). */
  instructions: string;
  /** The caller's turns so far: 0 for the caller's first turn or the assistant's answer to it, … */
  callerTurn: number;
  /** Function results the assistant has been given since the caller last spoke. */
  toolResults: number;
  /** The judge's input: the whole conversation as text. */
  transcript: string;
}

export interface TestRoles {
  assistant?: (req: RoleRequest) => { reply: string; tool_calls?: { name: string; arguments: string }[] };
  caller?: (req: RoleRequest) => { say: string; done: boolean };
  judge?: (req: RoleRequest) => { passed: boolean; reasons: string[] };
}

const isObject = (v: unknown): v is Json => typeof v === "object" && v !== null && !Array.isArray(v);

function requestOf(body: Json, self: "assistant" | "caller" | "judge"): RoleRequest {
  const input = Array.isArray(body.input) ? (body.input as { role: string; content: string }[]) : [];
  // The caller's lines are "user" to the assistant and "assistant" to the caller.
  const callerRole = self === "caller" ? "assistant" : "user";
  const spoken = input.filter((m) => m.role === callerRole && !m.content.startsWith("("));
  const lastCaller = input.map((m) => m.role).lastIndexOf(callerRole);
  return {
    body,
    instructions: typeof body.instructions === "string" ? body.instructions : "",
    callerTurn: self === "assistant" ? Math.max(0, spoken.length - 1) : spoken.length,
    toolResults: input.slice(lastCaller + 1).filter((m) => m.role === "developer").length,
    transcript: input.map((m) => m.content).join("\n"),
  };
}

export function testRoles(roles: TestRoles): (body: Json) => FakeResponsesStep | undefined {
  return (body) => {
    const format = isObject(body.text) && isObject(body.text.format) ? body.text.format : null;
    const schema = format && isObject(format.schema) ? format.schema : null;
    switch (format?.name) {
      case "assistant_turn": {
        const answer = roles.assistant?.(requestOf(body, "assistant")) ?? { reply: "How can I help?" };
        const hasTools = isObject(schema?.properties) && "tool_calls" in schema.properties;
        return { kind: "answer", json: hasTools ? { tool_calls: [], ...answer } : { reply: answer.reply } };
      }
      case "caller_turn":
        return { kind: "answer", json: roles.caller?.(requestOf(body, "caller")) ?? { say: "Hello?", done: false } };
      case "test_verdict":
        return { kind: "answer", json: roles.judge?.(requestOf(body, "judge")) ?? { passed: true, reasons: ["Met the criteria"] } };
      default:
        return undefined;
    }
  };
}
