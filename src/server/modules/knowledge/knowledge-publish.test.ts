/**
 * A document's passages are written a few at a time (so a call's audio goes on between the
 * statements), yet a search or the whole-text read never sees part of a document: while one is
 * stored they see none of it or all of it, while one is replaced the old passages or the new ones,
 * and a run overtaken by a newer version leaves the old passages searchable and nothing behind.
 */
import { and, count, eq } from "drizzle-orm";
import { afterAll, beforeAll, expect, it } from "vitest";
import { freshDatabase } from "../../../../tests/harness.ts";
import { fakeEmbedding } from "../../../../tests/fakes/fake-embeddings.ts";
import type { Database } from "../../db/client.ts";
import { knowledgeBases, knowledgeChunks, knowledgeDocuments, organization } from "../../db/schema.ts";
import * as repo from "./knowledge.repo.ts";
import { EMBEDDING_DIMENSIONS, ensureVectorStore } from "./vector-store.ts";

let database: Database;
let vectors: boolean;
const ORG = "org-publish";
let baseId: string;

beforeAll(async () => {
  database = await freshDatabase();
  vectors = await ensureVectorStore(database.db, { warn: () => undefined });
  await database.db.insert(organization).values({ id: ORG, name: "Publish", slug: ORG });
  [{ id: baseId }] = await database.db.insert(knowledgeBases).values({ organizationId: ORG, name: "FAQ" }).returning({ id: knowledgeBases.id });
});
afterAll(() => database.close());

const QUESTION = "parcel locker opening";
const newDocument = async (name: string) => {
  const [doc] = await database.db.insert(knowledgeDocuments).values({ organizationId: ORG, knowledgeBaseId: baseId, name, source: "text", status: "processing" }).returning();
  return doc!;
};
const passages = (version: string, n: number) => Array.from({ length: n }, (_, i) => `Parcel locker opening ${version} number ${i}.`);
const store = (doc: Pick<repo.DocumentRow, "organizationId" | "knowledgeBaseId" | "id" | "generation">, texts: string[]) =>
  repo.replaceChunks(
    database.db,
    doc,
    texts.map((content) => ({ location: null, content })),
    vectors ? texts.map((t) => fakeEmbedding(t, EMBEDDING_DIMENSIONS)) : null,
    { pageCount: null, fetchedAt: null },
  );

/** What a search and the whole-text read see of the document named `name`, as one of the sets of texts. */
async function seen(name: string) {
  const vector = vectors ? fakeEmbedding(QUESTION, EMBEDDING_DIMENSIONS) : null;
  const found = await repo.searchPassages(database.db, ORG, [baseId], QUESTION, vector, 200);
  const whole = await repo.wholeText(database.db, ORG, [baseId]);
  const mine = <T extends { document_name: string }>(rows: T[], text: (r: T) => string) => rows.filter((r) => r.document_name === name).map(text).sort();
  return { searched: mine(found, (r) => r.text), whole: mine(whole, (r) => r.content) };
}

/** Reads what searches see, again and again, until `storing` settles; answers every distinct sight. */
async function watch(name: string, storing: Promise<boolean>) {
  let done = false;
  const settled = storing.finally(() => (done = true));
  const sights: { searched: string[]; whole: string[] }[] = [];
  while (!done) sights.push(await seen(name));
  return { result: await settled, sights };
}

const rowsOf = async (documentId: string) =>
  (await database.db.select({ n: count() }).from(knowledgeChunks).where(and(eq(knowledgeChunks.organizationId, ORG), eq(knowledgeChunks.documentId, documentId))))[0]!.n;

it("shows a document being stored as nothing until all of its passages are in", async () => {
  const doc = await newDocument("lockers.txt");
  const all = passages("v1", 30).sort();
  const { result, sights } = await watch("lockers.txt", store(doc, passages("v1", 30)));
  expect(result).toBe(true);
  expect(sights.length).toBeGreaterThan(1);
  for (const sight of sights) {
    expect([0, 30]).toContain(sight.whole.length);
    expect([[], all]).toContainEqual(sight.whole);
    expect([[], all]).toContainEqual(sight.searched);
  }
  expect(await seen("lockers.txt")).toEqual({ searched: all, whole: all });
});

it("shows a document being replaced as its old passages until the new ones are all in, then only those", async () => {
  const doc = await newDocument("hours.txt");
  await store(doc, passages("old", 12));
  const old = passages("old", 12).sort();
  const replacement = passages("new", 20).sort();
  const requeued = (await repo.requeueDocument(database.db, ORG, baseId, doc.id))!;
  const { result, sights } = await watch("hours.txt", store(requeued, passages("new", 20)));
  expect(result).toBe(true);
  for (const sight of sights) {
    expect([old, replacement]).toContainEqual(sight.whole);
    expect([old, replacement]).toContainEqual(sight.searched);
  }
  expect(await seen("hours.txt")).toEqual({ searched: replacement, whole: replacement });
  expect(await rowsOf(doc.id)).toBe(20);
});

it("keeps the old passages searchable, and leaves no row behind, when a newer version overtakes the run", async () => {
  const doc = await newDocument("returns.txt");
  await store(doc, passages("kept", 5));
  const kept = passages("kept", 5).sort();
  const running = store(doc, passages("overtaken", 150));
  // A re-process queued while the run writes: the run's generation is no longer the document's.
  await repo.requeueDocument(database.db, ORG, baseId, doc.id);
  expect(await running).toBe(false);
  expect(await seen("returns.txt")).toEqual({ searched: kept, whole: kept });
  expect(await rowsOf(doc.id)).toBe(5);
});
