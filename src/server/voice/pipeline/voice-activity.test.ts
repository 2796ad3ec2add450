import { describe, expect, it } from "vitest";
import { mulawSpeech } from "../../../../tests/fakes/twilio-speech.ts";
import { mulawToPcm16, pcm16ToBytes, pcm16ToMulaw, upsample8to24, type CallAudioFormat } from "../audio.ts";
import { VoiceActivity } from "./voice-activity.ts";

/**
 * The real Silero model on real speech (espeak-ng through sox, as a phone sends it): where speech
 * starts and stops, and that a short noise does not count as speech.
 */

const SILENCE_MS = 1000;
const silence = (ms: number) => new Int16Array(ms * 8);

/** A 100 ms burst of loud white noise (a knock or a cough on the line), seeded so it is the same each run. */
function noiseBurst(ms: number): Int16Array {
  let seed = 42;
  return Int16Array.from({ length: ms * 8 }, () => {
    seed = (seed * 1_103_515_245 + 12_345) % 2 ** 31;
    return Math.round((seed / 2 ** 31 - 0.5) * 20_000);
  });
}

function concat(parts: Int16Array[]): Int16Array {
  const out = new Int16Array(parts.reduce((n, p) => n + p.length, 0));
  let at = 0;
  for (const p of parts) {
    out.set(p, at);
    at += p.length;
  }
  return out;
}

/** Runs 8 kHz samples through the detector in 20 ms frames of the call's format, as a phone line or a browser sends them. */
async function detect(samples: Int16Array, format: CallAudioFormat): Promise<Array<[string, number]>> {
  const events: Array<[string, number]> = [];
  let failure: unknown = null;
  const vad = new VoiceActivity({ format }, { speechStarted: (ms) => events.push(["start", ms]), speechStopped: (ms) => events.push(["stop", ms]), failed: (err) => (failure = err) });
  for (let i = 0; i < samples.length; i += 160) {
    const frame = samples.subarray(i, i + 160);
    vad.push(format === "audio/pcmu" ? pcm16ToMulaw(frame) : pcm16ToBytes(upsample8to24(frame)));
  }
  await vad.idle();
  expect(failure).toBeNull();
  return events;
}

/** Several calls' audio at once, frame by frame in turn as their lines deliver it: each call's events. */
async function detectTogether(calls: Int16Array[]): Promise<Array<Array<[string, number]>>> {
  const events = calls.map((): Array<[string, number]> => []);
  const vads = calls.map((_, i) => new VoiceActivity({ format: "audio/pcmu" }, { speechStarted: (ms) => events[i]!.push(["start", ms]), speechStopped: (ms) => events[i]!.push(["stop", ms]) }));
  const longest = Math.max(...calls.map((c) => c.length));
  for (let at = 0; at < longest; at += 160) calls.forEach((c, i) => at < c.length && vads[i]!.push(pcm16ToMulaw(c.subarray(at, at + 160))));
  await Promise.all(vads.map((v) => v.idle()));
  return events;
}

describe("voice activity (Silero VAD)", () => {
  const sentence = mulawToPcm16(mulawSpeech("Hello, I would like to check on my order please."));
  const speechMs = sentence.length / 8;
  const call = concat([silence(SILENCE_MS), sentence, silence(SILENCE_MS)]);

  it("finds where a spoken sentence starts and stops on a phone line", async () => {
    const events = await detect(call, "audio/pcmu");
    expect(events.map(([kind]) => kind)).toEqual(["start", "stop"]);
    const [[, start], [, stop]] = events as [[string, number], [string, number]];
    // espeak-ng's file has a little silence of its own around the words.
    expect(start).toBeGreaterThanOrEqual(SILENCE_MS - 100);
    expect(start).toBeLessThan(SILENCE_MS + 300);
    expect(stop).toBeGreaterThan(SILENCE_MS + speechMs - 500);
    expect(stop).toBeLessThanOrEqual(SILENCE_MS + speechMs + 100);
  });

  it("finds the same sentence in a browser call's 24 kHz audio", async () => {
    const events = await detect(call, "audio/pcm");
    expect(events.map(([kind]) => kind)).toEqual(["start", "stop"]);
    expect(events[0]![1]).toBeLessThan(SILENCE_MS + 300);
  });

  it("does not take a 100 ms noise burst for speech", async () => {
    const events = await detect(concat([silence(500), noiseBurst(100), silence(1000)]), "audio/pcmu");
    expect(events).toEqual([]);
  });

  it("hears speech that follows the burst", async () => {
    const events = await detect(concat([silence(500), noiseBurst(100), silence(500), sentence, silence(SILENCE_MS)]), "audio/pcmu");
    expect(events.map(([kind]) => kind)).toEqual(["start", "stop"]);
    expect(events[0]![1]).toBeGreaterThanOrEqual(1000);
  });

  it("judges each of several calls heard at once as it would be judged alone", async () => {
    const calls = [call, concat([silence(500), noiseBurst(100), silence(1500)]), concat([silence(300), sentence, silence(700), sentence, silence(SILENCE_MS)])];
    const alone: Array<Array<[string, number]>> = [];
    for (const c of calls) alone.push(await detect(c, "audio/pcmu"));
    expect(alone.map((e) => e.length)).toEqual([2, 0, 4]);
    expect(await detectTogether(calls)).toEqual(alone);
  });
});
