/**
 * A SIP call carried by the call engine: baresip calls, we answer, and a CallSession with the
 * fake Realtime provider greets the caller over RTP. What the caller notices: the greeting is
 * heard, and hanging up ends the call and its record.
 */
import { afterEach, beforeEach, expect, it } from "vitest";
import { startBaresip, type Baresip } from "../../../../tests/fakes/baresip.ts";
import { startFakeRealtime, type FakeRealtime } from "../../../../tests/fakes/fake-realtime.ts";
import { MemoryCallStore, memoryRecordings } from "../../../../tests/fakes/realtime-call-store.ts";
import { defaultAssistant } from "../../../../tests/fakes/realtime-harness.ts";
import { RecordingToolRunner } from "../../../../tests/fakes/realtime-tool-runner.ts";
import { toneShare } from "../../../../tests/tone-share.ts";
import { PHONE_END_REASONS } from "../../../shared/calls.ts";
import { CallSession } from "../../voice/call-session.ts";
import { OpenAIRealtimeProvider } from "../../voice/providers/openai-realtime.ts";
import { SipCallTransport } from "./call-transport.ts";
import { SipEndpoint } from "./endpoint.ts";

let fake: FakeRealtime;
let endpoint: SipEndpoint;
let phone: Baresip;
const store = new MemoryCallStore();
const sessions: CallSession[] = [];

beforeEach(async () => {
  fake = await startFakeRealtime({ apiKey: "sk-test" });
  endpoint = await SipEndpoint.start({ host: "127.0.0.1", port: 0, rtp: { ports: { min: 44000, max: 45999 } } });
  endpoint.on("call", async (call) => {
    call.ring();
    await call.answer();
    if (call.state !== "confirmed") return;
    const session = new CallSession({
      transport: new SipCallTransport(call),
      provider: new OpenAIRealtimeProvider({ baseUrl: fake.baseUrl, apiKey: fake.apiKey, model: defaultAssistant.model, pingIntervalMs: 0 }),
      toolRunner: new RecordingToolRunner(),
      store,
      openRecording: memoryRecordings().open,
      assistant: defaultAssistant,
      organizationId: "org_1",
      isTest: true,
    });
    sessions.push(session);
    session.start();
  });
  phone = await startBaresip();
});

afterEach(async () => {
  await Promise.all(sessions.splice(0).map((s) => s.close("Server shutting down")));
  await phone.stop();
  await endpoint.close();
  await fake.close();
});

it("greets a SIP caller through the call engine, and ends the call when the caller hangs up", async () => {
  phone.command("dial", `sip:agent@127.0.0.1:${endpoint.port}`);
  await phone.event("CALL_ESTABLISHED");
  // The fake provider's greeting is a 440 Hz tone; give it time to be spoken and heard.
  await new Promise((r) => setTimeout(r, 1500));
  phone.command("hangup");
  const end = Date.now() + 5000;
  const finished = () => [...store.records.values()].find((r) => r.endedReason);
  while (!finished() && Date.now() < end) await new Promise((r) => setTimeout(r, 50));
  expect(finished()?.endedReason).toBe(PHONE_END_REASONS.callerHungUp);

  const heard = (await phone.stop())!;
  // The greeting: a stretch of 440 Hz among what baresip decoded from our RTP.
  const window = heard.sampleRate / 5;
  let best = 0;
  for (let at = 0; at + window <= heard.samples.length; at += window) best = Math.max(best, toneShare(heard.samples.subarray(at, at + window), heard.sampleRate, 440));
  expect(best).toBeGreaterThan(0.8);
});

it("hands the caller's audio to the provider 40 ms at a time", async () => {
  phone.command("dial", `sip:agent@127.0.0.1:${endpoint.port}`);
  await phone.event("CALL_ESTABLISHED");
  const connection = await fake.connection();
  await connection.until(() => connection.receivedOf("input_audio_buffer.append").length >= 25, 5000, "a second of the caller's audio");
  phone.command("hangup");
  const appends = connection.receivedOf("input_audio_buffer.append").map((e) => Buffer.from(String(e["audio"]), "base64"));
  // One message per two RTP packets of 20 ms (160 bytes of µ-law each): half the socket writes.
  // (The first may hold what the caller said before the provider's session was ready.)
  expect(appends.slice(1, 25).map((audio) => audio.length)).toEqual(Array(24).fill(320));
});
