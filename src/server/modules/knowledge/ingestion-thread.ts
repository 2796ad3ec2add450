/**
 * The ingestion thread (ingestion-worker.ts), one per server: a document's text extracted, split
 * into passages, embedded and stored there, through the thread's own connection to the database
 * (`Database.link`), so the event loop that carries live calls never runs pdf.js, mammoth or
 * html-to-text, nor holds a document's passages and vectors (ADR 092). The job on the app's side
 * reads the document and hands it over; the thread answers with the outcome. The thread dying, or
 * not reading a document in time, is the document's failure in plain words; the server carries on.
 * A hang while storing (the database, not the document) ends the thread too, for the job to retry.
 */
import type { Worker } from "node:worker_threads";
import type { DatabaseLink } from "../../db/client.ts";
import { startWorkerThread } from "../../worker-thread.ts";
import type { PassagesOutcome, PassagesRequest } from "./ingest-passages.ts";

/** The thread's messages about the document in hand: its text read, then the outcome (or a failure to retry). */
export type ThreadMessage = { type: "extracted" } | { type: "done"; outcome: PassagesOutcome } | { type: "failed"; message: string };

/** A document that needs more than this to be read is taken as unreadable, not allowed to starve the server. */
const WORKER_HEAP_MB = 256;
/** Reading a document: longer is taken as a hang. */
const READ_TIMEOUT_MS = 120_000;
/** Embedding and storing its passages, after: longer is taken as a hang (the thread is ended, its open statements rolled back). */
const STORE_TIMEOUT_MS = 10 * 60_000;

export function createIngestionThread(database: () => DatabaseLink, options: { storeTimeoutMs?: number } = {}) {
  let thread: Worker | null = null;
  /** One document at a time: the thread is loaded once (pdf.js alone is much of a second), and a failure is the one in flight's. */
  let queue: Promise<unknown> = Promise.resolve();
  let closing = false;

  function start(): Worker {
    const link = database();
    const worker = startWorkerThread(import.meta.url, "ingestion-worker", {
      workerData: { database: link },
      transferList: link.kind === "pglite" ? [link.port] : [],
      resourceLimits: { maxOldGenerationSizeMb: WORKER_HEAP_MB },
    });
    // An idle thread does not keep the process from exiting.
    worker.unref();
    return worker;
  }

  /**
   * The outcome of `request`; an Error when the thread fails, runs out of memory or hangs (it is
   * not used again), a FailedOnThread when the job should retry (kept unless it hung storing).
   */
  function ask(request: PassagesRequest): Promise<PassagesOutcome> {
    thread ??= start();
    const worker = thread;
    return new Promise((resolve, reject) => {
      let timer = setTimeout(() => finish(new Error("the ingestion thread did not read the document in time")), READ_TIMEOUT_MS);
      const onMessage = (message: ThreadMessage) => {
        if (message.type === "extracted") {
          clearTimeout(timer);
          timer = setTimeout(() => finish(new FailedOnThread("the ingestion thread did not store the passages in time"), true), options.storeTimeoutMs ?? STORE_TIMEOUT_MS);
        } else finish(message.type === "done" ? message.outcome : new FailedOnThread(message.message));
      };
      const onFailure = (err: unknown) =>
        // Ended by `close` (the server is stopping), the document is not at fault: the job is retried.
        finish(closing ? new FailedOnThread("the server closed while the document was ingesting") : err instanceof Error ? err : new Error(`the ingestion thread exited with code ${String(err)}`));
      const finish = (outcome: PassagesOutcome | Error, hung = false) => {
        clearTimeout(timer);
        worker.off("message", onMessage).off("error", onFailure).off("exit", onFailure);
        if (!(outcome instanceof Error)) return resolve(outcome);
        if (hung || !(outcome instanceof FailedOnThread)) {
          if (thread === worker) thread = null;
          void worker.terminate();
        }
        reject(outcome);
      };
      worker.on("message", onMessage).on("error", onFailure).on("exit", onFailure);
      worker.postMessage(request);
    });
  }

  return {
    /** Ingests `request` on the thread, after any document before it. */
    run(request: PassagesRequest): Promise<PassagesOutcome> {
      const run = queue.then(() => ask(request));
      queue = run.catch(() => undefined);
      return run;
    },
    async close(): Promise<void> {
      closing = true;
      const worker = thread;
      thread = null;
      await worker?.terminate();
    },
  };
}

export type IngestionThread = ReturnType<typeof createIngestionThread>;

/** A failure the thread reported (a statement's, say) and survived: the job retries; the thread stays. */
export class FailedOnThread extends Error {}
