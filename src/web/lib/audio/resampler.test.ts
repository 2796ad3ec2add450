import { describe, expect, it } from "vitest";
import { lowPassTaps, Resampler } from "./resampler";

/** A sine of `hz` at `rate`, resampled to 24 kHz in the worklet's 128-sample blocks. */
function resampledRms(hz: number, rate: number, seconds = 0.5): number {
  const r = new Resampler(rate, 24_000);
  const out: number[] = [];
  const total = Math.round(rate * seconds);
  for (let at = 0; at < total; at += 128) {
    const block = new Float32Array(Math.min(128, total - at)).map((_, i) => 0.7 * Math.sin((2 * Math.PI * hz * (at + i)) / rate));
    r.process(block, (v) => out.push(v));
  }
  const settled = out.slice(200); // past the filter's start-up
  return Math.sqrt(settled.reduce((sum, v) => sum + v * v, 0) / settled.length);
}

describe("capture resampler (Firefox fallback)", () => {
  it("keeps speech: a 1 kHz tone passes at its level, with the expected number of samples", () => {
    expect(resampledRms(1_000, 48_000)).toBeCloseTo(0.7 / Math.SQRT2, 1);
    const r = new Resampler(44_100, 24_000);
    let count = 0;
    for (let i = 0; i < 441; i += 1) r.process(new Float32Array(100), () => (count += 1));
    expect(Math.abs(count - 24_000)).toBeLessThanOrEqual(1);
  });

  it.each([
    [20_000, 48_000],
    [16_000, 48_000],
    [18_000, 44_100],
  ])("filters %i Hz out of a %i Hz capture instead of folding it into the speech band", (hz, rate) => {
    // Without the filter this tone comes out at full level (aliased to |rate/2 ... 24k - hz|).
    expect(resampledRms(hz, rate)).toBeLessThan(0.03);
  });

  it("has unity gain at 0 Hz and passes a 16 kHz capture through unfiltered", () => {
    const taps = lowPassTaps(10_800, 48_000);
    expect(taps.reduce((a, b) => a + b, 0)).toBeCloseTo(1, 6);
    const r = new Resampler(16_000, 24_000);
    const out: number[] = [];
    r.process(Float32Array.from([0, 0.5, 1]), (v) => out.push(v));
    expect(out.slice(0, 3)).toEqual([0, expect.closeTo(1 / 3, 5), expect.closeTo(2 / 3, 5)]);
  });
});
