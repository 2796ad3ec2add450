/**
 * The ingestion job: one document's text extracted, split into passages, embedded in batches and
 * stored, on the durable queue (never on the request); the job reads the document and the
 * ingestion thread does the rest (ingestion-thread.ts). A run is for one generation of the
 * document; a newer one (re-process, replace, delete) makes it write nothing. 429s, 5xx and
 * timeouts of the embeddings API are retried with the queue's backoff, as analyses are; once the
 * retries are spent the passages are stored without embeddings, found by words.
 */
import { KNOWLEDGE_TEXTS } from "../../../shared/knowledge.ts";
import type { Db } from "../../db/client.ts";
import type { JobContext } from "../../jobs/job-queue.ts";
import { ResponsesError } from "../../openai/responses-client.ts";
import type { Storage } from "../../storage/storage.ts";
import type { Resolver } from "../../tools/index.ts";
import { documentKind, KIND_LABEL } from "./extract.ts";
import { fetchDocument } from "./fetch-document.ts";
import type { PassagesOutcome } from "./ingest-passages.ts";
import { FailedOnThread, type IngestionThread } from "./ingestion-thread.ts";
import * as repo from "./knowledge.repo.ts";

export const INGEST_JOB = "knowledge-ingest";

export interface IngestJob {
  organizationId: string;
  documentId: string;
  generation: number;
}

export interface IngestDeps {
  db: Db;
  storage: Storage;
  thread: IngestionThread;
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
    try {
      await repo.setProgress(db, doc.organizationId, doc.id, doc.generation, 5);
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
      const apiKey = deps.vectors() ? await deps.apiKey(doc.organizationId) : null;
      const embeddings = apiKey ? { baseUrl: deps.openaiBaseUrl, apiKey, model: deps.embeddingModel } : null;
      const unreadable = KNOWLEDGE_TEXTS.failedUnreadable(KIND_LABEL[kind]);
      const done = await deps.thread.run({ doc, bytes, kind, embeddings, lastAttempt: context.lastAttempt, fetchedAt }).catch((err: unknown): PassagesOutcome => {
        if (err instanceof FailedOnThread) throw err;
        // The thread died, ran out of memory or hung reading this document: it is taken as unreadable.
        logger.warn({ err, documentId: doc.id }, "the ingestion thread failed on a document");
        return { outcome: "unreadable", reason: unreadable };
      });
      switch (done.outcome) {
        case "unreadable":
          if (done.reason === null) logger.warn({ detail: done.detail, documentId: doc.id }, "a document could not be read");
          await fail(done.reason ?? unreadable);
          return;
        case "retry": {
          // The queue's backoff, honouring the server's Retry-After.
          if (done.retryAfterMs !== null) context.retryNoSoonerThan(done.retryAfterMs);
          throw new ResponsesError(done.message, done.code, done.status, true, done.retryAfterMs);
        }
        case "stored":
          if (done.embeddingsFailed) logger.warn({ organizationId: doc.organizationId, ...done.embeddingsFailed }, "embeddings failed: the passages are stored for full-text search only");
          if (!done.written) logger.warn({ documentId: doc.id }, "a newer version of the document was queued meanwhile, or another run of this one published first: this run's passages were dropped");
      }
    } catch (err) {
      if (!context.lastAttempt) throw err;
      logger.warn({ err, documentId: doc.id }, "document ingestion failed");
      await fail(KNOWLEDGE_TEXTS.failedUnexpected);
    }
  };
}
