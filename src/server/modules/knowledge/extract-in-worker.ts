/**
 * The ingestion thread (extract-worker.ts): a document's text extracted and split into passages,
 * and the embeddings API's answers read into pgvector's text, on a worker thread of its own, so
 * the event loop that carries live calls never runs pdf.js, mammoth or html-to-text, nor decodes
 * and formats a batch's vectors. The fetches and the database writes stay on the main side.
 * Every failure of an extraction — the document's (ExtractError's sentence), or the thread dying
 * — is an ExtractError here, so the document is marked failed in plain words and the server
 * carries on; an embeddings answer without the vectors asked for is the `ResponsesError` the
 * embeddings client would have thrown.
 */
import type { Worker } from "node:worker_threads";
import { KNOWLEDGE_TEXTS } from "../../../shared/knowledge.ts";
import { ResponsesError } from "../../openai/responses-client.ts";
import { startWorkerThread } from "../../worker-thread.ts";
import type { Chunk } from "./chunk.ts";
import { ExtractError, KIND_LABEL, type DocumentKind } from "./extract.ts";

export type ThreadRequest = { op: "extract"; bytes: Uint8Array; kind: DocumentKind } | { op: "vectors"; body: ArrayBuffer; count: number; dimensions: number };
export type ThreadAnswer =
  | { op: "extract"; ok: true; chunks: Chunk[]; pages: number | null }
  | { op: "extract"; ok: false; reason: string | null; detail?: string }
  | { op: "vectors"; ok: true; literals: string[]; tokens: number }
  | { op: "vectors"; ok: false; message: string; retryable: boolean };

/** A document that needs more than this to be read is taken as unreadable, not allowed to starve the server. */
const WORKER_HEAP_MB = 256;
const WORKER_TIMEOUT_MS = 120_000;

function startWorker(): Worker {
  return startWorkerThread(import.meta.url, "extract-worker", { resourceLimits: { maxOldGenerationSizeMb: WORKER_HEAP_MB } });
}

let thread: Worker | null = null;
/** One request at a time: the thread is loaded once (pdf.js alone is much of a second), and a failure is the one in flight's. */
let queue: Promise<unknown> = Promise.resolve();

/** The document's passages and page count, read on the ingestion thread; an ExtractError for any failure there. */
export async function extractInWorker(bytes: Uint8Array, kind: DocumentKind): Promise<{ chunks: Chunk[]; pages: number | null }> {
  const unreadable = (cause?: unknown) => new ExtractError(KNOWLEDGE_TEXTS.failedUnreadable(KIND_LABEL[kind]), { cause });
  const answer = await onThread({ op: "extract", bytes, kind }).catch((err: unknown) => {
    throw unreadable(err);
  });
  if (answer.ok) return { chunks: answer.chunks, pages: answer.pages };
  throw answer.reason === null ? unreadable(new Error(answer.detail)) : new ExtractError(answer.reason);
}

/** An embeddings answer to `count` texts (its body, handed over) as each vector's pgvector text, read on the ingestion thread. */
export async function vectorLiteralsInWorker(body: ArrayBuffer, count: number, dimensions: number): Promise<{ literals: string[]; tokens: number }> {
  const answer = await onThread({ op: "vectors", body, count, dimensions }, [body]);
  if (!answer.ok) throw new ResponsesError(answer.message, "invalid_output", 200, answer.retryable);
  return answer;
}

/** The thread's answer to `request` (its own kind: the thread answers one request at a time, in order). */
function onThread<R extends ThreadRequest>(request: R, transfer: ArrayBuffer[] = []): Promise<Extract<ThreadAnswer, { op: R["op"] }>> {
  const run = queue.then(() => ask(request, transfer)) as Promise<Extract<ThreadAnswer, { op: R["op"] }>>;
  queue = run.catch(() => undefined);
  return run;
}

/** The thread's answer; an Error when the thread fails, runs out of memory or hangs (it is not used again). */
function ask(request: ThreadRequest, transfer: ArrayBuffer[]): Promise<ThreadAnswer> {
  if (!thread) {
    thread = startWorker();
    // An idle thread does not keep the process from exiting.
    thread.unref();
  }
  const worker = thread;
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => finish(new Error("the ingestion thread did not answer in time")), WORKER_TIMEOUT_MS);
    const onMessage = (answer: ThreadAnswer) => finish(answer);
    const onFailure = (err: unknown) => finish(err instanceof Error ? err : new Error(`the ingestion thread exited with code ${String(err)}`));
    const finish = (outcome: ThreadAnswer | Error) => {
      clearTimeout(timer);
      worker.off("message", onMessage).off("error", onFailure).off("exit", onFailure);
      if (!(outcome instanceof Error)) return resolve(outcome);
      if (thread === worker) thread = null;
      void worker.terminate();
      reject(outcome);
    };
    worker.on("message", onMessage).on("error", onFailure).on("exit", onFailure);
    worker.postMessage(request, transfer);
  });
}
