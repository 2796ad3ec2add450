/**
 * The worker thread's side of `extractInWorker` (extract-in-worker.ts): a document's bytes in, its
 * passages out, one document at a time. pdf.js, mammoth and html-to-text are CPU-bound and
 * synchronous in stretches of a second or more; here they stall no call's audio, and a document
 * that makes them run out of memory ends this thread, not the server.
 */
import { setPriority } from "node:os";
import { parentPort } from "node:worker_threads";
import { chunkSections } from "./chunk.ts";
import { extractDocument, ExtractError, type DocumentKind } from "./extract.ts";
import type { WorkerAnswer } from "./extract-in-worker.ts";

// The lowest priority for this thread alone (Linux keeps a nice value per thread): extraction runs
// on the CPU the calls leave, rather than competing with their audio for it.
try {
  setPriority(19);
} catch {
  // Refused (another system's rules): extraction runs at the server's own priority.
}

parentPort!.on("message", async ({ bytes, kind }: { bytes: Uint8Array; kind: DocumentKind }) => {
  let answer: WorkerAnswer;
  try {
    const extracted = await extractDocument(bytes, kind);
    answer = { ok: true, chunks: chunkSections(extracted.sections), pages: extracted.pages };
  } catch (err) {
    answer = err instanceof ExtractError ? { ok: false, reason: err.message } : { ok: false, reason: null, detail: String((err as Error)?.stack ?? err) };
  }
  parentPort!.postMessage(answer);
});
