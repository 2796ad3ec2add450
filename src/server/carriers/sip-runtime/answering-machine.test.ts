/**
 * Telling a person from an answering machine by what they send, with speech made by espeak-ng
 * (a short "Hello?", a voicemail greeting) and the beep such machines play, fed in 20 ms frames
 * as RTP brings them. What a caller of the API would notice: the answerer recorded, and a
 * machine's message end found where the beep stops, not during the greeting.
 */
import { describe, expect, it } from "vitest";
import { mulawSpeech } from "../../../../tests/fakes/twilio-speech.ts";
import { pcm16ToMulaw } from "../../voice/audio.ts";
import { AnsweringMachineDetector, type Verdict } from "./answering-machine.ts";

const GREETING = "Hi, you have reached Ann Lee. I cannot take your call right now. Please leave a message after the tone.";
const silence = (ms: number) => Buffer.alloc(ms * 8, 0xff);
const tone = (hz: number, ms: number) => Buffer.from(pcm16ToMulaw(Int16Array.from({ length: ms * 8 }, (_, i) => Math.round(8000 * Math.sin((2 * Math.PI * hz * i) / 8000)))));

/** Feeds `audio` in 20 ms packets; returns each verdict with the audio time (ms) it came at. */
function hear(audio: Buffer): { verdict: Verdict; atMs: number }[] {
  const heard: { verdict: Verdict; atMs: number }[] = [];
  let fed = 0;
  const detector = new AnsweringMachineDetector((verdict) => heard.push({ verdict, atMs: fed / 8 }));
  for (; fed < audio.length && !detector.done; ) {
    const packet = audio.subarray(fed, fed + 160);
    fed += packet.length;
    detector.push(packet);
  }
  return heard;
}

describe("a person", () => {
  it("who says hello and waits is a human, once they have been quiet 1.2 s", () => {
    const hello = mulawSpeech("Hello?");
    const heard = hear(Buffer.concat([silence(400), hello, silence(5000)]));
    expect(heard.map((h) => h.verdict)).toEqual(["human"]);
    expect(heard[0]!.atMs).toBeLessThan(400 + hello.length / 8 + 1300);
  });

  it("who says nothing for 5 s is unknown", () => {
    expect(hear(silence(8000)).map((h) => h.verdict)).toEqual(["unknown"]);
  });
});

describe("an answering machine", () => {
  it("is a machine once its greeting passes 2.4 s; its message ends where the beep stops", () => {
    const greeting = mulawSpeech(GREETING);
    const beepEndsMs = 300 + greeting.length / 8 + 400 + 500;
    const heard = hear(Buffer.concat([silence(300), greeting, silence(400), tone(1000, 500), silence(4000)]));
    expect(heard.map((h) => h.verdict)).toEqual(["machine_start", "machine_end_beep"]);
    expect(heard[0]!.atMs).toBeGreaterThanOrEqual(300 + 2400);
    expect(heard[0]!.atMs).toBeLessThan(300 + 3000);
    expect(heard[1]!.atMs).toBeGreaterThanOrEqual(beepEndsMs);
    expect(heard[1]!.atMs).toBeLessThanOrEqual(beepEndsMs + 40);
  });

  it("with no beep, its message ends after 3 s of silence", () => {
    const greeting = mulawSpeech(GREETING);
    const heard = hear(Buffer.concat([greeting, silence(6000)]));
    expect(heard.map((h) => h.verdict)).toEqual(["machine_start", "machine_end_silence"]);
    expect(heard[1]!.atMs).toBeGreaterThanOrEqual(greeting.length / 8 + 3000 - 400);
  });

  it("talking on for 30 s is a machine whose end was not found", () => {
    const greeting = mulawSpeech(GREETING);
    const endless = Buffer.concat(Array.from({ length: 6 }, () => greeting));
    expect(hear(endless).map((h) => h.verdict)).toEqual(["machine_start", "machine_end_other"]);
  });

  it("a greeting's own words are never taken for the beep", () => {
    const greeting = mulawSpeech(GREETING);
    const heard = hear(Buffer.concat([greeting, greeting, silence(3500)]));
    expect(heard.map((h) => h.verdict)).toEqual(["machine_start", "machine_end_silence"]);
  });
});
