/**
 * A document's text extracted and split into passages on a worker thread of its own
 * (extract-worker.ts), so the event loop that carries live calls never runs pdf.js, mammoth or
 * html-to-text. The fetch and the database writes stay on the main side. Every failure of the
 * worker — the document's (ExtractError's sentence), or the thread dying — is an ExtractError
 * here, so the document is marked failed in plain words and the server carries on.
 */
import type { Worker } from "node:worker_threads";
import { KNOWLEDGE_TEXTS } from "../../../shared/knowledge.ts";
import { startWorkerThread } from "../../worker-thread.ts";
import type { Chunk } from "./chunk.ts";
import { ExtractError, KIND_LABEL, type DocumentKind } from "./extract.ts";

export type WorkerAnswer = { ok: true; chunks: Chunk[]; pages: number | null } | { ok: false; reason: string | null; detail?: string };

/** A document that needs more than this to be read is taken as unreadable, not allowed to starve the server. */
const WORKER_HEAP_MB = 256;
const WORKER_TIMEOUT_MS = 120_000;

function startWorker(): Worker {
  return startWorkerThread(import.meta.url, "extract-worker", { resourceLimits: { maxOldGenerationSizeMb: WORKER_HEAP_MB } });
}

let thread: Worker | null = null;
/** One document at a time: the thread is loaded once (pdf.js alone is much of a second), and a failure is the one in flight's. */
let queue: Promise<unknown> = Promise.resolve();

/** The document's passages and page count, read on the extraction thread; an ExtractError for any failure there. */
export function extractInWorker(bytes: Uint8Array, kind: DocumentKind): Promise<{ chunks: Chunk[]; pages: number | null }> {
  const run = queue.then(() => extractOne(bytes, kind));
  queue = run.catch(() => undefined);
  return run;
}

function extractOne(bytes: Uint8Array, kind: DocumentKind): Promise<{ chunks: Chunk[]; pages: number | null }> {
  const unreadable = (cause?: unknown) => new ExtractError(KNOWLEDGE_TEXTS.failedUnreadable(KIND_LABEL[kind]), { cause });
  if (!thread) {
    thread = startWorker();
    // An idle thread does not keep the process from exiting.
    thread.unref();
  }
  const worker = thread;
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => finish(unreadable(new Error("extraction timed out"))), WORKER_TIMEOUT_MS);
    const onMessage = (answer: WorkerAnswer) => finish(answer);
    const onFailure = (err: unknown) => finish(unreadable(err instanceof Error ? err : new Error(`extraction thread exited with code ${String(err)}`)));
    const finish = (outcome: WorkerAnswer | Error) => {
      clearTimeout(timer);
      worker.off("message", onMessage).off("error", onFailure).off("exit", onFailure);
      if (outcome instanceof Error) {
        // A thread that failed, ran out of memory or hangs is not used again.
        if (thread === worker) thread = null;
        void worker.terminate();
        reject(outcome);
      } else if (outcome.ok) resolve({ chunks: outcome.chunks, pages: outcome.pages });
      else reject(outcome.reason === null ? unreadable(new Error(outcome.detail)) : new ExtractError(outcome.reason));
    };
    worker.on("message", onMessage).on("error", onFailure).on("exit", onFailure);
    worker.postMessage({ bytes, kind });
  });
}
