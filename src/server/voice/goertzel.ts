/** Power of `hz` in `samples` (Goertzel), relative to the signal's total power: "is this tone what sounds?" (1 for a pure tone of `hz`). */
export function toneShare(samples: Int16Array, sampleRate: number, hz: number): number {
  const k = 2 * Math.cos((2 * Math.PI * hz) / sampleRate);
  let s1 = 0;
  let s2 = 0;
  let total = 0;
  for (const x of samples) {
    const s0 = x + k * s1 - s2;
    s2 = s1;
    s1 = s0;
    total += x * x;
  }
  const power = s1 * s1 + s2 * s2 - k * s1 * s2;
  return total === 0 ? 0 : (2 * power) / (samples.length * total);
}
