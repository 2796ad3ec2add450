/**
 * The worker thread's side of the ingestion thread (ingestion-thread.ts): one document at a time,
 * its bytes in and its passages stored (ingest-passages.ts) through the thread's own connection to
 * the database. pdf.js, mammoth and html-to-text are CPU-bound and synchronous in stretches of a
 * second or more, a batch's 256 vectors are most of a megabyte to read and format, and each
 * passage's statement carries its vector: here none of it stalls a call's audio or fills the app's
 * heap, and a document that makes the thread run out of memory ends this thread, not the server.
 */
import { setPriority } from "node:os";
import { parentPort, workerData } from "node:worker_threads";
import { openLinkedDb, type DatabaseLink } from "../../db/client.ts";
import { ingestPassages, type PassagesRequest } from "./ingest-passages.ts";
import type { ThreadMessage } from "./ingestion-thread.ts";

// The lowest priority for this thread alone (Linux keeps a nice value per thread): ingestion runs
// on the CPU the calls leave, rather than competing with their audio for it.
try {
  setPriority(19);
} catch {
  // Refused (another system's rules): ingestion runs at the server's own priority.
}

const { db } = openLinkedDb((workerData as { database: DatabaseLink }).database);
const post = (message: ThreadMessage) => parentPort!.postMessage(message);

parentPort!.on("message", async (request: PassagesRequest) => {
  try {
    post({ type: "done", outcome: await ingestPassages(db, request, () => post({ type: "extracted" })) });
  } catch (err) {
    // The database's or a bug's: the job's to retry.
    post({ type: "failed", message: String((err as Error)?.message ?? err) });
  }
});
