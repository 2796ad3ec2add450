import { createServer, type Server } from "node:http";
import WebSocket, { WebSocketServer } from "ws";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startFakeRealtime, type FakeRealtime } from "../../../tests/fakes/fake-realtime.ts";
import { mulawToPcm16, pcm16ToMulaw, WAV_HEADER_BYTES } from "./audio.ts";
import { OpenAIRealtimeProvider } from "./providers/openai-realtime.ts";
import { parseServerEvent } from "./providers/realtime-protocol.ts";
import { CallRecorder } from "./recorder.ts";
import type { TransportHandlers } from "./seams.ts";
import { TwilioTransport } from "./transports/twilio.ts";

/**
 * Phone audio travels as the base64 text it came in: Twilio's `payload` reaches the provider's
 * `append` and the provider's `delta` reaches Twilio's `media` unchanged. Shown with base64
 * whose unused trailing bits are set — any decode and re-encode on the way would clear them.
 */
const FRAME = Buffer.from(pcm16ToMulaw(Int16Array.from({ length: 160 }, (_, i) => Math.round(8000 * Math.sin(i / 5)))));
/** FRAME's base64 (160 bytes: two padding characters) with the last data character's spare bits set. */
function unusualBase64(bytes: Buffer): string {
  const text = bytes.toString("base64");
  const alphabet = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
  const at = text.indexOf("=") - 1;
  const changed = text.slice(0, at) + alphabet[alphabet.indexOf(text[at]!) | 0b1111]! + text.slice(at + 1);
  expect(Buffer.from(changed, "base64").equals(bytes)).toBe(true);
  expect(changed).not.toBe(text);
  return changed;
}
const PAYLOAD = unusualBase64(FRAME);

let server: Server;
let wss: WebSocketServer;
let fake: FakeRealtime;
beforeAll(async () => {
  server = createServer();
  wss = new WebSocketServer({ server });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  fake = await startFakeRealtime({ apiKey: "sk-passthrough" });
});
afterAll(async () => {
  for (const client of wss.clients) client.terminate();
  await new Promise<void>((resolve) => wss.close(() => resolve()));
  await new Promise<void>((resolve) => server.close(() => resolve()));
  await fake.close();
});

async function until(check: () => boolean): Promise<void> {
  for (let i = 0; i < 300 && !check(); i += 1) await new Promise((r) => setTimeout(r, 10));
  expect(check()).toBe(true);
}

describe("phone audio passes through as base64", () => {
  it("hands the caller's payload on as it came, and sends the provider's delta to Twilio as it came", async () => {
    const heard: unknown[] = [];
    const played: Array<[string, number]> = [];
    const handlers: TransportHandlers = { audio: (chunk) => heard.push(chunk), userText() {}, playback: (item, ms) => played.push([item, ms]), end() {}, disconnect() {} };
    const transportReady = new Promise<TwilioTransport>((resolve) => wss.once("connection", (ws) => resolve(new TwilioTransport(ws, { heartbeatMs: 0 }))));
    const { port } = server.address() as { port: number };
    const twilio = new WebSocket(`ws://127.0.0.1:${port}`);
    const fromServer: Array<{ event: string; media?: { payload: string }; mark?: { name: string } }> = [];
    twilio.on("message", (data) => fromServer.push(JSON.parse(data.toString())));
    await new Promise((resolve) => twilio.once("open", resolve));
    const transport = await transportReady;
    twilio.send(JSON.stringify({ event: "start", start: { streamSid: "MZ1", callSid: "CA1", customParameters: {} } }));
    await transport.started;
    transport.start(handlers);

    twilio.send(JSON.stringify({ event: "media", media: { track: "inbound", payload: PAYLOAD } }));
    await until(() => heard.length === 1);
    expect(heard).toEqual([PAYLOAD]);

    expect(transport.sendAudio("item_1", PAYLOAD)).toBe(true);
    await until(() => fromServer.length === 1);
    expect(fromServer[0]).toEqual({ event: "media", streamSid: "MZ1", media: { payload: PAYLOAD } });
    // The item's audio is done: its end is marked. The mark says how much of the item this was,
    // counted from the text without decoding it: 20 ms.
    transport.audioDone("item_1");
    await until(() => fromServer.length === 2);
    twilio.send(JSON.stringify({ event: "mark", mark: { name: fromServer[1]!.mark!.name } }));
    await until(() => played.length === 1);
    expect(played).toEqual([["item_1", 20]]);
    transport.close();
    twilio.terminate();
  });

  it("marks the audio every 40 ms of it, at an item's end and before another item's audio", async () => {
    const transportReady = new Promise<TwilioTransport>((resolve) => wss.once("connection", (ws) => resolve(new TwilioTransport(ws, { heartbeatMs: 0 }))));
    const { port } = server.address() as { port: number };
    const twilio = new WebSocket(`ws://127.0.0.1:${port}`);
    const fromServer: string[] = [];
    twilio.on("message", (data) => {
      const message = JSON.parse(data.toString()) as { event: string; mark?: { name: string } };
      fromServer.push(message.event);
      // Played at once: the echo comes back.
      if (message.mark) twilio.send(JSON.stringify({ event: "mark", mark: message.mark }));
    });
    await new Promise((resolve) => twilio.once("open", resolve));
    const transport = await transportReady;
    const played: Array<[string, number]> = [];
    twilio.send(JSON.stringify({ event: "start", start: { streamSid: "MZ1", callSid: "CA1", customParameters: {} } }));
    await transport.started;
    transport.start({ audio() {}, userText() {}, playback: (item, ms) => played.push([item, ms]), end() {}, disconnect() {} });

    for (let i = 0; i < 5; i += 1) transport.sendAudio("item_1", PAYLOAD);
    transport.sendAudio("item_2", PAYLOAD);
    transport.audioDone("item_2");
    await until(() => played.length === 4);
    expect(fromServer).toEqual(["media", "media", "mark", "media", "media", "mark", "media", "mark", "media", "mark"]);
    expect(played).toEqual([
      ["item_1", 40],
      ["item_1", 80],
      ["item_1", 100],
      ["item_2", 20],
    ]);
    transport.close();
    twilio.terminate();
  });

  it("appends base64 text to the provider as it is", async () => {
    const provider = new OpenAIRealtimeProvider({ baseUrl: fake.baseUrl, apiKey: "sk-passthrough", model: "gpt-realtime-2.1" });
    let open = false;
    provider.connect({ open: () => (open = true), event() {}, error() {}, close() {} });
    await until(() => open);
    const connection = await fake.connection(fake.connections.length - 1);
    expect(provider.appendAudio(PAYLOAD)).toBe(true);
    const append = await connection.waitFor("input_audio_buffer.append");
    expect(append["audio"]).toBe(PAYLOAD);
    provider.close();
  });

  it("refuses an audio delta that is not base64 text (it is passed into Twilio's JSON unescaped)", () => {
    const delta = (text: string) => parseServerEvent(JSON.stringify({ type: "response.output_audio.delta", response_id: "r", item_id: "i", output_index: 0, content_index: 0, delta: text }));
    expect(delta(PAYLOAD).kind).toBe("event");
    expect(delta(`AAAA"},"event":"clear`)).toEqual({ kind: "invalid", reason: "response.output_audio.delta: delta is not base64" });
  });
});

describe("the recording of a phone call", () => {
  it("is the same from base64 text, decoded when handed over, as from samples, cuts and slices included", () => {
    const frames = Array.from({ length: 400 }, (_, n) => Buffer.from(pcm16ToMulaw(Int16Array.from({ length: 160 }, (_, i) => ((n * 37 + i * 11) % 2000) - 1000))));
    const fromSamples = new CallRecorder(8000);
    const fromText = new CallRecorder(8000);
    const parts: Buffer[] = [];
    frames.forEach((frame, n) => {
      const ms = (n + 1) * 20;
      fromSamples.addCaller(mulawToPcm16(frame), ms);
      fromText.addCaller(frame.toString("base64"), ms);
      if (n >= 50 && n < 300) {
        fromSamples.addAssistant(mulawToPcm16(frame), ms, `item-${Math.floor(n / 60)}`);
        fromText.addAssistant(frame.toString("base64"), ms, `item-${Math.floor(n / 60)}`);
      }
      if (n === 100) [fromSamples, fromText].forEach((rec) => rec.cutAssistantItem("item-1", 333));
      // Handed over in slices a second behind, so a cut may fall in a half-taken frame.
      const part = fromText.take(fromText.positionOf(ms - 1_000) + 37);
      if (part) parts.push(part);
    });
    parts.push(fromText.take(fromText.frames)!);
    expect(Buffer.concat(parts).equals(fromSamples.toWav().subarray(WAV_HEADER_BYTES))).toBe(true);
  });
});
