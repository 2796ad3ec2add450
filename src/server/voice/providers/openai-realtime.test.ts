import WebSocket from "ws";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { startFakeRealtime, type FakeRealtime } from "../../../../tests/fakes/fake-realtime.ts";
import { recordProviderHandlers } from "../../../../tests/fakes/provider-handlers.ts";
import { specBrowserSession } from "../../../../tests/fakes/realtime-session-check.ts";
import { MAX_BUFFERED_AUDIO_BYTES, OpenAIRealtimeProvider, realtimeUrl } from "./openai-realtime.ts";
import { buildSessionConfig, parseServerEvent } from "./realtime-protocol.ts";

const config = buildSessionConfig({
  model: "gpt-realtime-2.1",
  instructions: "Be brief.",
  voice: "marin",
  format: "audio/pcm",
  tools: [{ type: "function", name: "Get_Weather", description: "Weather", parameters: { type: "object", properties: { city: { type: "string" } } } }],
});

describe("realtimeUrl", () => {
  it("turns the REST base into the realtime socket URL", () => {
    expect(realtimeUrl("https://api.openai.com/v1", "gpt-realtime-2.1")).toBe("wss://api.openai.com/v1/realtime?model=gpt-realtime-2.1");
    expect(realtimeUrl("http://127.0.0.1:9000/v1/", "m")).toBe("ws://127.0.0.1:9000/v1/realtime?model=m");
  });
});

describe("buildSessionConfig", () => {
  it("is the GA shape with the spec's constants and no temperature", () => {
    expect(config).toEqual(specBrowserSession("Be brief.", config.tools));
    expect(JSON.stringify(config)).not.toContain("temperature");
    const phone = buildSessionConfig({ model: "m", instructions: "", voice: "cedar", format: "audio/pcmu", tools: [] });
    expect(phone.audio.input.format).toEqual({ type: "audio/pcmu" });
    expect(phone.audio.output.format).toEqual({ type: "audio/pcmu" });
  });
});

describe("parseServerEvent", () => {
  it("parses handled events, ignores others, flags broken ones", () => {
    expect(parseServerEvent('{"type":"response.created","response":{"id":"r1"}}')).toMatchObject({ kind: "event", event: { type: "response.created" } });
    expect(parseServerEvent('{"type":"rate_limits.updated","rate_limits":[]}')).toEqual({ kind: "ignored", type: "rate_limits.updated" });
    expect(parseServerEvent('{"type":"response.output_audio.delta"}').kind).toBe("invalid");
    // Audio deltas take a hand-checked path: the same event, the same refusals.
    expect(parseServerEvent('{"type":"response.output_audio.delta","response_id":"r1","item_id":"i1","output_index":0,"delta":"AAA="}')).toEqual({
      kind: "event",
      event: { type: "response.output_audio.delta", response_id: "r1", item_id: "i1", output_index: 0, delta: "AAA=" },
    });
    expect(parseServerEvent('{"type":"response.output_audio.delta","response_id":"r1","item_id":"i1","delta":7}')).toEqual({ kind: "invalid", reason: "response.output_audio.delta: delta expected string" });
    // So do transcript deltas; a broken one gets the schema's reason.
    expect(parseServerEvent('{"type":"response.output_audio_transcript.delta","response_id":"r1","item_id":"i1","delta":"Hel"}')).toEqual({
      kind: "event",
      event: { type: "response.output_audio_transcript.delta", response_id: "r1", item_id: "i1", delta: "Hel" },
    });
    expect(parseServerEvent('{"type":"response.output_audio_transcript.delta","delta":"Hel"}')).toMatchObject({ kind: "invalid", reason: expect.stringContaining("item_id") });
    expect(parseServerEvent("nope").kind).toBe("invalid");
  });
});

describe("OpenAIRealtimeProvider against the fake GA server", () => {
  let fake: FakeRealtime;
  beforeEach(async () => {
    fake = await startFakeRealtime({ apiKey: "sk-right" });
  });
  afterEach(async () => {
    await fake.close();
  });

  it("connects with the bearer key and no beta header, and its session.update is accepted", async () => {
    const r = recordProviderHandlers();
    const provider = new OpenAIRealtimeProvider({ baseUrl: fake.baseUrl, apiKey: "sk-right", model: "gpt-realtime-2.1" });
    provider.connect(r.handlers);
    await r.until(r.opened);
    const conn = await fake.connection();
    expect(conn.headers["authorization"]).toBe("Bearer sk-right");
    expect(conn.headers["openai-beta"]).toBeUndefined();
    expect(conn.headers["sec-websocket-protocol"]).toBeUndefined();
    expect(conn.model).toBe("gpt-realtime-2.1");
    expect(provider.updateSession(config)).toBe(true);
    await r.until(() => r.events.some((e) => e.type === "session.updated"));
    expect(conn.errorCodes()).toEqual([]);
    expect(r.events[0]?.type).toBe("session.created");
    provider.close();
    expect(r.closes).toEqual([[1000, "Call ended"]]);
    expect(provider.updateSession(config)).toBe(false);
  });

  it("reports a refused key as a failure before open, with the provider's message", async () => {
    const r = recordProviderHandlers();
    const provider = new OpenAIRealtimeProvider({ baseUrl: fake.baseUrl, apiKey: "sk-wrong", model: "m" });
    provider.connect(r.handlers);
    await r.until(() => r.closes.length > 0);
    expect(r.errors).toEqual([["Unexpected server response: 401: Incorrect API key provided: sk-wro***.", true]]);
    expect(r.closes).toHaveLength(1);
    expect(fake.rejected.map((x) => x.status)).toEqual([401]);
    expect(fake.connections).toHaveLength(0);
  });

  it("reports an unreachable provider as a failure before open", async () => {
    const r = recordProviderHandlers();
    const provider = new OpenAIRealtimeProvider({ baseUrl: "http://127.0.0.1:9/v1", apiKey: "k", model: "m" });
    provider.connect(r.handlers);
    await r.until(() => r.closes.length > 0);
    expect(r.errors[0]?.[1]).toBe(true);
    expect(r.errors[0]?.[0]).toMatch(/ECONNREFUSED/);
  });
});

describe("the fake GA server", () => {
  let fake: FakeRealtime;
  beforeEach(async () => {
    fake = await startFakeRealtime({ apiKey: "sk-right", script: { replies: [{ say: "A long reply.", audioMs: 1000 }] } });
  });
  afterEach(async () => {
    await fake.close();
  });

  async function raw(options: { headers?: Record<string, string>; protocols?: string[] } = {}) {
    const ws = new WebSocket(`${fake.baseUrl.replace("http", "ws")}/realtime?model=m`, options.protocols ?? [], {
      headers: { Authorization: "Bearer sk-right", ...options.headers },
    });
    const received: Array<Record<string, unknown>> = [];
    const closed = new Promise<[number, string]>((resolve) => ws.on("close", (code, reason) => resolve([code, reason.toString()])));
    ws.on("message", (data) => received.push(JSON.parse(data.toString()) as Record<string, unknown>));
    ws.on("error", () => {});
    await new Promise<void>((resolve) => ws.once("open", () => resolve()));
    return { ws, received, closed, send: (e: object) => ws.send(JSON.stringify(e)) };
  }

  it("refuses the beta header and the beta subprotocol with beta_api_shape_disabled and 4000", async () => {
    for (const options of [{ headers: { "OpenAI-Beta": "realtime=v1" } }, { protocols: ["realtime", "openai-beta.realtime-v1"] }]) {
      const client = await raw(options);
      expect((await client.closed)[0]).toBe(4000);
      expect(client.received[0]).toMatchObject({ type: "error", error: { code: "beta_api_shape_disabled" } });
    }
    expect(fake.connections).toHaveLength(0);
  });

  it("rejects beta-shaped or incomplete session.update with an error event", async () => {
    const client = await raw();
    const conn = await fake.connection();
    client.send({ type: "session.update", event_id: "e1", session: { type: "realtime", modalities: ["text", "audio"] } });
    client.send({ type: "session.update", event_id: "e2", session: { type: "realtime", temperature: 0.8 } });
    client.send({ type: "session.update", event_id: "e3", session: { instructions: "x" } });
    client.send({ type: "session.update", event_id: "e4", session: { ...config, audio: { input: { format: { type: "pcm16" } } } } });
    client.send({ type: "session.update", event_id: "e5", session: { ...config, tools: [{ name: "Get Weather", parameters: {} }] } });
    await conn.until(() => conn.sentOf("error").length === 5);
    expect(conn.sentOf("error").map((e) => (e["error"] as { code: string; event_id: string }).code)).toEqual([
      "unknown_parameter",
      "unknown_parameter",
      "missing_required_parameter",
      "invalid_value",
      "invalid_value",
    ]);
    expect(conn.sentOf("session.updated")).toHaveLength(0);
    client.ws.close();
  });

  it("enforces one active response, honours cancel and validates truncate", async () => {
    const client = await raw();
    const conn = await fake.connection();
    client.send({ type: "response.create" });
    client.send({ type: "response.create", event_id: "second" });
    await conn.until(() => conn.errorCodes().length === 1);
    expect(conn.sentOf("error")[0]).toMatchObject({ error: { code: "conversation_already_has_active_response", event_id: "second" } });
    client.send({ type: "response.cancel" });
    await conn.waitForSent("response.done");
    expect(conn.sentOf("response.done")[0]).toMatchObject({ response: { status: "cancelled", status_details: { reason: "client_cancelled" } } });
    const item = conn.sentOf("response.output_item.added")[0]!["item"] as { id: string };
    client.send({ type: "conversation.item.truncate", item_id: item.id, content_index: 0, audio_end_ms: 60_000 });
    await conn.until(() => conn.errorCodes().length === 2);
    client.send({ type: "conversation.item.truncate", item_id: item.id, content_index: 0, audio_end_ms: 0 });
    await conn.waitForSent("conversation.item.truncated");
    client.send({ type: "response.cancel" });
    await conn.until(() => conn.errorCodes().length === 3);
    expect(conn.errorCodes().slice(1)).toEqual(["invalid_value", "response_cancel_not_active"]);
    client.ws.close();
  });
});

describe("outbound audio backpressure", () => {
  let fake: FakeRealtime;
  beforeEach(async () => {
    fake = await startFakeRealtime({ apiKey: "sk-bp" });
  });
  afterEach(async () => {
    await fake.close();
  });

  /** A provider connected to the fake, and the fake's side of the socket. */
  async function connected() {
    const provider = new OpenAIRealtimeProvider({ baseUrl: fake.baseUrl, apiKey: "sk-bp", model: "gpt-realtime-2.1", pingIntervalMs: 0 });
    const r = recordProviderHandlers();
    provider.connect(r.handlers);
    await r.until(() => r.opened());
    return { provider, conn: await fake.connection() };
  }

  it("appends caller audio as it came: base64 text as it is, anything else quoted so the JSON holds", async () => {
    const { provider, conn } = await connected();
    provider.appendAudio("//7+/Q==");
    provider.appendAudio('AA"}, {"type":"response.create\\');
    provider.appendAudio(new Uint8Array([0xff, 0xfe]));
    expect((await conn.waitFor("input_audio_buffer.append", 0))["audio"]).toBe("//7+/Q==");
    expect((await conn.waitFor("input_audio_buffer.append", 1))["audio"]).toBe('AA"}, {"type":"response.create\\');
    expect((await conn.waitFor("input_audio_buffer.append", 2))["audio"]).toBe("//4=");
    expect(conn.receivedOf("response.create")).toEqual([]);
    provider.close();
  });

  it("drops caller audio instead of queueing it without bound when the provider stops reading", async () => {
    const { provider, conn } = await connected();
    conn.stall();
    // 2,000 frames of 4096 samples: about 5.7 minutes of audio, 22 MB as base64 JSON.
    const frame = new Uint8Array(8192).fill(7);
    let accepted = 0;
    for (let i = 0; i < 2000; i += 1) {
      if (provider.appendAudio(frame)) accepted += 1;
      if (i % 50 === 0) await new Promise((resolve) => setImmediate(resolve));
    }
    expect(provider.droppedAudioFrames).toBeGreaterThan(0);
    expect(accepted + provider.droppedAudioFrames).toBe(2000);
    // What waits in our socket stays near the limit (plus the one frame that crossed it).
    expect(provider.bufferedAmount).toBeLessThanOrEqual(MAX_BUFFERED_AUDIO_BYTES + 12_000);
    // Control events still go out (they are small and must not be lost).
    expect(provider.createResponse()).toBe(true);
    provider.close();
  });
});
