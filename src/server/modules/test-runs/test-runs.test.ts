import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { startFakeRealtime, type FakeRealtime } from "../../../../tests/fakes/fake-realtime.ts";
import { startFakeResponses, type FakeResponses } from "../../../../tests/fakes/fake-responses.ts";
import { testRoles } from "../../../../tests/fakes/fake-test-roles.ts";
import { createAssistant, createTool, signUpCaller, startLiveApp, type Caller, type LiveApp } from "../../../../tests/fakes/realtime-app.ts";
import { startToolUpstream, type ToolUpstream } from "../../../../tests/fakes/tool-upstream.ts";
import { as, buildTestApp, errorOf, freshDatabase, expectBody } from "../../../../tests/harness.ts";
import { TEST_RUN_MESSAGES, TEST_RUN_STARTS_PER_MINUTE, type Scenario, type TestRun } from "../../../shared/scenarios.ts";
import type { AuditPage } from "../../../shared/audit.ts";
import type { AssistantVersionSummary } from "../../../shared/versions.ts";

/**
 * Test runs over real HTTP: scenarios played as jobs on the durable queue against the fake
 * Responses API (strict schemas checked), which plays the assistant, the caller and the judge by
 * script; what GET /api/test-runs/:id shows; cancelling; and publishing behind the draft's tests.
 */

let realtime: FakeRealtime;
let responses: FakeResponses;
let upstream: ToolUpstream;
let live: LiveApp;
let ada: Caller;
let bob: Caller;

beforeAll(async () => {
  realtime = await startFakeRealtime({ apiKey: "sk-tests-test" });
  responses = await startFakeResponses({ apiKey: realtime.apiKey, serveOn: realtime });
  upstream = await startToolUpstream();
  live = await startLiveApp(realtime, { JOB_POLL_INTERVAL_MS: "500", TEST_RUN_RETRY_DELAYS_MS: "1000", TEST_RUN_CONCURRENCY: "4" });
  ada = await signUpCaller(live.app, realtime.apiKey);
  bob = await signUpCaller(live.app, realtime.apiKey);
});
afterAll(async () => {
  await live.app.close();
  await upstream.close();
  await responses.close();
  await realtime.close();
});
beforeEach(() => {
  responses.script = null;
  responses.delayMs = 0;
});

const api = (who: Caller = ada) => as(live.app, who);

async function newScenario(assistantId: string, body: Record<string, unknown>): Promise<Scenario> {
  return expectBody(await api().post(`/api/assistants/${assistantId}/scenarios`, { max_turns: 4, ...body }), 201);
}

async function startRun(assistantId: string, body: Record<string, unknown> = {}): Promise<string> {
  const res = await api().post(`/api/assistants/${assistantId}/test-runs`, body);
  expect(res.statusCode, res.body).toBe(202);
  return res.json<{ id: string }>().id;
}

async function runUntil(id: string, until: (r: TestRun) => boolean = (r) => r.status !== "running", timeoutMs = 30_000): Promise<TestRun> {
  for (const started = Date.now(); Date.now() - started < timeoutMs; await new Promise((r) => setTimeout(r, 150))) {
    const res = await api().get(`/api/test-runs/${id}`);
    expect(res.statusCode, res.body).toBe(200);
    if (until(res.json())) return res.json();
  }
  throw new Error(`run ${id} did not get there: ${(await api().get(`/api/test-runs/${id}`)).body}`);
}

const ORDER_SCENARIO = {
  name: "Late order",
  persona: "You are Ada, your order 42 has not arrived, you are annoyed.",
  goal: "Learn where order 42 is",
  rubric: "The assistant looks the order up and says it has shipped.",
  tool_answers: { "Lookup order": { status: "shipped", eta: "Friday" } },
};

/** The caller asks, then thanks and leaves; the assistant looks the order up once, then answers; the judge wants "shipped". */
const orderScript = () =>
  testRoles({
    caller: (req) => (req.callerTurn === 0 ? { say: "Where is my order 42?", done: false } : { say: "Thanks, bye.", done: true }),
    assistant: (req) =>
      req.callerTurn === 0 && req.toolResults === 0
        ? { reply: "Let me check.", tool_calls: [{ name: "Lookup_order", arguments: '{"order_id":"42"}' }] }
        : { reply: req.callerTurn === 0 ? "Order 42 has shipped and arrives Friday." : "Goodbye!" },
    judge: (req) => (req.transcript.includes("has shipped") && req.body.instructions!.toString().includes("says it has shipped") ? { passed: true, reasons: ["The order was looked up", "The caller heard it shipped"] } : { passed: false, reasons: ["The status was not given"] }),
  });

describe("a test run", () => {
  it("plays each scenario against the draft, its tools answered from the scenario, and keeps the judge's verdict, transcript and cost", async () => {
    const tool = await createTool(live.app, ada, { name: "Lookup order", description: "Finds an order", end_point_url: `${upstream.origin}/orders` });
    const assistant = await createAssistant(live.app, ada, { instructions: "You are Ava of Acme. Look orders up.", tool_ids: [tool.id] });
    const s1 = await newScenario(assistant.id, ORDER_SCENARIO);
    const s2 = await newScenario(assistant.id, { ...ORDER_SCENARIO, name: "Wrong rubric", rubric: "The assistant offers a refund." });
    responses.script = orderScript();
    const before = responses.requests.length;

    const run = await runUntil(await startRun(assistant.id));
    expect(run).toMatchObject({ assistant_id: assistant.id, version: null, status: "done", progress: { total: 2, finished: 2, passed: 1, failed: 1 } });
    const [first, second] = run.results;
    expect(first).toMatchObject({ scenario_id: s1.id, scenario_name: "Late order", status: "passed", passed: true, reasons: ["The order was looked up", "The caller heard it shipped"] });
    expect(second).toMatchObject({ scenario_id: s2.id, status: "failed", passed: false, reasons: ["The status was not given"] });
    expect(first!.transcript).toEqual([
      { role: "assistant", text: "Hello, this is Ava. How can I help?" },
      { role: "caller", text: "Where is my order 42?" },
      { role: "assistant", text: "Let me check." },
      { role: "tool", text: expect.any(String), tool: { name: "Lookup_order", arguments: '{"order_id":"42"}' } },
      { role: "assistant", text: "Order 42 has shipped and arrives Friday." },
      { role: "caller", text: "Thanks, bye." },
      { role: "assistant", text: "Goodbye!" },
    ]);
    expect(JSON.parse(first!.transcript[3]!.text)).toEqual({ status: "shipped", eta: "Friday" });
    // Per scenario: 2 caller turns, 3 assistant turns, 1 verdict, each 1200 in + 150 out at gpt-5-mini ($0.25/M in, $2/M out).
    expect(first!.cost).toBeCloseTo(6 * (1200 * 0.25 + 150 * 2) / 1e6, 9);
    expect(run.cost).toBeCloseTo(2 * first!.cost, 9);
    expect(first!.duration_ms).toEqual(expect.any(Number));
    // The real endpoint was never called; every request passed the fake's strict checks, with the draft's instructions.
    expect(upstream.requests).toEqual([]);
    const sent = responses.requests.slice(before);
    expect(sent.every((r) => r.status === 200)).toBe(true);
    const assistantTurns = sent.filter((r) => (r.body!.text as { format: { name: string } }).format.name === "assistant_turn");
    expect(assistantTurns).toHaveLength(6);
    expect(assistantTurns.every((r) => String(r.body!.instructions).startsWith("You are Ava of Acme. Look orders up."))).toBe(true);
    // The built-in end_call is offered beside the user's tool.
    expect(JSON.stringify(assistantTurns[0]!.body!.text)).toContain('"enum":["Lookup_order","end_call"]');
  });

  it("runs a published version while the draft differs, only the scenarios asked for, and a scripted caller's words", async () => {
    const assistant = await createAssistant(live.app, ada, { instructions: "Version one instructions." });
    await api().patch(`/api/assistants/${assistant.id}`, { instructions: "Draft instructions." });
    const scripted = await newScenario(assistant.id, { name: "Replay", rubric: "Polite", caller_turns: ["Hi there", "Is it open on Sunday?"] });
    await newScenario(assistant.id, { ...ORDER_SCENARIO, tool_answers: {} });
    responses.script = testRoles({});
    const before = responses.requests.length;

    const run = await runUntil(await startRun(assistant.id, { version: 1, scenario_ids: [scripted.id] }));
    expect(run).toMatchObject({ version: 1, status: "done", progress: { total: 1, passed: 1 } });
    expect(run.results[0]!.transcript.filter((t) => t.role === "caller").map((t) => t.text)).toEqual(["Hi there", "Is it open on Sunday?"]);
    const sent = responses.requests.slice(before).map((r) => r.body!);
    const names = sent.map((b) => (b.text as { format: { name: string } }).format.name);
    expect(names).toEqual(["assistant_turn", "assistant_turn", "test_verdict"]);
    expect(String(sent[0]!.instructions)).toContain("Version one instructions.");
  });

  it("stops the caller at the scenario's maximum turns", async () => {
    const assistant = await createAssistant(live.app, ada);
    await newScenario(assistant.id, { ...ORDER_SCENARIO, max_turns: 3 });
    responses.script = testRoles({ caller: (req) => ({ say: `Turn ${req.callerTurn + 1}`, done: false }) });
    const run = await runUntil(await startRun(assistant.id));
    expect(run.results[0]!.transcript.filter((t) => t.role === "caller").map((t) => t.text)).toEqual(["Turn 1", "Turn 2", "Turn 3"]);
  });

  it("says why a scenario could not be played: OpenAI refusing the key", async () => {
    const carol = await signUpCaller(live.app, "sk-not-the-fake-key");
    const assistant = await createAssistant(live.app, carol);
    const created = await as(live.app, carol).post(`/api/assistants/${assistant.id}/scenarios`, ORDER_SCENARIO);
    expect(created.statusCode).toBe(201);
    const res = await as(live.app, carol).post(`/api/assistants/${assistant.id}/test-runs`, {});
    const id = res.json<{ id: string }>().id;
    let run: TestRun | null = null;
    for (let i = 0; i < 200 && run?.status !== "done"; i += 1) {
      await new Promise((r) => setTimeout(r, 150));
      run = (await as(live.app, carol).get(`/api/test-runs/${id}`)).json();
    }
    expect(run).toMatchObject({ status: "done", progress: { failed: 1 }, results: [{ status: "error", passed: null, reasons: ["OpenAI refused the API key: check it in Settings."] }] });
  });

  it("is cancelled: unfinished scenarios stop and write nothing more", async () => {
    const assistant = await createAssistant(live.app, ada);
    for (let i = 0; i < 6; i += 1) await newScenario(assistant.id, { ...ORDER_SCENARIO, name: `Slow ${i}` });
    responses.delayMs = 400;
    responses.script = testRoles({});
    const id = await startRun(assistant.id);
    await runUntil(id, (r) => r.results.some((x) => x.status === "running"));
    const res = await api().post(`/api/test-runs/${id}/cancel`);
    expect(res.statusCode, res.body).toBe(200);
    expect(res.json<TestRun>()).toMatchObject({ status: "cancelled" });
    expect(res.json<TestRun>().results.every((r) => r.status === "cancelled")).toBe(true);
    // A job still playing finds its result cancelled at its next request and leaves it so.
    await new Promise((r) => setTimeout(r, 1500));
    expect((await runUntil(id)).results.every((r) => r.status === "cancelled")).toBe(true);
    expect(errorOf(await api().post(`/api/test-runs/${id}/cancel`)).message).toBe(TEST_RUN_MESSAGES.notRunning);
    // Who ran the tests and who stopped them.
    const audit = (await api().get("/api/audit-log?limit=50")).json<{ data: Array<{ action: string; target_id: string | null; details: Record<string, unknown> | null }> }>().data;
    expect(audit.find((e) => e.action === "test_run.started" && e.target_id === id)).toMatchObject({ details: { assistant_id: assistant.id } });
    expect(audit.find((e) => e.action === "test_run.cancelled" && e.target_id === id)).toBeDefined();
  });

  it("refuses what cannot run, in words, and another organisation's assistant or run is not found", async () => {
    const assistant = await createAssistant(live.app, ada);
    let res = await api().post(`/api/assistants/${assistant.id}/test-runs`, {});
    expect([res.statusCode, errorOf(res).message]).toEqual([400, TEST_RUN_MESSAGES.noScenarios]);
    const s = await newScenario(assistant.id, ORDER_SCENARIO);
    res = await api().post(`/api/assistants/${assistant.id}/test-runs`, { version: 7 });
    expect([res.statusCode, errorOf(res).message]).toEqual([400, TEST_RUN_MESSAGES.unknownVersion(7)]);
    res = await api().post(`/api/assistants/${assistant.id}/test-runs`, { version: "v1" });
    expect([res.statusCode, errorOf(res).message]).toEqual([400, TEST_RUN_MESSAGES.versionInvalid]);

    expect((await api(bob).post(`/api/assistants/${assistant.id}/test-runs`, {})).statusCode).toBe(404);
    expect((await api(bob).post(`/api/assistants/${assistant.id}/test-runs`, { version: 1 })).statusCode).toBe(404);
    const theirs = await createAssistant(live.app, bob);
    expect((await api(bob).post(`/api/assistants/${theirs.id}/test-runs`, { scenario_ids: [s.id] })).statusCode).toBe(404);
    responses.script = testRoles({});
    const id = await startRun(assistant.id);
    expect((await api(bob).get(`/api/test-runs/${id}`)).statusCode).toBe(404);
    expect((await api(bob).post(`/api/test-runs/${id}/cancel`)).statusCode).toBe(404);
    expect((await api(bob).get(`/api/assistants/${assistant.id}/test-runs/latest`)).statusCode).toBe(404);
    await runUntil(id);
    expect((await api().get(`/api/assistants/${assistant.id}/test-runs/latest`)).json<TestRun>().id).toBe(id);
  });
});

describe("bounds on starting runs", () => {
  it("one run in flight per assistant, however many starts arrive at once, and a per-organisation rate of starts", async () => {
    const dora = await signUpCaller(live.app, realtime.apiKey);
    const assistant = await createAssistant(live.app, dora);
    expect((await as(live.app, dora).post(`/api/assistants/${assistant.id}/scenarios`, ORDER_SCENARIO)).statusCode).toBe(201);
    responses.delayMs = 2000;
    responses.script = testRoles({});
    const start = () => as(live.app, dora).post(`/api/assistants/${assistant.id}/test-runs`, {});

    const both = await Promise.all([start(), start()]);
    expect(both.map((r) => r.statusCode).sort()).toEqual([202, 409]);
    expect(errorOf(both.find((r) => r.statusCode === 409)!)).toEqual({ code: "test_run_in_progress", message: TEST_RUN_MESSAGES.alreadyRunning });
    let running = both.find((r) => r.statusCode === 202)!.json<{ id: string }>().id;

    // Every start counts towards the organisation's minute, refused ones too: cancel and start again up to it.
    for (let started = 2; started < TEST_RUN_STARTS_PER_MINUTE; started += 1) {
      expect((await as(live.app, dora).post(`/api/test-runs/${running}/cancel`)).statusCode).toBe(200);
      const res = await start();
      expect(res.statusCode, res.body).toBe(202);
      running = res.json<{ id: string }>().id;
    }
    expect((await as(live.app, dora).post(`/api/test-runs/${running}/cancel`)).statusCode).toBe(200);
    const limited = await start();
    expect(limited.statusCode).toBe(429);
    const wait = Number(limited.headers["retry-after"]);
    expect(wait).toBeGreaterThan(0);
    expect(wait).toBeLessThanOrEqual(60);
    expect(errorOf(limited)).toEqual({ code: "rate_limited", message: TEST_RUN_MESSAGES.tooManyStarts(wait) });
    // Another organisation starts as before.
    const other = await createAssistant(live.app, bob);
    expect((await as(live.app, bob).post(`/api/assistants/${other.id}/scenarios`, ORDER_SCENARIO)).statusCode).toBe(201);
    const theirs = await as(live.app, bob).post(`/api/assistants/${other.id}/test-runs`, {});
    expect(theirs.statusCode, theirs.body).toBe(202);
    await as(live.app, bob).post(`/api/test-runs/${theirs.json<{ id: string }>().id}/cancel`);
  });
});

describe("publishing behind the draft's tests", () => {
  it("tests the draft first; a failure needs confirmation and the version records it", async () => {
    const assistant = await createAssistant(live.app, ada);
    await newScenario(assistant.id, ORDER_SCENARIO);
    await api().patch(`/api/assistants/${assistant.id}`, { instructions: "Never look anything up." });
    responses.script = testRoles({ judge: () => ({ passed: false, reasons: ["No status given"] }) });

    let res = await api().post(`/api/assistants/${assistant.id}/publish`, { note: "Shorter" });
    expect(res.statusCode, res.body).toBe(202);
    const testing = res.json<{ status: string; test_run_id: string; message: string }>();
    expect(testing).toMatchObject({ status: "testing", message: TEST_RUN_MESSAGES.testing });
    // Asking again while it runs waits on the same run.
    res = await api().post(`/api/assistants/${assistant.id}/publish`, {});
    if (res.statusCode === 202) expect(res.json<{ test_run_id: string }>().test_run_id).toBe(testing.test_run_id);
    const run = await runUntil(testing.test_run_id);
    expect(run).toMatchObject({ version: null, progress: { failed: 1, total: 1 } });

    res = await api().post(`/api/assistants/${assistant.id}/publish`, { note: "Shorter" });
    expect([res.statusCode, errorOf(res).code, errorOf(res).message]).toEqual([409, "tests_failed", TEST_RUN_MESSAGES.testsFailed(1, 1)]);
    expect((await api().get(`/api/assistants/${assistant.id}/versions`)).json<{ live_version: number }>().live_version).toBe(1);

    res = await api().post(`/api/assistants/${assistant.id}/publish`, { note: "Shorter", confirm_failures: true });
    expect(res.statusCode, res.body).toBe(201);
    expect(res.json<AssistantVersionSummary>()).toMatchObject({ version: 2, note: "Shorter", published_with_failures: true });
    // The audit log has the publish, once: the answers that only started or reported the tests are not publishes.
    const audit = (await api().get("/api/audit-log?action=assistant.published")).json<AuditPage>().data.filter((e) => e.target_id === assistant.id);
    expect(audit.map((e) => e.details)).toEqual([{ version: 2, note: "Shorter", with_failing_tests: true }]);
  });

  it("publishes at once once the same draft has passed, and tests again after the draft changes", async () => {
    const assistant = await createAssistant(live.app, ada);
    await newScenario(assistant.id, ORDER_SCENARIO);
    responses.script = testRoles({});
    const first = await api().post(`/api/assistants/${assistant.id}/publish`, {});
    expect(first.statusCode).toBe(202);
    await runUntil(first.json<{ test_run_id: string }>().test_run_id);
    const res = await api().post(`/api/assistants/${assistant.id}/publish`, {});
    expect(res.statusCode, res.body).toBe(201);
    expect(res.json<AssistantVersionSummary>()).toMatchObject({ version: 2, published_with_failures: false });

    await api().patch(`/api/assistants/${assistant.id}`, { first_message: "Hi!" });
    expect((await api().post(`/api/assistants/${assistant.id}/publish`, {})).statusCode).toBe(202);
  });
});

describe("across a restart", () => {
  it("a run's queued scenarios are played by the next start on the same database", async () => {
    const database = await freshDatabase();
    const config = { OPENAI_BASE_URL: realtime.baseUrl, JOB_POLL_INTERVAL_MS: "500", TEST_RUN_CONCURRENCY: "1" };
    const first = await buildTestApp({ config, deps: { database } });
    const carol = await signUpCaller(first.app, realtime.apiKey);
    const assistant = await createAssistant(first.app, carol);
    for (let i = 0; i < 4; i += 1) expect((await as(first.app, carol).post(`/api/assistants/${assistant.id}/scenarios`, { ...ORDER_SCENARIO, name: `S${i}` })).statusCode).toBe(201);
    responses.script = testRoles({ caller: () => ({ say: "Where is it?", done: true }) });
    responses.delayMs = 200;
    const id = (await as(first.app, carol).post(`/api/assistants/${assistant.id}/test-runs`, {})).json<{ id: string }>().id;
    const progress = async (app: typeof first.app) => (await as(app, carol).get(`/api/test-runs/${id}`)).json<TestRun>();
    while ((await progress(first.app)).progress.finished === 0) await new Promise((r) => setTimeout(r, 100));
    // A stop lets the scenario being played finish; the queued ones wait in the database.
    await first.app.close();

    const second = await buildTestApp({ config, deps: { database } });
    try {
      const unfinished = (await progress(second.app)).progress;
      expect(unfinished.finished).toBeLessThan(4);
      let run = await progress(second.app);
      for (let i = 0; i < 200 && run.status === "running"; i += 1) {
        await new Promise((r) => setTimeout(r, 150));
        run = await progress(second.app);
      }
      expect(run).toMatchObject({ status: "done", progress: { total: 4, finished: 4, passed: 4 } });
    } finally {
      await second.app.close();
      await database.close();
    }
  });
});
