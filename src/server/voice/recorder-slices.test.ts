import { describe, expect, it } from "vitest";
import { WAV_HEADER_BYTES, mulawToPcm16 } from "./audio.ts";
import { CallRecorder } from "./recorder.ts";

/** A long call's recording is handed over a slice at a time, so memory per call stays flat. */
describe("CallRecorder.take", () => {
  const chunk = (value: number) => new Int16Array(4096).map((_, i) => (value * 1000 + i) % 30_000);
  function fill(rec: CallRecorder, onFrame: (ms: number) => void = () => {}) {
    // 40 s of caller audio and 20 s of assistant audio, in 4096-sample frames; item-3 is cut.
    for (let i = 0; i < 235; i += 1) {
      const ms = ((i + 1) * 4096 * 1000) / 24_000;
      rec.addCaller(chunk(i), ms);
      if (i >= 30 && i < 147) rec.addAssistant(chunk(i - 23), ms, `item-${Math.floor((i - 30) / 10)}`);
      if (i === 70) rec.cutAssistantItem("item-3", 900);
      onFrame(ms);
    }
  }

  it("hands over the same data as one WAV, keeping only the last seconds in memory", () => {
    const whole = new CallRecorder(24_000);
    fill(whole);
    const streamed = new CallRecorder(24_000);
    const parts: Buffer[] = [];
    let held = 0;
    fill(streamed, (ms) => {
      // Everything older than 5 s is settled: hand it over.
      const part = streamed.take(streamed.positionOf(ms - 5_000));
      if (part) parts.push(part);
      held = Math.max(held, streamed.frames - streamed.taken);
    });
    parts.push(streamed.take(streamed.frames)!);
    expect(Buffer.concat(parts).equals(whole.toWav().subarray(WAV_HEADER_BYTES))).toBe(true);
    expect(held).toBeLessThan(24_000 * 7);
  });

  it("clamps a cut of audio already handed over to the handed-over point", () => {
    const rec = new CallRecorder(1000);
    rec.addAssistant(new Int16Array(100).fill(1), 0, "a");
    expect(rec.take(50)?.length).toBe(50 * 4);
    rec.cutAssistantItem("a", 20);
    expect(rec.frames).toBe(50);
    rec.addAssistant(new Int16Array(10).fill(2), 0, "b");
    expect([...new Int16Array(rec.toWav().buffer.slice(WAV_HEADER_BYTES))].filter((_, i) => i % 2 === 1)).toEqual(Array.from({ length: 10 }, () => 2));
  });

  // 8 kHz is a phone call's, held as µ-law: the values are ones µ-law carries exactly.
  it.each([1000, 8000])("keeps a reply sent far ahead of its playing, and silence between a cut reply and a later one (%i Hz)", (rate) => {
    const [three, five] = mulawToPcm16(Uint8Array.of(0x20, 0xa0));
    const samples = (ms: number) => (ms * rate) / 1000;
    const rec = new CallRecorder(rate);
    // A 20 s reply arrives at once (more than the channel's first buffer), the caller barges in 1.5 s into it.
    rec.addAssistant(new Int16Array(samples(20_000)).fill(three!), 0, "long");
    rec.cutAssistantItem("long", 1_500);
    expect(rec.take(samples(1_000))?.length).toBe(samples(1_000) * 4);
    // The next reply is sent at 4 s: between the two, the channel is silent.
    rec.addAssistant(new Int16Array(samples(500)).fill(five!), 4_000, "next");
    const right = [...new Int16Array(rec.toWav().buffer.slice(WAV_HEADER_BYTES))].filter((_, i) => i % 2 === 1);
    expect(right.length).toBe(samples(3_500));
    expect(right.slice(0, samples(500)).every((v) => v === three)).toBe(true);
    expect(right.slice(samples(500), samples(3_000)).every((v) => v === 0)).toBe(true);
    expect(right.slice(samples(3_000)).every((v) => v === five)).toBe(true);
  });
});
