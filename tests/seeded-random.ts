/**
 * mulberry32: a tiny seeded generator of numbers in [0, 1), in 32-bit integer arithmetic (a linear
 * congruential one computed in doubles loses its low bits past 2^53 and repeats within ten
 * thousand draws). The same seed gives the same numbers, so a failure repeats.
 */
export function seededRandom(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}
