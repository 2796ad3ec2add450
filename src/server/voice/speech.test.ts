/**
 * Speech for a phone in the assistant's voice (a SIP transfer's briefing), against local fakes of
 * the two services on real sockets: OpenAI's speech endpoint (24 kHz PCM, brought down to µ-law
 * 8 kHz here) and ElevenLabs' (µ-law 8 kHz asked for and passed on). What a listener notices:
 * the speech's pitch and length survive the conversion; a refusal says what the service said.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startFakeElevenLabs, type FakeElevenLabs } from "../../../tests/fakes/fake-elevenlabs.ts";
import { serveSpeech, SPEECH_TONE_HZ } from "../../../tests/fakes/briefing-speech.ts";
import { startFakeRealtime, type FakeRealtime } from "../../../tests/fakes/fake-realtime.ts";
import { toneShare } from "../../../tests/tone-share.ts";
import { mulawToPcm16 } from "./audio.ts";
import { downsample24kTo8k, speakMulaw, SpeechFailed } from "./speech.ts";

let openai: FakeRealtime;
let speech: ReturnType<typeof serveSpeech>;
let eleven: FakeElevenLabs;

beforeAll(async () => {
  openai = await startFakeRealtime({ apiKey: "sk-speech" });
  speech = serveSpeech(openai, { msPerWord: 200 });
  eleven = await startFakeElevenLabs({ apiKey: "xi-speech" });
});
afterAll(async () => {
  await openai.close();
  await eleven.close();
});

const signal = () => new AbortController().signal;

describe("OpenAI's voice", () => {
  it("speaks the text in the assistant's voice as µ-law 8 kHz: the same pitch, the same length", async () => {
    const audio = await speakMulaw({ kind: "openai", baseUrl: openai.baseUrl, apiKey: openai.apiKey, voice: "marin" }, "A caller asks about a refund.", signal());
    expect(speech.requests.at(-1)).toEqual({ model: "gpt-4o-mini-tts", voice: "marin", input: "A caller asks about a refund.", responseFormat: "pcm" });
    // Six words of 200 ms: 1.2 s at 8 bytes a millisecond.
    expect(audio.length).toBe(9600);
    expect(toneShare(mulawToPcm16(audio), 8000, SPEECH_TONE_HZ)).toBeGreaterThan(0.9);
  });

  it("a refused request says what the service answered", async () => {
    const refused = speakMulaw({ kind: "openai", baseUrl: openai.baseUrl, apiKey: "sk-wrong", voice: "marin" }, "Hello.", signal());
    await expect(refused).rejects.toThrow(SpeechFailed);
    await expect(refused).rejects.toThrow("the speech service answered 401: Incorrect API key provided.");
  });
});

it("ElevenLabs' voice is asked for µ-law 8 kHz and passed on as it comes", async () => {
  const audio = await speakMulaw({ kind: "elevenlabs", baseUrl: eleven.baseUrl, apiKey: eleven.apiKey, voice: "voice-1", model: null }, "Two words.", signal());
  expect(eleven.requests.at(-1)).toMatchObject({ voice: "voice-1", outputFormat: "ulaw_8000", text: "Two words." });
  expect(audio.length).toBe(2 * eleven.options.msPerWord * 8);
  expect(toneShare(mulawToPcm16(audio), 8000, 440)).toBeGreaterThan(0.9);
});

it("bringing 24 kHz down to 8 kHz keeps what a phone carries and removes what would fold back into it", () => {
  const sine = (hz: number) => Int16Array.from({ length: 24_000 }, (_, i) => Math.round(10_000 * Math.sin((2 * Math.PI * hz * i) / 24_000)));
  const rms = (s: Int16Array) => Math.sqrt(s.reduce((a, x) => a + x * x, 0) / s.length);
  const kept = downsample24kTo8k(sine(1000));
  expect(kept.length).toBe(8000);
  expect(rms(kept)).toBeGreaterThan(0.9 * rms(sine(1000)));
  expect(toneShare(kept, 8000, 1000)).toBeGreaterThan(0.95);
  // 7 kHz would fold back to 1 kHz without the filter.
  expect(rms(downsample24kTo8k(sine(7000)))).toBeLessThan(0.05 * rms(sine(7000)));
});
