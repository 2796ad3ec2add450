import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { closeInOrder } from "../../../../tests/close.ts";
import { startFakeCartesia, type FakeCartesia } from "../../../../tests/fakes/fake-cartesia.ts";
import { startPipelineFakes, type PipelineFakes } from "../../../../tests/fakes/pipeline-fakes.ts";
import { startFakeOpenAISpeech, type FakeOpenAISpeech } from "../../../../tests/fakes/fake-openai-speech.ts";
import { startFakeOpenAITranscription, type FakeOpenAITranscription } from "../../../../tests/fakes/fake-openai-transcription.ts";
import { addProvider, dialPipeline, endedRecord, GREETING, startPipelinePhone, type PipelinePhone } from "../../../../tests/fakes/pipeline-phone.ts";
import { tone } from "../../../../tests/fakes/realtime-audio.ts";
import type { SpeechRequestRecord } from "../../../../tests/fakes/speech-tones.ts";
import { callLogsSchema } from "../../../shared/calls.ts";

/**
 * Phone calls through the pipeline on the other transcriber and voices: OpenAI's streaming
 * transcription, Cartesia's WebSocket speech and an OpenAI-compatible `/audio/speech` endpoint,
 * each a stand-in speaking its documented protocol on a real local socket.
 */

let line: PipelinePhone;
let fakes: PipelineFakes;
let transcription: FakeOpenAITranscription;
let cartesia: FakeCartesia;
let speech: FakeOpenAISpeech;

beforeAll(async () => {
  fakes = await startPipelineFakes("key");
  transcription = await startFakeOpenAITranscription({ apiKey: "sk-transcribe" });
  cartesia = await startFakeCartesia({ apiKey: "sk_car_key" });
  speech = await startFakeOpenAISpeech({ apiKey: "sk-speech" });
  line = await startPipelinePhone();
});
afterAll(() => closeInOrder(line.app.app, speech, cartesia, transcription, fakes, line.realtime));

const deepgramSlot = async () => ({ provider_id: await addProvider(line, { name: `DG ${Math.random()}`, kind: "transcriber", protocol: "deepgram", base_url: fakes.deepgram.baseUrl, api_key: "dg-key" }), model: null, language: null });
const chatSlot = async () => ({ provider_id: await addProvider(line, { name: `Groq ${Math.random()}`, kind: "model", protocol: "openai-compatible", base_url: fakes.chat.baseUrl, api_key: "gsk-key" }), model: "llama-3.3-70b" });
const elevenSlot = async () => ({ provider_id: await addProvider(line, { name: `11 ${Math.random()}`, kind: "voice", protocol: "elevenlabs", base_url: fakes.voice.baseUrl, api_key: "xi-key" }), voice: "rachel", model: null });

/** Deepgram and Chat Completions (scripted for one turn) with the voice provider `voice`. */
async function deepgramEngine(voice: Record<string, unknown>, slot: { voice: string; model: string }) {
  fakes.deepgram.script = { userSays: ["When do you open?"], speechMs: 300, finalAfterMs: 200 };
  fakes.chat.script = { replies: ["We open at nine."] };
  return { type: "pipeline", transcriber: await deepgramSlot(), model: await chatSlot(), voice: { provider_id: await addProvider(line, voice), ...slot } };
}

/**
 * A whole turn: the greeting heard, the caller's question answered in the voice — every
 * millisecond the voice made reaching the phone as µ-law at 8 kHz (8 bytes a millisecond) — and
 * the record's transcript.
 */
async function oneTurn(to: string, engine: Record<string, unknown>, voiced: SpeechRequestRecord[]) {
  const { call } = await dialPipeline(line, to, engine);
  await call.until(() => voiced.some((r) => r.text === GREETING && r.sentMs === r.audioMs), "greeting voiced");
  await call.speak(tone("audio/pcmu", 700), 700);
  const sentMs = () => voiced.reduce((a, r) => a + r.sentMs, 0);
  const answered = () => voiced.some((r) => r.text === "We open at nine." && r.sentMs === r.audioMs);
  await call.until(() => answered() && call.receivedBytes === sentMs() * 8, "the answer's audio all on the phone", 10_000);
  await call.hangUp();
  const row = await endedRecord(line, call.callSid);
  expect(row.endedReason).toBe("Caller hung up");
  const logs = callLogsSchema.parse(row.logs);
  expect(logs.transcript.map((e) => [e.type, e.content])).toEqual(
    expect.arrayContaining([
      ["assistant", GREETING],
      ["user", "When do you open?"],
      ["assistant", "We open at nine."],
    ]),
  );
}

describe("a phone call through the pipeline on each transcriber and voice", () => {
  it("hears the caller through OpenAI's streaming transcription, in µ-law at 8 kHz", async () => {
    transcription.script = { userSays: ["When do you open?"], speechMs: 300, finalAfterMs: 200 };
    fakes.chat.script = { replies: ["We open at nine."] };
    const engine = {
      type: "pipeline",
      transcriber: { provider_id: await addProvider(line, { name: "OpenAI ears", kind: "transcriber", protocol: "openai-transcription", base_url: transcription.baseUrl, api_key: "sk-transcribe" }), model: "gpt-4o-transcribe", language: "en" },
      model: await chatSlot(),
      voice: await elevenSlot(),
    };
    await oneTurn("+15550181", engine, fakes.voice.requests);
    const session = transcription.connections.at(-1)!.session;
    expect(session).toMatchObject({ type: "transcription", audio: { input: { format: { type: "audio/pcmu" }, transcription: { model: "gpt-4o-transcribe", language: "en" } } } });
    expect(fakes.chat.requests.at(-1)!.messages.at(-1)).toEqual({ role: "user", content: "When do you open?" });
    expect(line.realtime.connections).toHaveLength(0);
  });

  it("speaks in Cartesia's voice as raw µ-law at 8 kHz, one socket for the whole call", async () => {
    const voice = { name: "Cartesia", kind: "voice", protocol: "cartesia", base_url: cartesia.baseUrl, api_key: "sk_car_key" };
    await oneTurn("+15550182", await deepgramEngine(voice, { voice: "a0e99841-voice", model: "sonic-3" }), cartesia.requests);
    expect(cartesia.requests[0]).toMatchObject({ text: GREETING, voice: "a0e99841-voice", modelId: "sonic-3", outputFormat: "pcm_mulaw", sampleRate: 8000 });
    expect(cartesia.connections).toBe(1);
  });

  it("speaks through an OpenAI-compatible /audio/speech endpoint, its 24 kHz PCM brought to the phone's 8 kHz µ-law", async () => {
    const voice = { name: "Kokoro", kind: "voice", protocol: "openai-speech", base_url: speech.baseUrl, api_key: "sk-speech" };
    await oneTurn("+15550183", await deepgramEngine(voice, { voice: "af_heart", model: "kokoro" }), speech.requests);
    expect(speech.requests[0]).toMatchObject({ text: GREETING, voice: "af_heart", modelId: "kokoro", outputFormat: "pcm" });
  });
});
