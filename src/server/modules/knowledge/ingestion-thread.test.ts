/**
 * The ingestion thread reads a document, asks for its embeddings and stores its passages through
 * its own connection to the database (the embedded database's thread through a port of its own,
 * or its own pool on a server), at the lowest priority, leaving the server's threads where they
 * were; what the app hears back is only the outcome.
 */
import { eq } from "drizzle-orm";
import { readdirSync, readFileSync } from "node:fs";
import { getPriority } from "node:os";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { freshDatabase } from "../../../../tests/harness.ts";
import { FakeEmbeddings } from "../../../../tests/fakes/fake-embeddings.ts";
import { makePdf } from "../../../../tests/knowledge-files.ts";
import type { Database } from "../../db/client.ts";
import { knowledgeBases, knowledgeChunks, knowledgeDocuments, organization } from "../../db/schema.ts";
import { createIngestionThread, FailedOnThread, type IngestionThread } from "./ingestion-thread.ts";
import { ensureVectorStore, vectorIndexFor } from "./vector-store.ts";

/** Each thread of this process and its nice value (Linux keeps one per thread: /proc/self/task/<tid>/stat, field 19). */
function threadNices(): number[] {
  return readdirSync("/proc/self/task").flatMap((tid) => {
    try {
      const stat = readFileSync(`/proc/self/task/${tid}/stat`, "utf8");
      return [Number(stat.slice(stat.lastIndexOf(")") + 2).split(" ")[16])];
    } catch {
      return []; // a thread that ended meanwhile
    }
  });
}

const ORG = "org-ingestion-thread";
let database: Database;
let embeddings: FakeEmbeddings;
let thread: IngestionThread;
let baseId: string;

beforeAll(async () => {
  database = await freshDatabase();
  await ensureVectorStore(database.db, vectorIndexFor(database.kind), { warn: () => undefined });
  await database.db.insert(organization).values({ id: ORG, name: "Ingestion", slug: ORG });
  [{ id: baseId }] = await database.db.insert(knowledgeBases).values({ organizationId: ORG, name: "FAQ" }).returning({ id: knowledgeBases.id });
  embeddings = await FakeEmbeddings.start({ apiKey: "sk-thread" });
  thread = createIngestionThread(() => database.link());
});
afterAll(async () => {
  await thread.close();
  await embeddings.close();
  await database.close();
});

async function newDocument(name: string) {
  const [doc] = await database.db.insert(knowledgeDocuments).values({ organizationId: ORG, knowledgeBaseId: baseId, name, source: "upload", status: "processing" }).returning();
  return doc!;
}

const access = () => ({ baseUrl: embeddings.baseUrl, apiKey: "sk-thread", model: "text-embedding-3-small" });

describe.runIf(process.platform === "linux")("the ingestion thread", () => {
  it("stores a document's passages with their vectors itself, at the lowest priority", async () => {
    const before = getPriority();
    const doc = await newDocument("hours.pdf");
    const bytes = await makePdf([["Opening hours: 9 to 5 on weekdays."], ["Returns within 30 days with a receipt."]]);
    const outcome = await thread.run({ doc, bytes, kind: "pdf", embeddings: access(), lastAttempt: false, fetchedAt: null });
    expect(outcome).toEqual({ outcome: "stored", written: true, embeddingsFailed: null });

    // The app's own connection sees what the thread wrote: the document ready, each passage with its vector.
    const [stored] = await database.db.select().from(knowledgeDocuments).where(eq(knowledgeDocuments.id, doc.id));
    expect(stored).toMatchObject({ status: "ready", progress: 100, pageCount: 2, embedded: true });
    const { rows } = await database.sql("select location, content, embedding is not null as embedded from knowledge_chunks where document_id = $1 order by position", [doc.id]);
    expect(rows.map((r) => r.content).join(" ")).toContain("Opening hours");
    expect(rows.every((r) => r.embedded === true)).toBe(true);
    expect(rows[0]!.location).toBe("page 1");
    expect(embeddings.requests).toHaveLength(1);

    expect(threadNices()).toContain(19);
    expect(getPriority()).toBe(before);
  });

  it("answers a rate limit for the queue to retry, and on the last attempt stores the passages for words alone", async () => {
    const doc = await newDocument("returns.pdf");
    const bytes = await makePdf([["Returns within 30 days."]]);
    embeddings.enqueue({ kind: "error", status: 429, headers: { "retry-after": "2" } });
    const retry = await thread.run({ doc, bytes, kind: "pdf", embeddings: access(), lastAttempt: false, fetchedAt: null });
    expect(retry).toMatchObject({ outcome: "retry", status: 429, retryAfterMs: 2000 });
    expect(await database.db.select().from(knowledgeChunks).where(eq(knowledgeChunks.documentId, doc.id))).toEqual([]);

    embeddings.enqueue({ kind: "error", status: 503 });
    const last = await thread.run({ doc, bytes, kind: "pdf", embeddings: access(), lastAttempt: true, fetchedAt: null });
    expect(last).toMatchObject({ outcome: "stored", written: true, embeddingsFailed: { code: expect.any(String) } });
    const [stored] = await database.db.select().from(knowledgeDocuments).where(eq(knowledgeDocuments.id, doc.id));
    expect(stored).toMatchObject({ status: "ready", embedded: false, chunkCount: 1 });
  });

  it("answers a document it cannot read with the reason, and goes on with the next", async () => {
    const doc = await newDocument("broken.pdf");
    expect(await thread.run({ doc, bytes: new TextEncoder().encode("not a PDF at all"), kind: "pdf", embeddings: null, lastAttempt: false, fetchedAt: null })).toMatchObject({
      outcome: "unreadable",
    });
    const next = await newDocument("next.pdf");
    const outcome = await thread.run({ doc: next, bytes: await makePdf([["Delivery takes two days."]]), kind: "pdf", embeddings: null, lastAttempt: false, fetchedAt: null });
    expect(outcome).toEqual({ outcome: "stored", written: true, embeddingsFailed: null });
  });

  it("ends a document still ingesting when the server closes as the job's to retry, not as the document's failure", async () => {
    const closing = createIngestionThread(() => database.link());
    const doc = await newDocument("closing.pdf");
    const requestsBefore = embeddings.requests.length;
    embeddings.enqueue({ kind: "hang" });
    const running = closing.run({ doc, bytes: await makePdf([["Closing time."]]), kind: "pdf", embeddings: access(), lastAttempt: false, fetchedAt: null });
    await expect.poll(() => embeddings.requests.length, { timeout: 20_000 }).toBeGreaterThan(requestsBefore);
    await closing.close();
    await expect(running).rejects.toBeInstanceOf(FailedOnThread);
  });

  it("ends a thread that hangs storing a document and answers for the job to retry; the next document gets a new thread", async () => {
    const hanging = createIngestionThread(() => database.link(), { storeTimeoutMs: 1_000 });
    try {
      const doc = await newDocument("hanging.pdf");
      embeddings.enqueue({ kind: "hang" });
      const bytes = await makePdf([["Opening hours are nine to five."]]);
      const failure: unknown = await hanging.run({ doc, bytes, kind: "pdf", embeddings: access(), lastAttempt: false, fetchedAt: null }).catch((err: unknown) => err);
      expect(failure).toBeInstanceOf(FailedOnThread);
      expect(failure).toHaveProperty("message", "the ingestion thread did not store the passages in time");
      expect(await hanging.run({ doc, bytes, kind: "pdf", embeddings: access(), lastAttempt: false, fetchedAt: null })).toEqual({ outcome: "stored", written: true, embeddingsFailed: null });
    } finally {
      await hanging.close();
    }
  });
});
