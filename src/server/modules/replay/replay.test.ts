import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { startFakeResponses, type FakeResponses } from "../../../../tests/fakes/fake-responses.ts";
import { orderLookupTool, startToolUpstream, type ToolUpstream } from "../../../../tests/fakes/tool-upstream.ts";
import { createAssistant, createTool, signUpCaller, type Caller } from "../../../../tests/fakes/realtime-app.ts";
import { as, buildTestApp, errorOf, type TestApp } from "../../../../tests/harness.ts";
import type { TranscriptEntry } from "../../../shared/calls.ts";
import { REPLAY_MESSAGES, type CallReplay } from "../../../shared/replay.ts";
import { SCENARIO_MESSAGES, type Scenario } from "../../../shared/scenarios.ts";
import type { Db } from "../../db/client.ts";
import { calls } from "../../db/schema.ts";
import { REPLAYS_PER_MINUTE } from "./replay.routes.ts";

/**
 * Replay against the draft over real HTTP: a finished call's record, the route, and the requests
 * the fake Responses API received (checked like the service: key, model, tools, the function
 * call outputs naming their calls). The tool's real endpoint must never be called.
 */

let responses: FakeResponses;
let upstream: ToolUpstream;
let app: TestApp;
let db: Db;
let ada: Caller;
let assistantId: string;
let toolId: string;

const t = (s: number) => new Date(Date.UTC(2026, 10, 20, 10, 0, s)).toISOString();
const TRANSCRIPT: TranscriptEntry[] = [
  { type: "assistant", content: "Hello, this is Ava. How can I help?", timestamp: t(0) },
  { type: "user", content: "Where is my order 42?", timestamp: t(3) },
  { type: "tool-request", content: "Calling tool Lookup Order", timestamp: t(4), parameters: { order_id: "42" }, toolData: { toolName: "Lookup Order", toolId: "", callId: "c1" } },
  { type: "tool-response", content: "Tool Lookup Order completed with status 200", timestamp: t(5), result: { status: "shipped", eta: "Friday" }, toolData: { toolName: "Lookup Order", toolId: "", callId: "c1" } },
  { type: "assistant", content: "It has shipped and arrives Friday.", timestamp: t(6) },
  { type: "user", content: "", timestamp: t(7), isError: true },
  { type: "user", content: "Can I change the address?", timestamp: t(8) },
  { type: "assistant", content: "I cannot change addresses.", timestamp: t(9) },
  { type: "user", content: "Then goodbye.", timestamp: t(10) },
  { type: "assistant", content: "Goodbye!", timestamp: t(11) },
  { type: "user", content: "Bye", timestamp: t(12) },
];

async function insertCall(organizationId: string, values: Partial<typeof calls.$inferInsert> = {}): Promise<string> {
  const transcript = TRANSCRIPT.map((e) => (e.toolData ? { ...e, toolData: { ...e.toolData, toolId } } : e));
  const [row] = await db
    .insert(calls)
    .values({ organizationId, assistantId, assistantName: "Ava", startTime: new Date(t(0)), endTime: new Date(t(13)), endedReason: "Caller hung up", logs: { isTest: false, transcript, toolsUsed: [] }, ...values })
    .returning();
  return row!.id;
}

const replay = (who: Caller, id: string) => as(app, who).post(`/api/calls/${id}/replay`);
const inputOf = (i: number) => responses.accepted[i]!.body!.input as Array<Record<string, unknown>>;

beforeAll(async () => {
  responses = await startFakeResponses({ apiKey: "sk-replay" });
  upstream = await startToolUpstream();
  ({ app, db } = await buildTestApp({ config: { OPENAI_BASE_URL: responses.baseUrl, TOOL_ALLOWED_HOSTS: "127.0.0.1" } }));
  ada = await signUpCaller(app, "sk-replay");
  toolId = (await createTool(app, ada, orderLookupTool(upstream.origin))).id;
  assistantId = (await createAssistant(app, ada, { tool_ids: [toolId], model: "gpt-realtime", allow_end_call: true })).id;
  // The draft moves on after the call: the replay runs these words, not the published ones.
  const patched = await as(app, ada).patch(`/api/assistants/${assistantId}`, { instructions: "You are Ava, the new draft. Offer a callback." });
  expect(patched.statusCode, patched.body).toBe(200);
});
afterAll(async () => {
  await app.close();
  await upstream.close();
  await responses.close();
});
beforeEach(() => {
  responses.script = null;
  responses.requests.length = 0;
});

describe("POST /api/calls/:id/replay", () => {
  it("says the caller's real turns to the draft and aligns both conversations, answering tools from the original call without calling them", async () => {
    const callId = await insertCall(ada.organizationId);
    responses.enqueue(
      // Caller turn 1: the draft looks the order up, then answers with what the original call's tool said.
      { kind: "answer", toolCalls: [{ name: "Lookup_Order", arguments: { order_id: "42" } }] },
      { kind: "answer", text: "Order 42 shipped; it arrives Friday." },
      // Turn 2: the draft asks for a tool the original never called a second time: the same answer again.
      { kind: "answer", text: "Let me check.", toolCalls: [{ name: "Lookup_Order", arguments: { order_id: "42" } }] },
      { kind: "answer", text: "I can't change it, but I can arrange a callback." },
      // Turn 3: the draft hangs up; the caller's last "Bye" is never reached.
      { kind: "answer", text: "Goodbye!", toolCalls: [{ name: "end_call", arguments: { reason: "done" } }] },
    );
    const res = await replay(ada, callId);
    expect(res.statusCode, res.body).toBe(200);
    const body = res.json() as CallReplay;

    expect(body).toMatchObject({ call_id: callId, assistant: { id: assistantId, name: "Ava" }, model: "gpt-4.1", stopped: REPLAY_MESSAGES.endedByDraft });
    expect(body.turns.map((turn) => turn.caller)).toEqual([null, "Where is my order 42?", "Can I change the address?", "Then goodbye.", "Bye"]);
    expect(body.turns[0]).toEqual({
      caller: null,
      original: { said: ["Hello, this is Ava. How can I help?"], tool_calls: [] },
      draft: { said: ["Hello, this is Ava. How can I help?"], tool_calls: [] },
    });
    expect(body.turns[1]!.original).toEqual({
      said: ["It has shipped and arrives Friday."],
      tool_calls: [{ name: "Lookup Order", arguments: { order_id: "42" }, result: { status: "shipped", eta: "Friday" }, answered_from: "original" }],
    });
    expect(body.turns[1]!.draft).toEqual({
      said: ["Order 42 shipped; it arrives Friday."],
      tool_calls: [{ name: "Lookup Order", arguments: { order_id: "42" }, result: { status: "shipped", eta: "Friday" }, answered_from: "original" }],
    });
    expect(body.turns[2]!.draft!.said).toEqual(["Let me check.", "I can't change it, but I can arrange a callback."]);
    expect(body.turns[3]!.draft).toEqual({ said: ["Goodbye!"], tool_calls: [{ name: "end_call", arguments: { reason: "done" }, result: { ok: true }, answered_from: "simulated" }] });
    expect(body.turns[4]).toMatchObject({ caller: "Bye", original: { said: [] }, draft: null });
    // 5 requests × (1200 in, 150 out) at gpt-4.1's $2/M in and $8/M out.
    expect(body.cost).toBeCloseTo(5 * (1200 * 2 + 150 * 8) / 1e6, 8);

    // What OpenAI was asked: the draft's instructions, its tool and the end_call built-in, the caller's words in order.
    expect(responses.accepted).toHaveLength(5);
    const first = responses.accepted[0]!.body!;
    expect(first).toMatchObject({ model: "gpt-4.1", store: false });
    expect(first.instructions).toContain("You are Ava, the new draft. Offer a callback.");
    expect((first.tools as Array<{ name: string }>).map((tool) => tool.name).sort()).toEqual(["Lookup_Order", "end_call"]);
    expect(inputOf(0)).toEqual([
      { role: "assistant", content: "Hello, this is Ava. How can I help?" },
      { role: "user", content: "Where is my order 42?" },
    ]);
    const [asked, answered] = inputOf(1).slice(2);
    expect(asked).toEqual({ type: "function_call", call_id: "call_fake0_0", name: "Lookup_Order", arguments: '{"order_id":"42"}' });
    expect(answered).toMatchObject({ type: "function_call_output", call_id: "call_fake0_0" });
    expect(JSON.parse(String(answered!.output))).toEqual({ status: "shipped", eta: "Friday" });
    expect(inputOf(4).filter((m) => m.role === "user").map((m) => m.content)).toEqual(["Where is my order 42?", "Can I change the address?", "Then goodbye."]);
    expect(upstream.requests).toEqual([]);
  });

  it("tells the draft there is no answer for a tool the original call never used", async () => {
    const callId = await insertCall(ada.organizationId, {
      logs: { isTest: false, transcript: [{ type: "user", content: "Any news on order 7?", timestamp: t(1) }], toolsUsed: [] },
    });
    responses.enqueue({ kind: "answer", toolCalls: [{ name: "Lookup_Order", arguments: { order_id: "7" } }] }, { kind: "answer", text: "I could not look it up." });
    const res = await replay(ada, callId);
    expect(res.statusCode, res.body).toBe(200);
    const body = res.json() as CallReplay;
    expect(body.turns[1]!.draft!.tool_calls[0]).toMatchObject({ name: "Lookup Order", answered_from: "unavailable", result: { error: expect.stringContaining("never calls tools") } });
    expect(body.stopped).toBeNull();
    expect(upstream.requests).toEqual([]);
  });

  it("answers 404 for another organisation's call and a malformed id, 409 while the call runs, 400 without caller turns", async () => {
    const callId = await insertCall(ada.organizationId);
    const eve = await signUpCaller(app, "sk-replay");
    const other = await replay(eve, callId);
    expect(other.statusCode).toBe(404);
    expect(errorOf(other).message).toBe("Call not found");
    expect((await replay(ada, "not-a-uuid")).statusCode).toBe(404);

    const running = await replay(ada, await insertCall(ada.organizationId, { endTime: null }));
    expect(running.statusCode).toBe(409);
    expect(errorOf(running).message).toBe(REPLAY_MESSAGES.inProgress);

    const silent = await replay(ada, await insertCall(ada.organizationId, { logs: { isTest: true, transcript: [TRANSCRIPT[0]!], toolsUsed: [] } }));
    expect(silent.statusCode).toBe(400);
    expect(errorOf(silent).message).toBe(REPLAY_MESSAGES.noCallerTurns);
    expect(responses.accepted).toEqual([]);
  });

  it("asks for the OpenAI key when the organisation has none, and says when OpenAI refuses it", async () => {
    const kim = await signUpCaller(app);
    const kims = (await createAssistant(app, kim)).id;
    const [row] = await db
      .insert(calls)
      .values({ organizationId: kim.organizationId, assistantId: kims, startTime: new Date(t(0)), endTime: new Date(t(13)), logs: { isTest: true, transcript: TRANSCRIPT.slice(0, 2), toolsUsed: [] } })
      .returning();
    const none = await replay(kim, row!.id);
    expect(none.statusCode).toBe(400);
    expect(errorOf(none).message).toBe(REPLAY_MESSAGES.noApiKey);

    const put = await as(app, kim).put("/api/credentials/openai_api_key", { value: "sk-wrong-key" });
    expect(put.statusCode).toBe(200);
    const refused = await replay(kim, row!.id);
    expect(refused.statusCode).toBe(400);
    expect(errorOf(refused).message).toBe("OpenAI refused the API key: check it in Settings.");
  });
});

describe("the replay budget", () => {
  it("answers 429 past the organisation's replays of the minute", async () => {
    const lee = await signUpCaller(app, "sk-replay");
    const codes: number[] = [];
    for (let i = 0; i <= REPLAYS_PER_MINUTE; i += 1) codes.push((await replay(lee, "00000000-0000-4000-8000-000000000000")).statusCode);
    expect(codes).toEqual([...Array(REPLAYS_PER_MINUTE).fill(404), 429]);
  });
});

describe("POST /api/calls/:id/scenario (Save as test)", () => {
  it("makes a scenario of the call's assistant whose scripted caller says the call's caller turns, with the original tool answers", async () => {
    const callId = await insertCall(ada.organizationId);
    const res = await as(app, ada).post(`/api/calls/${callId}/scenario`, { name: "Order 42 address change", rubric: "Offers a callback when the address cannot be changed." });
    expect(res.statusCode, res.body).toBe(201);
    const scenario = res.json() as Scenario;
    expect(scenario).toMatchObject({
      assistant_id: assistantId,
      name: "Order 42 address change",
      rubric: "Offers a callback when the address cannot be changed.",
      caller_turns: ["Where is my order 42?", "Can I change the address?", "Then goodbye.", "Bye"],
      max_turns: 4,
      tool_answers: { "Lookup Order": { status: "shipped", eta: "Friday" } },
      source: "call",
      status: null,
      source_call_id: callId,
    });
    // The assistant's Tests list it.
    const listed = await as(app, ada).get(`/api/assistants/${assistantId}/scenarios`);
    expect((listed.json().data as Scenario[]).map((s) => s.id)).toContain(scenario.id);
  });

  it("refuses a blank rubric in the form's words, another organisation's call with 404, and writes nothing", async () => {
    const callId = await insertCall(ada.organizationId);
    const blank = await as(app, ada).post(`/api/calls/${callId}/scenario`, { name: "x", rubric: "  " });
    expect(blank.statusCode).toBe(400);
    expect(errorOf(blank).message).toBe(SCENARIO_MESSAGES.rubricRequired);
    const eve = await signUpCaller(app);
    const other = await as(app, eve).post(`/api/calls/${callId}/scenario`, { name: "x", rubric: "y" });
    expect(other.statusCode).toBe(404);
    const listed = (await as(app, ada).get(`/api/assistants/${assistantId}/scenarios`)).json().data as Scenario[];
    expect(listed.filter((s) => s.source_call_id === callId)).toEqual([]);
  });
});
