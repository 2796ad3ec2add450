/**
 * Every way a call ends goes through one close() that finalises the record with the right
 * reason and cost (spec §4 "Test call", §9 cost), over real sockets and the fake provider.
 */
import { beforeEach, describe, expect, it } from "vitest";
import { MemoryCallStore } from "../../../tests/fakes/realtime-call-store.ts";
import { useFakeCall, type HarnessOptions } from "../../../tests/fakes/realtime-harness.ts";
import { MemoryTransport, SilentProvider } from "../../../tests/fakes/realtime-memory-transport.ts";
import { RecordingToolRunner } from "../../../tests/fakes/realtime-tool-runner.ts";
import { CallSession } from "./call-session.ts";

const T0 = Date.UTC(2026, 10, 21, 9, 0, 0);
const voice = useFakeCall();
let clock = T0;

beforeEach(() => {
  clock = T0;
});

async function connectedCall(options: HarnessOptions = {}) {
  const harness = await voice.start({ ...options, session: { now: () => clock, ...options.session } });
  const { browser, session } = await harness.call();
  await browser.untilStatus("Assistant finished responding");
  const conn = await voice.fake.connection();
  return { browser, session, conn, h: harness };
}

const iso = (ms: number) => new Date(ms).toISOString();

describe("exit paths", () => {
  it("user ended call: finalises end time, reason, cost, logs and recording, re-reads, then closes with 1000", async () => {
    const { browser, session, h } = await connectedCall();
    clock = T0 + 73_000;
    browser.end();
    const outcome = await session.closed;
    const record = h.store.only();
    expect(record).toMatchObject({
      assistantId: "asst_1",
      organizationId: "user_1",
      startTime: iso(T0),
      endTime: iso(T0 + 73_000),
      endedReason: "User ended call",
      cost: 0.07,
      recording: `recordings/${record.id}.wav`,
      logs: { isTest: true, toolsUsed: [], transcript: [{ type: "assistant", content: "Hello, this is Ava. How can I help?" }] },
    });
    expect(h.recordings.saved.get(record.recording!)?.subarray(0, 4).toString()).toBe("RIFF");
    expect(h.store.reads).toEqual([record.id]);
    expect(outcome).toMatchObject({ callId: record.id, verified: true, durationMs: 73_000, cost: 0.07 });
    await browser.untilClosed();
    expect(browser.closed).toEqual({ code: 1000, reason: "User ended call" });
    expect(browser.statuses().at(-1)).toBe("Call completed");
    expect(browser.of("ended")).toEqual([{ type: "ended", callId: record.id, reason: "User ended call", durationMs: 73_000, cost: 0.07 }]);
    // The provider socket is closed too.
    const conn = await voice.fake.connection();
    await conn.until(() => conn.closed !== null);
    expect(conn.closed?.code).toBe(1000);
  });

  it.each([
    ["Sheet closed", 60_000, 0.05],
    ["User ended call", 61_000, 0.06],
    ["User ended call", 72_000, 0.06],
    ["User ended call", 0, 0.05],
  ] as const)("%s after %i ms costs %d", async (reason, ms, cost) => {
    const { browser, session, h } = await connectedCall();
    clock = T0 + ms;
    browser.end(reason);
    await session.closed;
    expect(h.store.only()).toMatchObject({ endedReason: reason, cost });
  });

  it("client disconnected", async () => {
    const { browser, session, h } = await connectedCall();
    clock = T0 + 85_000;
    browser.disconnect();
    const outcome = await session.closed;
    expect(outcome.reason).toBe("Client disconnected");
    expect(h.store.only()).toMatchObject({ endedReason: "Client disconnected", cost: 0.08 });
  });

  it("provider drop: the provider's reason, Disconnected status", async () => {
    const { browser, session, conn, h } = await connectedCall();
    clock = T0 + 97_000;
    conn.drop(1011, "Internal server error");
    await session.closed;
    expect(h.store.only()).toMatchObject({ endedReason: "Internal server error", cost: 0.09 });
    await browser.untilClosed();
    expect(browser.statuses()).toContain("Disconnected (1011) - Internal server error");
    expect(browser.of("status").at(-1)).toEqual({ type: "status", state: "ended", text: "Disconnected (1011) - Internal server error" });
  });

  it("provider drop without a close frame falls back to the code", async () => {
    const { session, conn, h } = await connectedCall();
    conn.drop(1006);
    await session.closed;
    expect(h.store.only().endedReason).toBe("Disconnected (1006)");
  });

  it("provider closes normally: Session ended normally", async () => {
    const { browser, session, conn, h } = await connectedCall();
    conn.drop(1000, "Goodbye");
    await session.closed;
    expect(h.store.only().endedReason).toBe("Goodbye");
    await browser.untilClosed();
    expect(browser.statuses()).toContain("Disconnected (1000) - Goodbye");
    expect(h.store.only().logs.transcript.at(-1)).toMatchObject({ type: "system", content: "Session ended normally" });
  });

  it("provider error event: transcript line and status; the call goes on; a drop after it uses the error", async () => {
    const { browser, session, conn, h } = await connectedCall();
    conn.sendError("server_error", "Something broke", "server_error");
    await browser.untilStatus("Error: Something broke");
    expect(browser.transcript().at(-1)).toMatchObject({ type: "system", content: "Error from the provider: Something broke", isError: true });
    expect(session.state).toBe("active");
    conn.drop(1006);
    await session.closed;
    expect(h.store.only().endedReason).toBe("Something broke");
  });

  it("the provider's 60-minute cap (session_expired)", async () => {
    const { session, conn, h } = await connectedCall();
    clock = T0 + 3_600_000;
    conn.expire();
    await session.closed;
    expect(h.store.only()).toMatchObject({ endedReason: "Your session hit the maximum duration of 60 minutes.", cost: 3 });
  });

  it("server shutdown", async () => {
    const { browser, session, h } = await connectedCall();
    clock = T0 + 1_000;
    await session.close("Server shutting down");
    expect(h.store.only()).toMatchObject({ endedReason: "Server shutting down", cost: 0.05 });
    await browser.untilClosed();
    expect(browser.closed?.code).toBe(1000);
  });

  it("close is idempotent: the first reason wins and the record is written once", async () => {
    const { session, h } = await connectedCall();
    const [a, b] = await Promise.all([session.close("Sheet closed"), session.close("User ended call")]);
    expect(a).toBe(b);
    expect(await session.close("Server shutting down")).toBe(a);
    expect(h.store.only().endedReason).toBe("Sheet closed");
    expect(h.store.reads).toHaveLength(1);
  });

  it("a wrong provider key: Connection failed, recorded with the provider's message and no charge", async () => {
    const harness = await voice.start({ apiKey: "sk-wrong", session: { now: () => clock } });
    const { browser, session } = await harness.call();
    const outcome = await session.closed;
    expect(outcome.reason).toBe("Unexpected server response: 401: Incorrect API key provided: sk-wro***.");
    expect(harness.store.only()).toMatchObject({ endedReason: outcome.reason, cost: 0 });
    await browser.untilClosed();
    expect(browser.statuses()).toContain("Connection failed");
    expect(harness.store.only().logs.transcript).toMatchObject([{ type: "system", isError: true, content: `Connection failed: ${outcome.reason}` }]);
  });

  it("a failed final write is retried, and the record closes", async () => {
    const { browser, session, h } = await connectedCall({ session: { finalWriteRetryDelaysMs: [5, 5, 5] } });
    h.store.failFinishTimes = 2;
    clock = T0 + 10_000;
    browser.end();
    const outcome = await session.closed;
    expect(h.store.finishAttempts).toBe(3);
    expect(outcome.verified).toBe(true);
    expect(h.store.only()).toMatchObject({ endTime: iso(T0 + 10_000), endedReason: "User ended call", cost: 0.05 });
    expect(h.store.only().logs.transcript).toHaveLength(1);
  });

  it("a final write that keeps failing still closes the record with what can be stored, and says so", async () => {
    const { browser, session, h } = await connectedCall({ session: { finalWriteRetryDelaysMs: [5, 5] } });
    h.store.refuseLogs = true;
    clock = T0 + 10_000;
    browser.end();
    const outcome = await session.closed;
    expect(h.store.finishAttempts).toBe(4); // three full attempts, then one without the logs
    expect(outcome.verified).toBe(false);
    const record = h.store.only();
    expect(record).toMatchObject({ endTime: iso(T0 + 10_000), endedReason: "User ended call", cost: 0.05, recording: `recordings/${record.id}.wav` });
    expect(record.logs.transcript).toEqual([]);
    await browser.untilClosed();
    expect(browser.errors()).toContain("Failed to update call record");
    // The browser had its figures before the slow part began.
    const kinds = browser.messages.map((m) => m.type);
    expect(kinds.indexOf("ended")).toBeLessThan(kinds.indexOf("error"));
  });

  it("a record that does not verify is reported to the browser", async () => {
    const { browser, session, h } = await connectedCall();
    h.store.loseFinish = true;
    browser.end();
    expect((await session.closed).verified).toBe(false);
    await browser.untilClosed();
    expect(browser.errors()).toContain("Failed to update call record");
  });
});

describe("a browser that vanishes silently", () => {
  it("is billed to the last pong heard, not to when the heartbeat noticed", async () => {
    const { browser, session } = await connectedCall({ browserHeartbeatMs: 100, session: { now: Date.now } });
    const frozeAt = Date.now();
    browser.freeze();
    const outcome = await session.closed;
    const noticedAt = Date.now();
    expect(outcome.reason).toBe("Client disconnected");
    expect(noticedAt - frozeAt).toBeGreaterThanOrEqual(100);
    expect(Date.parse(outcome.endTime)).toBeLessThanOrEqual(frozeAt);
  });
});

describe("without sockets", () => {
  function session(store = new MemoryCallStore()) {
    const transport = new MemoryTransport();
    const provider = new SilentProvider();
    const s = new CallSession({
      transport,
      provider,
      toolRunner: new RecordingToolRunner(),
      store,
      openRecording: async () => ({ append: async () => {}, finish: async () => {}, abort: async () => {} }),
      assistant: { id: "a", name: "Ava", instructions: "", model: "m", voice: "marin", tools: [] },
      organizationId: "u",
      isTest: true,
      now: () => clock,
      connectTimeoutMs: 50,
    });
    return { s, transport, provider, store };
  }

  it("audio the transport refuses under backpressure is neither recorded nor counted as heard", async () => {
    const { s, transport, provider } = session();
    transport.refuseAudio = true;
    s.start();
    provider.isOpen = true;
    const emit = (event: Record<string, unknown>) => provider.handlers!.event(event as never);
    provider.handlers!.open();
    emit({ type: "session.updated", session: {} });
    emit({ type: "response.created", response: { id: "resp_1" } });
    emit({ type: "response.output_audio.delta", response_id: "resp_1", item_id: "item_1", delta: Buffer.alloc(4800).toString("base64") });
    emit({ type: "input_audio_buffer.speech_started", audio_start_ms: 0, item_id: "item_u" });
    // Nothing reached the caller: the item is cut at 0 ms, and the recording holds no assistant audio.
    expect(provider.calls.filter((c) => c === "truncate")).toHaveLength(1);
    expect(transport.clears).toBe(1);
    const outcome = await s.close("User ended call");
    expect(outcome.recording).toBeNull();
  });

  it("blocks typed text while connecting", () => {
    const { s, transport, provider } = session();
    s.start();
    expect(s.sendUserText("hello")).toBe(false);
    expect(transport.sent.at(-1)).toEqual({ type: "error", message: "WebSocket is not connected" });
    expect(provider.calls).toEqual([]);
    void s.close("User ended call");
  });

  it("gives up when the provider never gets ready", async () => {
    const { s, transport, provider, store } = session();
    s.start();
    const outcome = await s.closed;
    expect(outcome).toMatchObject({ reason: "Connection timed out", cost: 0 });
    expect(store.only().endedReason).toBe("Connection timed out");
    expect(provider.closed).toBe(true);
    expect(transport.closed?.code).toBe(1000);
    expect(transport.sent.filter((m) => m.type === "status").map((m) => m.type === "status" && m.text)).toEqual([
      "Connecting...",
      "Connection failed",
      "Connection failed",
    ]);
  });

  it("closes the call when the record cannot be inserted", async () => {
    const store = new MemoryCallStore();
    store.failInsert = true;
    const { s, transport } = session(store);
    s.start();
    const outcome = await s.closed;
    expect(outcome.callId).toBeNull();
    expect(transport.sent).toContainEqual({ type: "error", message: "Failed to create call record in database" });
  });

  it("a socket error after open: Connection error, then the drop ends the call with that error", async () => {
    const { s, transport, provider, store } = session();
    s.start();
    provider.isOpen = true;
    provider.handlers!.open();
    provider.handlers!.event({ type: "session.updated", session: {} });
    expect(s.state).toBe("active");
    expect(provider.calls).toEqual(["updateSession"]); // no first message configured
    provider.handlers!.error("read ECONNRESET", false);
    provider.handlers!.close(1006, "");
    const outcome = await s.closed;
    expect(outcome).toMatchObject({ reason: "read ECONNRESET", cost: 0.05 });
    const texts = transport.sent.flatMap((m) => (m.type === "status" ? [m.text] : []));
    expect(texts).toEqual(["Connecting...", "Connected to Ava", "Connection error", "Disconnected (1006) - ", "Disconnected (1006) - "]);
    expect(store.only().logs.transcript.map((e) => e.content)).toEqual(["Connection error: read ECONNRESET"]);
  });

  it("can be closed before it starts", async () => {
    const { s, store } = session();
    const outcome = await s.close("Server shutting down");
    expect(outcome).toMatchObject({ callId: null, reason: "Server shutting down", cost: 0 });
    expect(store.records.size).toBe(0);
  });
});
