import { describe, expect, it } from "vitest";
import { CallRecorder } from "./recorder.ts";

/** A long call's WAV is written in slices, yielding in between, so other calls' audio keeps flowing. */
describe("CallRecorder.toWavInSlices", () => {
  it("writes the same WAV as toWav, pausing between slices of a long recording", async () => {
    const rec = new CallRecorder(24_000);
    const chunk = (value: number) => new Int16Array(4096).map((_, i) => (value * 1000 + i) % 30_000);
    // 40 s of caller audio and 20 s of assistant audio, in 4096-sample frames.
    for (let i = 0; i < 235; i += 1) rec.addCaller(chunk(i), ((i + 1) * 4096 * 1000) / 24_000);
    for (let i = 0; i < 117; i += 1) rec.addAssistant(chunk(i + 7), 5_000, `item-${Math.floor(i / 10)}`);
    let pauses = 0;
    const sliced = await rec.toWavInSlices(async () => {
      pauses += 1;
    });
    expect(pauses).toBeGreaterThan(2);
    expect(sliced.equals(rec.toWav())).toBe(true);
    expect(sliced.readInt16LE(44 + 4 * 5_000 * 24 + 2)).toBe(chunk(7)[0]);
  });
});
