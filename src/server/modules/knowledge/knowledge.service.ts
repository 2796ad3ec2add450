/**
 * Knowledge bases (ADR 060): bases and their documents, ingestion on the job queue (ingest.ts),
 * and retrieval — the same search for the page's search box, the API and a call's tool.
 */
import { randomUUID } from "node:crypto";
import {
  KNOWLEDGE_TEXTS,
  MAX_DOCUMENTS_PER_BASE,
  MAX_KNOWLEDGE_BASES,
  MAX_INLINE_KNOWLEDGE_CHARS,
  type DocumentJsonInput,
  type KnowledgeBase,
  type KnowledgeBaseInput,
  type KnowledgeBaseUpdate,
  type KnowledgeDocument,
  type KnowledgeSearchResult,
  type KnowledgeStatus,
} from "../../../shared/knowledge.ts";
import { isUuid } from "../../../shared/ids.ts";
import type { DatabaseLink, Db } from "../../db/client.ts";
import { insertWithinLimit } from "../../db/organization-lock.ts";
import { AppError, badRequest } from "../../errors.ts";
import { nextPeriod, type JobQueue } from "../../jobs/job-queue.ts";
import { createEmbeddingsClient } from "../../openai/embeddings-client.ts";
import type { Storage } from "../../storage/storage.ts";
import type { Resolver } from "../../tools/index.ts";
import type { CredentialsService } from "../credentials/credentials.service.ts";
import { documentKind } from "./extract.ts";
import { createIngest, INGEST_JOB, type IngestJob } from "./ingest.ts";
import { createIngestionThread } from "./ingestion-thread.ts";
import * as repo from "./knowledge.repo.ts";
import { EMBEDDING_DIMENSIONS, ensureVectorStore, type VectorIndex } from "./vector-store.ts";
import type { Page, PageQuery } from "../../../shared/pages.ts";
import { mapPage } from "../../http/pages.ts";

const REFRESH_JOB = "knowledge-refresh";
const REFRESH_EVERY_MS = 60 * 60_000;
/** A question's embedding on a call's path: a slow API must not hold the answer; words still answer. */
const QUESTION_EMBED_TIMEOUT_MS = 2_000;

export interface KnowledgeServiceDeps {
  db: Db;
  storage: Storage;
  jobs: Pick<JobQueue, "send" | "register">;
  credentials: Pick<CredentialsService, "readUsable">;
  openaiBaseUrl: string;
  embeddingModel: string;
  allowedHosts: readonly string[];
  retryDelaysMs: readonly number[];
  logger: { warn(obj: object, msg: string): void; info(obj: object, msg: string): void };
  clock?: () => Date;
  /** The form of the vector index to keep (vector-store.ts: half precision on a PostgreSQL server). */
  vectorIndex: VectorIndex;
  /** Tests resolve names to loopback addresses without DNS. */
  resolve?: Resolver;
  /** How the ingestion thread reaches the database (ingestion-thread.ts). */
  databaseLink: () => DatabaseLink;
}

export interface UploadedFile {
  filename: string;
  mimetype: string | null;
  bytes: Buffer;
}

const notFoundBase = () => new AppError(404, "not_found", KNOWLEDGE_TEXTS.notFound);
const notFoundDocument = () => new AppError(404, "not_found", KNOWLEDGE_TEXTS.documentNotFound);

function baseView(row: repo.BaseRow): KnowledgeBase {
  return {
    id: row.id,
    organization_id: row.organizationId,
    name: row.name,
    description: row.description,
    document_count: row.documentCount,
    chunk_count: row.chunkCount,
    created_at: row.createdAt.toISOString(),
    updated_at: row.updatedAt.toISOString(),
  };
}

function documentView(row: repo.DocumentRow): KnowledgeDocument {
  return {
    id: row.id,
    knowledge_base_id: row.knowledgeBaseId,
    name: row.name,
    source: row.source,
    url: row.url,
    refresh: row.refresh,
    content_type: row.contentType,
    size_bytes: row.sizeBytes,
    status: row.status,
    progress: row.progress,
    error: row.error,
    chunk_count: row.chunkCount,
    page_count: row.pageCount,
    embedded: row.embedded,
    last_fetched_at: row.lastFetchedAt?.toISOString() ?? null,
    last_fetch_error: row.lastFetchError,
    created_at: row.createdAt.toISOString(),
    updated_at: row.updatedAt.toISOString(),
  };
}

/** An upload's checks, before anything is stored. */
function checkUpload(file: UploadedFile) {
  if (file.bytes.length === 0) throw badRequest(KNOWLEDGE_TEXTS.fileEmpty, "empty_file");
  if (!documentKind(file.filename, file.mimetype)) throw new AppError(415, "unsupported_file_type", KNOWLEDGE_TEXTS.fileType);
}

export function createKnowledgeService(deps: KnowledgeServiceDeps) {
  const { db, storage, jobs, logger } = deps;
  /** The vector index searches order by; null without pgvector. */
  let index: VectorIndex | null = null;
  const apiKey = (organizationId: string) => deps.credentials.readUsable(organizationId, "openai_api_key");

  const thread = createIngestionThread(deps.databaseLink);
  jobs.register<IngestJob>(
    INGEST_JOB,
    createIngest({ db, storage, thread, openaiBaseUrl: deps.openaiBaseUrl, embeddingModel: deps.embeddingModel, allowedHosts: deps.allowedHosts, resolve: deps.resolve, apiKey, vectors: () => index !== null, logger }),
    { concurrency: 2, retryDelaysMs: deps.retryDelaysMs, timeoutMs: 15 * 60_000 },
  );

  const queue = (doc: repo.DocumentRow) => jobs.send<IngestJob>(INGEST_JOB, { organizationId: doc.organizationId, documentId: doc.id, generation: doc.generation }, { key: `${doc.id}:${doc.generation}` });

  /** Queues every URL document due for its daily or weekly fetch, then the next sweep (one per period across instances). */
  async function refresh({ chain }: { chain?: boolean }) {
    try {
      for (const due of await repo.dueForRefresh(db, (deps.clock ?? (() => new Date()))())) {
        const doc = await repo.requeueDocument(db, due.organizationId, due.knowledgeBaseId, due.id);
        if (doc) await queue(doc);
      }
    } finally {
      if (chain) {
        await jobs.send(REFRESH_JOB, { chain: true }, nextPeriod(REFRESH_EVERY_MS));
      }
    }
  }
  jobs.register<{ chain?: boolean }>(REFRESH_JOB, refresh, { timeoutMs: 5 * 60_000 });

  async function baseOr404(organizationId: string, id: string) {
    const row = isUuid(id) ? await repo.findBase(db, organizationId, id) : null;
    if (!row) throw notFoundBase();
    return row;
  }

  async function documentOr404(organizationId: string, baseId: string, id: string) {
    await baseOr404(organizationId, baseId);
    const row = isUuid(id) ? await repo.findDocument(db, organizationId, baseId, id) : null;
    if (!row) throw notFoundDocument();
    return row;
  }

  async function addDocument(organizationId: string, baseId: string, values: repo.NewDocument & { id: string }, body: Buffer | null) {
    await baseOr404(organizationId, baseId);
    if (body && values.storageKey) await storage.put(values.storageKey, body, { contentType: "application/octet-stream" });
    const row = await insertWithinLimit(
      db,
      { organizationId, purpose: `knowledge-documents:${baseId}`, limit: MAX_DOCUMENTS_PER_BASE },
      (tx) => repo.countDocuments(tx, organizationId, baseId),
      (tx) => repo.insertDocument(tx, organizationId, baseId, values),
    );
    if (!row) {
      if (values.storageKey) await storage.delete(values.storageKey).catch(() => false);
      throw new AppError(409, "limit_reached", KNOWLEDGE_TEXTS.tooManyDocuments);
    }
    await queue(row);
    return documentView(row);
  }

  /** The question's vector, or null (no pgvector, nothing embedded, no key, the API failing or slow). */
  async function questionVector(organizationId: string, baseIds: string[], query: string): Promise<repo.QueryVector | null> {
    const searchBy = index;
    if (!searchBy || !(await repo.anyEmbedded(db, organizationId, baseIds))) return null;
    const key = await apiKey(organizationId);
    if (!key) return null;
    try {
      const client = createEmbeddingsClient({ baseUrl: deps.openaiBaseUrl, apiKey: key, model: deps.embeddingModel, dimensions: EMBEDDING_DIMENSIONS, timeoutMs: QUESTION_EMBED_TIMEOUT_MS });
      const values = (await client.embed([query])).vectors[0];
      return values ? { values, index: searchBy } : null;
    } catch (err) {
      logger.warn({ err, organizationId }, "embedding a question failed: searching by words only");
      return null;
    }
  }

  async function search(organizationId: string, baseIds: string[], query: string, limit: number): Promise<KnowledgeSearchResult> {
    const vector = await questionVector(organizationId, baseIds, query);
    const rows = await repo.searchPassages(db, organizationId, baseIds, query, vector, limit);
    return { mode: vector ? "hybrid" : "full_text", passages: rows.map((r) => ({ ...r, score: Number(r.score) })) };
  }

  return {
    /** At start, before the queue: the vector column where pgvector exists (says once when it does not). */
    async start(): Promise<void> {
      index = await ensureVectorStore(db, deps.vectorIndex, logger);
    },

    /** Ends the ingestion thread (the server is closing; its jobs have stopped). */
    close: () => thread.close(),

    /** Once the queue runs: a refresh sweep now, then hourly (one chain across instances). */
    async startRefresh(): Promise<void> {
      await jobs.send(REFRESH_JOB, { chain: true });
    },

    async status(organizationId: string): Promise<KnowledgeStatus> {
      if (!index) return { vectors: false, notice: KNOWLEDGE_TEXTS.fullTextOnlyServer };
      if (!(await apiKey(organizationId))) return { vectors: true, notice: KNOWLEDGE_TEXTS.fullTextOnly };
      return { vectors: true, notice: null };
    },

    async pageBases(organizationId: string, query: PageQuery): Promise<Page<KnowledgeBase>> {
      return mapPage(await repo.pageBases(db, organizationId, query), (rows) => rows.map(baseView));
    },

    async getBase(organizationId: string, id: string): Promise<KnowledgeBase> {
      return baseView(await baseOr404(organizationId, id));
    },

    async createBase(organizationId: string, input: KnowledgeBaseInput): Promise<KnowledgeBase> {
      const id = await insertWithinLimit(
        db,
        { organizationId, purpose: "knowledge-bases", limit: MAX_KNOWLEDGE_BASES },
        (tx) => repo.countBases(tx, organizationId),
        (tx) => repo.insertBase(tx, organizationId, { name: input.name, description: input.description }),
      );
      if (!id) throw new AppError(409, "limit_reached", KNOWLEDGE_TEXTS.tooManyBases);
      return baseView(await baseOr404(organizationId, id));
    },

    async updateBase(organizationId: string, id: string, patch: KnowledgeBaseUpdate): Promise<KnowledgeBase> {
      if (!isUuid(id) || !(await repo.updateBase(db, organizationId, id, patch))) throw notFoundBase();
      return baseView(await baseOr404(organizationId, id));
    },

    async deleteBase(organizationId: string, id: string): Promise<void> {
      const result = isUuid(id) ? await repo.deleteBase(db, organizationId, id) : { deleted: false, storageKeys: [] };
      if (!result.deleted) throw notFoundBase();
      await Promise.all(result.storageKeys.map((key) => storage.delete(key).catch(() => false)));
    },

    async pageDocuments(organizationId: string, baseId: string, query: PageQuery): Promise<Page<KnowledgeDocument>> {
      await baseOr404(organizationId, baseId);
      return mapPage(await repo.pageDocuments(db, organizationId, baseId, query), (rows) => rows.map(documentView));
    },

    async upload(organizationId: string, baseId: string, file: UploadedFile): Promise<KnowledgeDocument> {
      checkUpload(file);
      const id = randomUUID();
      const name = file.filename.slice(0, 200);
      return addDocument(organizationId, baseId, { id, name, source: "upload", url: null, refresh: "never", contentType: file.mimetype, storageKey: `knowledge/${id}/${randomUUID()}`, sizeBytes: file.bytes.length }, file.bytes);
    },

    async addJson(organizationId: string, baseId: string, input: DocumentJsonInput): Promise<KnowledgeDocument> {
      const id = randomUUID();
      if ("url" in input) {
        return addDocument(organizationId, baseId, { id, name: input.name ?? input.url.slice(0, 200), source: "url", url: input.url, refresh: input.refresh, contentType: null, storageKey: null, sizeBytes: 0 }, null);
      }
      const body = Buffer.from(input.text, "utf8");
      return addDocument(organizationId, baseId, { id, name: input.name, source: "text", url: null, refresh: "never", contentType: "text/plain", storageKey: `knowledge/${id}/${randomUUID()}`, sizeBytes: body.length }, body);
    },

    /** A new file in place of an uploaded document: its passages are swapped when the new ones are ready. */
    async replace(organizationId: string, baseId: string, docId: string, file: UploadedFile): Promise<KnowledgeDocument> {
      const current = await documentOr404(organizationId, baseId, docId);
      checkUpload(file);
      const storageKey = `knowledge/${current.id}/${randomUUID()}`;
      await storage.put(storageKey, file.bytes, { contentType: "application/octet-stream" });
      const row = await repo.requeueDocument(db, organizationId, baseId, docId, { name: file.filename.slice(0, 200), source: "upload", url: null, refresh: "never", contentType: file.mimetype, storageKey, sizeBytes: file.bytes.length });
      if (!row) throw notFoundDocument();
      if (current.storageKey) await storage.delete(current.storageKey).catch(() => false);
      await queue(row);
      return documentView(row);
    },

    async reprocess(organizationId: string, baseId: string, docId: string): Promise<KnowledgeDocument> {
      await documentOr404(organizationId, baseId, docId);
      const row = await repo.requeueDocument(db, organizationId, baseId, docId);
      if (!row) throw notFoundDocument();
      await queue(row);
      return documentView(row);
    },

    async deleteDocument(organizationId: string, baseId: string, docId: string): Promise<void> {
      await baseOr404(organizationId, baseId);
      const row = isUuid(docId) ? await repo.deleteDocument(db, organizationId, baseId, docId) : null;
      if (!row) throw notFoundDocument();
      if (row.storageKey) await storage.delete(row.storageKey).catch(() => false);
    },

    /** The audit log's name of a document about to be deleted. */
    async documentName(organizationId: string, id: string): Promise<string | null> {
      return isUuid(id) ? repo.findDocumentName(db, organizationId, id) : null;
    },

    /** The search box and POST …/search: one base. */
    async search(organizationId: string, baseId: string, query: string, limit: number): Promise<KnowledgeSearchResult> {
      await baseOr404(organizationId, baseId);
      return search(organizationId, [baseId], query, limit);
    },

    /** A call's retrieval tool: the assistant's bases (those still there). Never throws. */
    async searchForCall(organizationId: string, baseIds: string[], query: string, limit: number): Promise<KnowledgeSearchResult> {
      return search(organizationId, await repo.findOwnBaseIds(db, organizationId, baseIds), query, limit);
    },

    /** Refuses ids that are not the organisation's bases (an assistant's knowledge_base_ids). */
    async checkBaseIds(organizationId: string, ids: string[]): Promise<void> {
      const found = new Set(await repo.findOwnBaseIds(db, organizationId, ids));
      const missing = ids.filter((id) => !found.has(id));
      if (missing.length > 0) throw badRequest(KNOWLEDGE_TEXTS.unknownBase(missing), "unknown_knowledge_base");
    },

    /** The bases' whole text for an assistant's instructions, or an error when it is too long for them. */
    async wholeText(organizationId: string, baseIds: string[]): Promise<string> {
      const parts = await repo.wholeText(db, organizationId, await repo.findOwnBaseIds(db, organizationId, baseIds));
      const text = parts.map((p) => `[${p.document_name}${p.location ? `, ${p.location}` : ""}]\n${p.content}`).join("\n\n");
      if (text.length > MAX_INLINE_KNOWLEDGE_CHARS) throw badRequest(KNOWLEDGE_TEXTS.tooLargeForInstructions, "knowledge_too_large");
      return text;
    },
  };
}

export type KnowledgeService = ReturnType<typeof createKnowledgeService>;
