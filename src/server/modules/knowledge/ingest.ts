/**
 * The ingestion job: one document's text extracted, split into passages, embedded in batches and
 * stored, on the durable queue (never on the request). A run is for one generation of the
 * document; a newer one (re-process, replace, delete) makes it write nothing. 429s, 5xx and
 * timeouts of the embeddings API are retried with the queue's backoff, as analyses are; once the
 * retries are spent the passages are stored without embeddings, found by words.
 */
import { KNOWLEDGE_TEXTS } from "../../../shared/knowledge.ts";
import type { Db } from "../../db/client.ts";
import type { JobContext } from "../../jobs/job-queue.ts";
import { createEmbeddingsClient, EMBEDDING_BATCH } from "../../openai/embeddings-client.ts";
import { ResponsesError } from "../../openai/responses-client.ts";
import type { Storage } from "../../storage/storage.ts";
import type { Resolver } from "../../tools/index.ts";
import { documentKind, ExtractError } from "./extract.ts";
import { extractInWorker, vectorLiteralsInWorker } from "./extract-in-worker.ts";
import { fetchDocument } from "./fetch-document.ts";
import * as repo from "./knowledge.repo.ts";
import { EMBEDDING_DIMENSIONS } from "./vector-store.ts";

export const INGEST_JOB = "knowledge-ingest";

export interface IngestJob {
  organizationId: string;
  documentId: string;
  generation: number;
}

export interface IngestDeps {
  db: Db;
  storage: Storage;
  openaiBaseUrl: string;
  embeddingModel: string;
  allowedHosts: readonly string[];
  resolve?: Resolver;
  /** The organisation's OpenAI key, or null (then no embeddings). */
  apiKey(organizationId: string): Promise<string | null>;
  /** Whether the database has the embedding column (pgvector). */
  vectors(): boolean;
  logger: { warn(obj: object, msg: string): void };
}

export function createIngest(deps: IngestDeps) {
  const { db, logger } = deps;

  return async function ingest(job: IngestJob, context: JobContext): Promise<void> {
    const doc = await repo.findForJob(db, job.organizationId, job.documentId, job.generation);
    if (!doc || doc.status === "ready") return;
    const fail = (error: string, fetched?: { at: Date; error: string | null }) => repo.failDocument(db, doc.organizationId, doc.id, doc.generation, error, fetched);
    const progress = (p: number) => repo.setProgress(db, doc.organizationId, doc.id, doc.generation, p);
    try {
      await progress(5);
      let bytes: Uint8Array;
      let contentType = doc.contentType;
      let fetchedAt: Date | null = null;
      if (doc.source === "url") {
        const fetched = await fetchDocument(doc.url ?? "", { allowedHosts: deps.allowedHosts, resolve: deps.resolve });
        fetchedAt = new Date();
        if (!fetched.ok) {
          if (fetched.retryable && !context.lastAttempt) throw new Error(fetched.error);
          await fail(fetched.error, { at: fetchedAt, error: fetched.error });
          return;
        }
        bytes = fetched.bytes;
        contentType = fetched.contentType;
      } else {
        const stored = doc.storageKey ? await deps.storage.get(doc.storageKey) : null;
        if (!stored) {
          await fail(KNOWLEDGE_TEXTS.failedEmpty);
          return;
        }
        bytes = stored.body;
      }
      // Pasted text is read as Markdown: its "#" headings (if any) name its passages.
      const kind = doc.source === "text" ? "markdown" : documentKind(doc.source === "url" ? new URL(doc.url ?? "http://x/").pathname : doc.name, contentType);
      if (!kind) {
        await fail(KNOWLEDGE_TEXTS.fileType, fetchedAt ? { at: fetchedAt, error: KNOWLEDGE_TEXTS.fileType } : undefined);
        return;
      }
      if (bytes.length === 0) {
        await fail(KNOWLEDGE_TEXTS.failedEmpty, fetchedAt ? { at: fetchedAt, error: null } : undefined);
        return;
      }
      const extracted = await extractInWorker(bytes, kind);
      const { chunks } = extracted;
      await progress(30);
      const vectors = await embed(doc.organizationId, chunks.map((c) => (c.location ? `${c.location}\n${c.content}` : c.content)), context, progress);
      const written = await repo.replaceChunks(db, doc, chunks, vectors, { pageCount: extracted.pages, fetchedAt });
      if (!written) logger.warn({ documentId: doc.id }, "a newer version of the document was queued meanwhile: this run's passages were dropped");
    } catch (err) {
      if (err instanceof ExtractError) {
        await fail(err.message);
        return;
      }
      if (!context.lastAttempt) throw err;
      logger.warn({ err, documentId: doc.id }, "document ingestion failed");
      await fail(KNOWLEDGE_TEXTS.failedUnexpected);
    }
  };

  /**
   * The passages' vectors in pgvector's text (read and formatted on the ingestion thread), or null
   * when there are to be none (no pgvector, no key, or the API still failing on the last attempt).
   * A retryable failure before then throws for the queue's backoff, honouring the server's
   * Retry-After.
   */
  async function embed(organizationId: string, texts: string[], context: JobContext, progress: (p: number) => Promise<void>): Promise<string[] | null> {
    if (!deps.vectors()) return null;
    const apiKey = await deps.apiKey(organizationId);
    if (!apiKey) return null;
    const client = createEmbeddingsClient({ baseUrl: deps.openaiBaseUrl, apiKey, model: deps.embeddingModel, dimensions: EMBEDDING_DIMENSIONS });
    const vectors: string[] = [];
    try {
      for (let at = 0; at < texts.length; at += EMBEDDING_BATCH) {
        const batch = texts.slice(at, at + EMBEDDING_BATCH);
        const { literals } = await vectorLiteralsInWorker(await client.answer(batch), batch.length, EMBEDDING_DIMENSIONS);
        vectors.push(...literals);
        await progress(30 + Math.floor((65 * Math.min(texts.length, at + EMBEDDING_BATCH)) / texts.length));
      }
      return vectors;
    } catch (err) {
      if (!(err instanceof ResponsesError)) throw err;
      if (err.retryable && !context.lastAttempt) {
        if (err.retryAfterMs !== null) context.retryNoSoonerThan(err.retryAfterMs);
        throw err;
      }
      logger.warn({ err, organizationId, code: err.code }, "embeddings failed: the passages are stored for full-text search only");
      return null;
    }
  }
}
