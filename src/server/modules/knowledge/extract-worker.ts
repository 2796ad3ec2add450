/**
 * The worker thread's side of the ingestion thread (extract-in-worker.ts): one request at a time,
 * a document's bytes in and its passages out, or an embeddings answer in and its vectors' text
 * out. pdf.js, mammoth and html-to-text are CPU-bound and synchronous in stretches of a second or
 * more, and a batch's 256 vectors are most of a megabyte to decode and format; here they stall no
 * call's audio, and a document that makes them run out of memory ends this thread, not the server.
 */
import { setPriority } from "node:os";
import { parentPort } from "node:worker_threads";
import { ResponsesError } from "../../openai/responses-client.ts";
import { vectorsOf } from "../../openai/embeddings-client.ts";
import { chunkSections } from "./chunk.ts";
import { extractDocument, ExtractError } from "./extract.ts";
import type { ThreadAnswer, ThreadRequest } from "./extract-in-worker.ts";
import { vectorLiteral } from "./vector-literal.ts";

// The lowest priority for this thread alone (Linux keeps a nice value per thread): ingestion runs
// on the CPU the calls leave, rather than competing with their audio for it.
try {
  setPriority(19);
} catch {
  // Refused (another system's rules): ingestion runs at the server's own priority.
}

async function answer(request: ThreadRequest): Promise<ThreadAnswer> {
  if (request.op === "vectors") {
    try {
      const { vectors, tokens } = vectorsOf(request.body, request.count, request.dimensions);
      return { op: "vectors", ok: true, literals: vectors.map(vectorLiteral), tokens };
    } catch (err) {
      if (!(err instanceof ResponsesError)) throw err;
      return { op: "vectors", ok: false, message: err.message, retryable: err.retryable };
    }
  }
  try {
    const extracted = await extractDocument(request.bytes, request.kind);
    return { op: "extract", ok: true, chunks: chunkSections(extracted.sections), pages: extracted.pages };
  } catch (err) {
    return err instanceof ExtractError ? { op: "extract", ok: false, reason: err.message } : { op: "extract", ok: false, reason: null, detail: String((err as Error)?.stack ?? err) };
  }
}

parentPort!.on("message", async (request: ThreadRequest) => parentPort!.postMessage(await answer(request)));
