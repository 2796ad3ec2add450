/**
 * The ingestion thread's part of a document's ingestion (ingestion-worker.ts runs it): its text
 * extracted and split into passages, embedded in batches, and the passages stored — all through
 * the thread's own connection to the database, so no document's bytes, passages or vectors cross
 * the app's thread and its heap (docs/decisions/092-ingestion-writes-from-its-own-thread.md).
 */
import type { Db } from "../../db/client.ts";
import { createEmbeddingsClient, EMBEDDING_BATCH } from "../../openai/embeddings-client.ts";
import { ResponsesError } from "../../openai/responses-client.ts";
import { chunkSections } from "./chunk.ts";
import { extractDocument, ExtractError, type DocumentKind } from "./extract.ts";
import * as repo from "./knowledge.repo.ts";
import { vectorLiteral } from "./vector-literal.ts";
import { EMBEDDING_DIMENSIONS } from "./vector-store.ts";

export interface PassagesRequest {
  doc: Pick<repo.DocumentRow, "organizationId" | "knowledgeBaseId" | "id" | "generation">;
  bytes: Uint8Array;
  kind: DocumentKind;
  /** The embeddings API with the organisation's key, or null: the passages are found by words only. */
  embeddings: { baseUrl: string; apiKey: string; model: string } | null;
  /** The queue's last attempt: embeddings still failing then store the passages without vectors. */
  lastAttempt: boolean;
  fetchedAt: Date | null;
}

export type PassagesOutcome =
  /** Stored (`written` false: a newer version was queued meanwhile, or another run of this one published first, and this run's passages were dropped). */
  | { outcome: "stored"; written: boolean; embeddingsFailed: { message: string; code: string } | null }
  /** The document could not be read: its sentence (ExtractError's), or null for an unexpected failure (`detail`). */
  | { outcome: "unreadable"; reason: string | null; detail?: string }
  /** The embeddings API failed in a way worth asking again, with the queue's backoff. */
  | { outcome: "retry"; message: string; code: string; status: number; retryAfterMs: number | null };

/** Runs the thread's part of ingesting `request.doc`; `extracted` is told once its text is read. */
export async function ingestPassages(db: Db, request: PassagesRequest, extracted: () => void): Promise<PassagesOutcome> {
  const { doc } = request;
  let read;
  try {
    read = await extractDocument(request.bytes, request.kind);
  } catch (err) {
    return err instanceof ExtractError ? { outcome: "unreadable", reason: err.message } : { outcome: "unreadable", reason: null, detail: String((err as Error)?.stack ?? err) };
  }
  extracted();
  const chunks = chunkSections(read.sections);
  const progress = (p: number) => repo.setProgress(db, doc.organizationId, doc.id, doc.generation, p);
  await progress(30);
  let vectors: string[] | null = null;
  let embeddingsFailed: { message: string; code: string } | null = null;
  if (request.embeddings) {
    const texts = chunks.map((c) => (c.location ? `${c.location}\n${c.content}` : c.content));
    const client = createEmbeddingsClient({ ...request.embeddings, dimensions: EMBEDDING_DIMENSIONS });
    try {
      vectors = [];
      for (let at = 0; at < texts.length; at += EMBEDDING_BATCH) {
        const { vectors: batch } = await client.embed(texts.slice(at, at + EMBEDDING_BATCH));
        for (const v of batch) vectors.push(vectorLiteral(v));
        await progress(30 + Math.floor((65 * Math.min(texts.length, at + EMBEDDING_BATCH)) / texts.length));
      }
    } catch (err) {
      if (!(err instanceof ResponsesError)) throw err;
      if (err.retryable && !request.lastAttempt) return { outcome: "retry", message: err.message, code: err.code, status: err.status, retryAfterMs: err.retryAfterMs };
      vectors = null;
      embeddingsFailed = { message: err.message, code: err.code };
    }
  }
  const written = await repo.replaceChunks(db, doc, chunks, vectors, { pageCount: read.pages, fetchedAt: request.fetchedAt });
  return { outcome: "stored", written, embeddingsFailed };
}
