import { eq } from "drizzle-orm";
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { startFakeRealtime, type FakeRealtime } from "../../../../tests/fakes/fake-realtime.ts";
import {
  createAssistant,
  createTool,
  openLiveSocket,
  sessionIdFor,
  setUpLiveOwner,
  signUpCaller,
  startLiveApp,
  type Caller,
  type LiveApp,
} from "../../../../tests/fakes/realtime-app.ts";
import type { TestBrowser } from "../../../../tests/fakes/realtime-browser-client.ts";
import { orderLookupTool, startToolUpstream, type ToolUpstream } from "../../../../tests/fakes/tool-upstream.ts";
import { freshDatabase } from "../../../../tests/harness.ts";
import { callLogsSchema, type ServerMessage } from "../../../shared/calls.ts";
import type { Database } from "../../db/client.ts";
import { calls } from "../../db/schema.ts";

/**
 * Whole test calls over real sockets: the browser's socket on the real app, the app's call
 * engine on the fake OpenAI Realtime server, tools against a real local upstream, the record
 * in the database and the recording in storage; then every way a call can end.
 */

let upstream: ToolUpstream;
let toolId: string;
beforeAll(async () => {
  upstream = await startToolUpstream();
});
afterAll(() => upstream.close());
const file = setUpLiveOwner("sk-live-test", async (live, owner) => {
  toolId = (await createTool(live.app, owner, orderLookupTool(upstream.origin))).id;
  return { tool_ids: [toolId] };
});
beforeEach(() => {
  file.fake.script = {};
});

const contents = (b: TestBrowser) => b.transcript().map((e) => [e.type, e.content]);
const responsesDone = (b: TestBrowser) => b.statuses().filter((s) => s === "Assistant finished responding").length;
const endedOf = (b: TestBrowser) => b.of("ended")[0];

async function recordOf(db: LiveApp["db"], callId: string) {
  const [row] = await db.select().from(calls).where(eq(calls.id, callId));
  return row;
}

/** Polls the record until the call is finalised (the browser may be gone and hear nothing). */
async function finishedRecord(db: LiveApp["db"], callId: string, timeoutMs = 5000) {
  for (const started = Date.now(); Date.now() - started < timeoutMs; await new Promise((r) => setTimeout(r, 20))) {
    const row = await recordOf(db, callId);
    if (row?.endTime) return row;
  }
  throw new Error(`call ${callId} was not finalised`);
}

async function startCall(app: LiveApp = file.live, who: Caller = file.owner, assistant = file.assistantId) {
  const browser = await openLiveSocket(app, who, await sessionIdFor(app.app, who, assistant));
  await browser.until(() => browser.of("started").length > 0, "call record");
  await browser.until(() => responsesDone(browser) >= 1, "first message");
  return { browser, callId: browser.of("started")[0]!.callId };
}

describe("a whole test call", () => {
  it("greets, hears the caller, runs a tool on the real upstream, answers text, ends and leaves a complete record", async () => {
    file.fake.script = {
      userSays: ["Where is my order 42?"],
      replies: [{ say: "Let me check.", toolCalls: [{ name: "Lookup_Order", arguments: { order_id: "42" } }] }],
    };
    const { browser, callId } = await startCall();

    // The first message: heard as audio frames of its item, and shown in the transcript.
    expect(browser.statuses().slice(0, 2)).toEqual(["Connecting...", "Connected to Ava"]);
    const greeting = browser.of("audio_start")[0]!.itemId;
    expect(browser.audio.get(greeting)).toBe(400 * 48); // the fake's 400 ms of PCM16 24 kHz
    expect(contents(browser)).toEqual([["assistant", "Hello, this is Ava. How can I help?"]]);
    browser.playback(greeting, 400); // the speaker played it all

    // The caller speaks: transcription, a reply that calls the tool, the tool's result, a reply on it.
    browser.speak(400);
    await browser.until(() => responsesDone(browser) >= 3, "tool round trip");
    expect(upstream.requests.map((r) => [r.method, r.path, r.query])).toEqual([["GET", "/orders", { order_id: "42" }]]);
    const entries = browser.transcript();
    expect(contents(browser)).toEqual([
      ["assistant", "Hello, this is Ava. How can I help?"],
      ["user", "Where is my order 42?"],
      ["assistant", "Let me check."],
      ["tool-request", "Calling tool Lookup Order"],
      ["tool-response", "Tool Lookup Order completed with status 200"],
      ["assistant", expect.stringContaining("Here is what I found:")],
    ]);
    expect(entries[3]).toMatchObject({ parameters: { order_id: "42" }, toolData: { toolName: "Lookup Order", toolId } });
    expect(entries[4]).toMatchObject({ result: { method: "GET", path: "/orders", query: { order_id: "42" } }, toolData: { status: 200 } });
    // What the model got back is the upstream's answer.
    const conn = await file.fake.connection(file.fake.connections.length - 1);
    const output = conn.receivedOf("conversation.item.create").map((e) => e["item"] as { type: string; output: string });
    expect(JSON.parse(output[0]!.output)).toMatchObject({ path: "/orders", query: { order_id: "42" } });

    // A typed message.
    browser.sendText("Thanks!");
    await browser.until(() => responsesDone(browser) >= 4, "reply to text");
    expect(contents(browser).slice(-2)).toEqual([
      ["user", "Thanks!"],
      ["assistant", "Okay."],
    ]);

    // End: "ended" with the cost, then the close with 1000.
    browser.end();
    await browser.untilClosed();
    expect(browser.closed).toEqual({ code: 1000, reason: "User ended call" });
    const last = browser.messages.at(-1) as Extract<ServerMessage, { type: "ended" }>;
    expect(last).toEqual({ type: "ended", callId, reason: "User ended call", durationMs: expect.any(Number), cost: 0.05 });
    expect(browser.errors()).toEqual([]);

    const row = (await recordOf(file.live.db, callId))!;
    expect(row).toMatchObject({ organizationId: file.owner.organizationId, assistantId: file.assistantId, assistantName: "Ava", endedReason: "User ended call", cost: 0.05 });
    expect(row.endTime!.getTime() - row.startTime.getTime()).toBe(last.durationMs);
    const logs = callLogsSchema.parse(row.logs);
    expect(logs.isTest).toBe(true);
    expect(logs.transcript.map((e) => [e.type, e.content])).toEqual(contents(browser));
    expect(logs.toolsUsed).toEqual([
      expect.objectContaining({ name: "Lookup Order", id: toolId, parameters: { order_id: "42" }, result: expect.objectContaining({ path: "/orders" }) }),
    ]);
    expect(row.recording).toBe(`recordings/${callId}.wav`);
    const stored = await file.live.app.ctx.storage.get(row.recording!);
    expect(stored?.info.contentType).toBe("audio/wav");
    expect(stored?.body.subarray(0, 4).toString()).toBe("RIFF");
  });

  it("reports a tool the SSRF guard refuses as an error entry, and gives the model the error", async () => {
    // localhost is not on the allow list (127.0.0.1 is), so the guard refuses the loopback address.
    const blocked = await createTool(file.live.app, file.owner, { name: "Internal Lookup", end_point_url: `http://localhost:${upstream.port}/orders` });
    const assistant = await createAssistant(file.live.app, file.owner, { name: "Guarded", tool_ids: [blocked.id] });
    file.fake.script = { replies: [{ toolCalls: [{ name: "Internal_Lookup", arguments: { q: "x" } }] }] };
    const { browser } = await startCall(file.live, file.owner, assistant.id);
    const before = upstream.requests.length;
    browser.sendText("Look it up");
    await browser.until(() => responsesDone(browser) >= 3, "tool round trip");
    const response = browser.transcript().find((e) => e.type === "tool-response")!;
    expect(response).toMatchObject({ isError: true, toolData: { toolName: "Internal Lookup", status: 0 } });
    expect(response.content).toMatch(/^Tool Internal Lookup failed: .*localhost/);
    const conn = await file.fake.connection(file.fake.connections.length - 1);
    const output = conn.receivedOf("conversation.item.create").map((e) => e["item"] as { type: string; output?: string }).find((i) => i.type === "function_call_output");
    expect(JSON.parse(output!.output!)).toMatchObject({ error: expect.stringContaining("localhost"), status: 0 });
    expect(upstream.requests.length).toBe(before);
    browser.end();
    await browser.untilClosed();
  });

  it("inserts the record when the call starts, in progress until it ends, with each finished turn saved as it goes", async () => {
    const { browser, callId } = await startCall();
    const row = (await recordOf(file.live.db, callId))!;
    expect(row).toMatchObject({ organizationId: file.owner.organizationId, assistantId: file.assistantId, endTime: null, endedReason: null, cost: null, recording: null });
    // What the Calls page shows of the running call: its details, read through the API.
    const savedTranscript = async () => {
      const res = await file.live.app.inject({ method: "GET", url: `/api/calls/${callId}`, headers: { cookie: file.owner.cookie } });
      return callLogsSchema.parse((res.json() as { logs: unknown }).logs).transcript.map((e) => [e.type, e.content]);
    };
    await expect.poll(savedTranscript).toEqual([["assistant", "Hello, this is Ava. How can I help?"]]);
    expect(contents(browser)).toEqual(await savedTranscript());
    browser.end("Sheet closed");
    await browser.untilClosed();
    expect((await recordOf(file.live.db, callId))!.endedReason).toBe("Sheet closed");
  });
});

describe("every way out finalises the record", () => {
  it("the browser vanishes: Client disconnected", async () => {
    const { browser, callId } = await startCall();
    browser.disconnect();
    const row = await finishedRecord(file.live.db, callId);
    expect(row).toMatchObject({ endedReason: "Client disconnected", cost: 0.05 });
    expect(row.recording).toBe(`recordings/${callId}.wav`);
    // The record is written before the call re-reads it and lets go of its registry entry.
    await expect.poll(() => file.live.app.ctx.liveCalls.size).toBe(0);
  });

  it("the provider drops the connection: the call goes on in a new session, one record", async () => {
    const { browser, callId } = await startCall();
    const before = file.fake.connections.length;
    file.fake.connections[before - 1]!.drop(1011, "Internal server error");
    const second = await file.fake.connection(before, 5000);
    await second.waitForSent("session.updated");
    await second.until(() => second.receivedOf("conversation.item.create").length > 0, 5000, "context");
    expect(browser.statuses()).not.toContain("Connection failed");
    browser.sendText("Still there?");
    await browser.until(() => responsesDone(browser) >= 2, "an answer from the new session");
    browser.end();
    await browser.untilClosed();
    expect(endedOf(browser)).toMatchObject({ callId, reason: "User ended call" });
    expect(await recordOf(file.live.db, callId)).toMatchObject({ endedReason: "User ended call" });
    expect(contents(browser).filter(([type]) => type === "assistant")[0]).toEqual(["assistant", "Hello, this is Ava. How can I help?"]);
  });

  it("the provider drops the connection and no new session can be set up: that reason", async () => {
    const { browser, callId } = await startCall();
    file.fake.script = { refuse: [{ type: "session.update", code: "invalid_value", message: "Model not available." }] };
    file.fake.connections[file.fake.connections.length - 1]!.drop(1011, "Internal server error");
    await browser.untilClosed();
    expect(browser.closed?.code).toBe(1000);
    const reason = "Failed to initialize session: Model not available.";
    expect(endedOf(browser)).toMatchObject({ callId, reason, cost: 0.05 });
    expect(browser.statuses()).toContain("Connection failed");
    expect(await recordOf(file.live.db, callId)).toMatchObject({ endedReason: reason, cost: 0.05 });
  });

  describe("server shutdown", () => {
    let database: Database;
    let shutdownFake: FakeRealtime;
    let other: LiveApp;
    // Setup (a database clone, an app, a user: seconds on PGlite under load) stays out of the test's time.
    beforeEach(async () => {
      shutdownFake = await startFakeRealtime({ apiKey: "sk-shutdown" });
      // Our own database handle, so the records can be read after app.close().
      database = await freshDatabase();
      other = await startLiveApp(shutdownFake, {}, { database });
    });
    afterEach(async () => {
      await other.app.close();
      await shutdownFake.close();
      await database.close();
    });

    it("ends every live call with Server shutting down and finalises each record before close resolves", async () => {
      const who = await signUpCaller(other.app, shutdownFake.apiKey);
      const assistant = await createAssistant(other.app, who);
      const first = await startCall(other, who, assistant.id);
      const second = await startCall(other, who, assistant.id);
      expect(other.app.ctx.liveCalls.size).toBe(2);

      await other.app.close();

      for (const { browser, callId } of [first, second]) {
        const row = await recordOf(database.db, callId);
        expect(row).toMatchObject({ endedReason: "Server shutting down", cost: 0.05, recording: `recordings/${callId}.wav` });
        expect(row!.endTime).not.toBeNull();
        await browser.untilClosed();
        expect(endedOf(browser)).toMatchObject({ callId, reason: "Server shutting down" });
        expect(browser.closed).toEqual({ code: 1000, reason: "Server shutting down" });
      }
    });
  });
});
