import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { closeInOrder } from "../../../../tests/close.ts";
import type { FakeDeepgram } from "../../../../tests/fakes/fake-deepgram.ts";
import { startPipelineFakes, type PipelineFakes } from "../../../../tests/fakes/pipeline-fakes.ts";
import { addProvider, dialPipeline, endedRecord, startPipelinePhone, transcriptLines, type PipelinePhone } from "../../../../tests/fakes/pipeline-phone.ts";
import { mulawSpeech } from "../../../../tests/fakes/twilio-speech.ts";
import { until } from "../../../../tests/until.ts";
import { callLogsSchema } from "../../../shared/calls.ts";

/**
 * Voice activity detection on a pipeline phone call: the real Silero model hears the caller's
 * real (espeak-ng) speech through the real app, with stand-ins for Deepgram, Chat Completions and
 * ElevenLabs. The stand-in transcriber is told what to "hear", so it can hear nothing at all.
 */

const FIRST_MESSAGE =
  "Hello, this is Ava from the shop. I can help you with orders, returns, deliveries and opening hours, and I can pass you to a colleague at any time. What would you like to do today?";

let line: PipelinePhone;
let fakes: PipelineFakes;

beforeAll(async () => {
  fakes = await startPipelineFakes("test-key");
  line = await startPipelinePhone();
});
afterAll(() => closeInOrder(line.app.app, fakes, line.realtime));

let providers = 0;
async function engine(turnEnd?: string) {
  providers += 1;
  return {
    type: "pipeline",
    transcriber: { provider_id: await addProvider(line, { name: `Deepgram ${providers}`, kind: "transcriber", protocol: "deepgram", base_url: fakes.deepgram.baseUrl, api_key: "dg-test-key" }), model: null, language: null },
    model: { provider_id: await addProvider(line, { name: `Groq ${providers}`, kind: "model", protocol: "openai-compatible", base_url: fakes.chat.baseUrl, api_key: "gsk-test-key" }), model: "llama-3.3-70b" },
    voice: { provider_id: await addProvider(line, { name: `ElevenLabs ${providers}`, kind: "voice", protocol: "elevenlabs", base_url: fakes.voice.baseUrl, api_key: "xi-test-key" }), voice: "rachel-voice-id", model: null },
    ...(turnEnd ? { turn_end: turnEnd } : {}),
  };
}

const results = (conn: FakeDeepgram["connections"][number]) => conn.sent.filter((m) => m["type"] === "Results");

describe("voice activity detection on a pipeline phone call", () => {
  it("stops the assistant's voice when the caller talks over it, though the transcriber heard no words", async () => {
    fakes.deepgram.script = {};
    const { call } = await dialPipeline(line, "+15550181", await engine(), { first_message: FIRST_MESSAGE });
    const firstMessageMs = FIRST_MESSAGE.split(" ").length * fakes.voice.options.msPerWord;
    await call.until(() => call.heardMs >= 800, "the first message playing");

    const speech = mulawSpeech("Sorry, can I stop you there?");
    void call.speak(speech, speech.length / 8 + 1000);
    await call.until(() => call.clears > 0, "the phone's buffer cleared", 10_000);
    // Cut short: the caller heard less than the whole first message, and the voice was stopped.
    expect(call.heardAtClear[0]).toBeLessThan(firstMessageMs);
    expect(results(fakes.deepgram.connections.at(-1)!)).toEqual([]);
    await call.hangUp();

    const row = await endedRecord(line, call.callSid);
    const entries = callLogsSchema.parse(row.logs).transcript;
    const first = entries.find((e) => e.type === "assistant")!;
    expect(first.interruptedAtMs).toBeDefined();
    // No words, no turn: the model was never asked.
    expect(transcriptLines(row).filter(([type]) => type === "user")).toEqual([]);
    expect(fakes.chat.requests).toHaveLength(0);
  });

  it("ends the caller's turn on the VAD's silence when the assistant says so, with the words heard so far", async () => {
    // The stand-in transcriber sends its interim words, and never a final result.
    fakes.deepgram.script = { userSays: ["Where is my order?"], speechMs: 300, finalAfterMs: 600_000 };
    fakes.chat.script = { replies: ["It left on Monday."] };
    const { call, assistantId } = await dialPipeline(line, "+15550182", await engine("vad"));
    const saved = await line.app.app.inject({ method: "GET", url: `/api/assistants/${assistantId}`, headers: { cookie: line.owner.cookie } });
    expect(saved.json().voice_engine.turn_end).toBe("vad");
    await call.until(() => call.heardMs >= 800, "the greeting heard");

    const speech = mulawSpeech("Where is my order?");
    await call.speak(speech, speech.length / 8 + 1500);
    await until("the model asked", async () => fakes.chat.requests.length, (n) => n >= 1);
    expect(fakes.chat.requests[0]!.messages.at(-1)).toEqual({ role: "user", content: "Where" });
    expect(results(fakes.deepgram.connections.at(-1)!).some((m) => m["is_final"] === true)).toBe(false);
    await until("the reply voiced", async () => fakes.voice.requests.some((r) => r.text === "It left on Monday."), Boolean);
    await call.hangUp();
    const row = await endedRecord(line, call.callSid);
    expect(transcriptLines(row)).toEqual(expect.arrayContaining([["user", "Where"], ["assistant", "It left on Monday."]]));
  });

  it("answers 400 for a turn end it does not know", async () => {
    const res = await line.app.app.inject({ method: "POST", url: "/api/assistants", headers: { cookie: line.owner.cookie }, payload: { name: "Odd", voice_engine: await engine("whenever") } });
    expect(res.statusCode).toBe(400);
    expect(res.json().error.message).toContain("voice_engine.turn_end must be transcriber or vad");
  });
});
