/**
 * Microphone resampling for browsers that capture at the device's rate (Firefox): a low-pass
 * FIR filter, then linear interpolation to the target rate. Without the filter, everything
 * above half the target rate (12 kHz for 24 kHz) folds back into the speech band as noise —
 * a 20 kHz component of a 48 kHz capture would be heard at 4 kHz.
 *
 * Pure and streaming (state carries across the worklet's 128-sample blocks); imports nothing,
 * because it runs inside the capture AudioWorklet.
 */

const TAPS = 63;

/** A windowed-sinc (Blackman) low-pass FIR with unity gain at 0 Hz. */
export function lowPassTaps(cutoffHz: number, sampleRate: number, taps = TAPS): Float32Array {
  const fc = cutoffHz / sampleRate;
  const mid = (taps - 1) / 2;
  const h = new Float32Array(taps);
  let sum = 0;
  for (let n = 0; n < taps; n += 1) {
    const x = n - mid;
    const sinc = x === 0 ? 2 * fc : Math.sin(2 * Math.PI * fc * x) / (Math.PI * x);
    const window = 0.42 - 0.5 * Math.cos((2 * Math.PI * n) / (taps - 1)) + 0.08 * Math.cos((4 * Math.PI * n) / (taps - 1));
    h[n] = sinc * window;
    sum += h[n]!;
  }
  for (let n = 0; n < taps; n += 1) h[n] = h[n]! / sum;
  return h;
}

export class Resampler {
  /** Input samples per output sample. */
  private readonly step: number;
  private readonly taps: Float32Array | null;
  /** The last TAPS input samples, newest at `head - 1` (a ring). */
  private readonly history: Float32Array;
  private head = 0;
  /** Position of the next output sample, in filtered input samples from the start of the current block (-1 = `last`). */
  private position = 0;
  private last = 0;

  constructor(inputRate: number, readonly outputRate: number) {
    this.step = inputRate / outputRate;
    // Only decimation needs the filter; its cutoff sits a little below the new Nyquist frequency.
    this.taps = inputRate > outputRate ? lowPassTaps(0.45 * outputRate, inputRate) : null;
    this.history = new Float32Array(this.taps?.length ?? 1);
  }

  private filter(sample: number): number {
    const taps = this.taps;
    if (!taps) return sample;
    const size = this.history.length;
    this.history[this.head] = sample;
    this.head = (this.head + 1) % size;
    let acc = 0;
    // taps are symmetric, so the order of the convolution does not matter.
    for (let k = 0, i = this.head; k < size; k += 1, i = i + 1 === size ? 0 : i + 1) acc += taps[k]! * this.history[i]!;
    return acc;
  }

  /** Feeds one block of input; `emit` gets each output sample in order. */
  process(input: Float32Array, emit: (sample: number) => void): void {
    const n = input.length;
    if (n === 0) return;
    if (this.step === 1) {
      for (let i = 0; i < n; i += 1) emit(input[i]!);
      return;
    }
    const filtered = new Float32Array(n);
    for (let i = 0; i < n; i += 1) filtered[i] = this.filter(input[i]!);
    let t = this.position;
    while (t <= n - 1) {
      const i = Math.floor(t);
      const frac = t - i;
      const a = i < 0 ? this.last : filtered[i]!;
      const b = frac === 0 ? a : (filtered[i + 1] ?? a);
      emit(a + (b - a) * frac);
      t += this.step;
    }
    this.position = t - n;
    this.last = filtered[n - 1]!;
  }

  /** Input that is not speech any more (microphone muted): keep the timeline, drop the sound. */
  skip(input: Float32Array): void {
    for (let i = 0; i < input.length; i += 1) this.filter(input[i]!);
    if (input.length > 0) this.last = this.taps ? 0 : input[input.length - 1]!;
  }
}
