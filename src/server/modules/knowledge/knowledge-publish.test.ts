/**
 * A document's passages are written a few at a time (so a call's audio goes on between the
 * statements), yet a search or the whole-text read never sees part of a document: while one is
 * stored they see none of it or all of it, while one is replaced the old passages or the new ones,
 * and a run overtaken by a newer version leaves the old passages searchable and nothing behind;
 * what a run that died while writing left goes once the document is stored again or fails.
 */
import { randomUUID } from "node:crypto";
import { and, count, eq } from "drizzle-orm";
import { afterAll, beforeAll, expect, it } from "vitest";
import { freshDatabase } from "../../../../tests/harness.ts";
import { fakeEmbedding } from "../../../../tests/fakes/fake-embeddings.ts";
import type { Database } from "../../db/client.ts";
import { knowledgeBases, knowledgeChunks, knowledgeDocuments, organization } from "../../db/schema.ts";
import * as repo from "./knowledge.repo.ts";
import { EMBEDDING_DIMENSIONS, ensureVectorStore, vectorIndexFor, type VectorIndex } from "./vector-store.ts";
import { vectorLiteral } from "./vector-literal.ts";

let database: Database;
let vectors: VectorIndex | null;
const ORG = "org-publish";
let baseId: string;

beforeAll(async () => {
  database = await freshDatabase();
  vectors = await ensureVectorStore(database.db, vectorIndexFor(database.kind), { warn: () => undefined });
  await database.db.insert(organization).values({ id: ORG, name: "Publish", slug: ORG });
  [{ id: baseId }] = await database.db.insert(knowledgeBases).values({ organizationId: ORG, name: "FAQ" }).returning({ id: knowledgeBases.id });
});
afterAll(() => database.close());

const newDocument = async (name: string) => {
  const [doc] = await database.db.insert(knowledgeDocuments).values({ organizationId: ORG, knowledgeBaseId: baseId, name, source: "text", status: "processing" }).returning();
  return doc!;
};
/** Each document's passages name its own word (the question's), so a search can return all of them. */
const passages = (topic: string, version: string, n: number) => Array.from({ length: n }, (_, i) => `The ${topic} rules, ${version} edition, number ${i}.`);
const store = (doc: Pick<repo.DocumentRow, "organizationId" | "knowledgeBaseId" | "id" | "generation">, texts: string[], pace?: (rows: number) => number) =>
  repo.replaceChunks(
    database.db,
    doc,
    texts.map((content) => ({ location: null, content })),
    vectors ? texts.map((t) => vectorLiteral(fakeEmbedding(t, EMBEDDING_DIMENSIONS))) : null,
    { pageCount: null, fetchedAt: null },
    pace,
  );

/** What a search for `topic` and the whole-text read see of the document named `name`, sorted. */
async function seen(name: string, topic: string) {
  const vector = vectors ? { values: fakeEmbedding(`${topic} rules`, EMBEDDING_DIMENSIONS), index: vectors } : null;
  const found = await repo.searchPassages(database.db, ORG, [baseId], `${topic} rules`, vector, 200);
  const whole = await repo.wholeText(database.db, ORG, [baseId]);
  const mine = <T extends { document_name: string }>(rows: T[], text: (r: T) => string) => rows.filter((r) => r.document_name === name).map(text).sort();
  return { searched: mine(found, (r) => r.text), whole: mine(whole, (r) => r.content) };
}

const within = (texts: string[], set: string[]) => texts.every((t) => set.includes(t));

/** Reads what searches see, again and again, until `storing` settles; answers every distinct sight. */
async function watch(name: string, topic: string, storing: Promise<boolean>) {
  let done = false;
  const settled = storing.finally(() => (done = true));
  const sights: { searched: string[]; whole: string[] }[] = [];
  while (!done) sights.push(await seen(name, topic));
  return { result: await settled, sights };
}

const rowsOf = async (documentId: string) =>
  (await database.db.select({ n: count() }).from(knowledgeChunks).where(and(eq(knowledgeChunks.organizationId, ORG), eq(knowledgeChunks.documentId, documentId))))[0]!.n;

it("shows a document being stored as nothing until all of its passages are in", async () => {
  const doc = await newDocument("lockers.txt");
  const all = passages("zephyrlocker", "first", 40).sort();
  const { result, sights } = await watch("lockers.txt", "zephyrlocker", store(doc, all));
  expect(result).toBe(true);
  expect(sights.length).toBeGreaterThan(1);
  for (const sight of sights) {
    expect([[], all]).toContainEqual(sight.whole);
    // A search answers its best passages: none of the document's, or only passages of the whole of it.
    expect(sight.searched.length === 0 || sight.whole.length === all.length).toBe(true);
  }
  expect(await seen("lockers.txt", "zephyrlocker")).toEqual({ searched: all, whole: all });
});

it("shows a document being replaced as its old passages until the new ones are all in, then only those", async () => {
  const doc = await newDocument("hours.txt");
  const old = passages("quokkahours", "old", 12).sort();
  const replacement = passages("quokkahours", "new", 20).sort();
  await store(doc, old);
  const requeued = (await repo.requeueDocument(database.db, ORG, baseId, doc.id))!;
  const { result, sights } = await watch("hours.txt", "quokkahours", store(requeued, replacement));
  expect(result).toBe(true);
  for (const sight of sights) {
    expect([old, replacement]).toContainEqual(sight.whole);
    expect(within(sight.searched, old) || within(sight.searched, replacement)).toBe(true);
  }
  expect(await seen("hours.txt", "quokkahours")).toEqual({ searched: replacement, whole: replacement });
  expect(await rowsOf(doc.id)).toBe(20);
});

it("keeps the old passages searchable, and leaves no row behind, when a newer version overtakes the run", async () => {
  const doc = await newDocument("returns.txt");
  const kept = passages("wombatreturns", "kept", 5).sort();
  await store(doc, kept);
  const running = store(doc, passages("wombatreturns", "overtaken", 150));
  // A re-process queued while the run writes: the run's generation is no longer the document's.
  await repo.requeueDocument(database.db, ORG, baseId, doc.id);
  expect(await running).toBe(false);
  expect(await seen("returns.txt", "wombatreturns")).toEqual({ searched: kept, whole: kept });
  expect(await rowsOf(doc.id)).toBe(5);
});

it("never publishes part of a set when two runs of one version overlap (a job retried beside one still running)", async () => {
  const doc = await newDocument("overlap.txt");
  const texts = passages("wombatoverlap", "whole", 40).sort();
  // The run still going writes a row a statement, the retry the rest at once: whichever publishes
  // first drops what the other had written by then, and the other publishes nothing.
  const published = await Promise.all([store(doc, texts, () => 1), store(doc, texts, () => 64)]);
  expect(published.filter(Boolean)).toHaveLength(1);
  expect(await seen("overlap.txt", "wombatoverlap")).toEqual({ searched: texts, whole: texts });
  expect(await rowsOf(doc.id)).toBe(40);
});

it("drops what a run that died while writing left once the document fails, and keeps its published passages", async () => {
  const doc = await newDocument("refresh.txt");
  const kept = passages("wombatrefresh", "kept", 4).sort();
  await store(doc, kept);
  // A run whose process ended mid-write: its rows under a set never published.
  const dead = passages("wombatrefresh", "dead", 3).map((content, position) => ({ organizationId: ORG, knowledgeBaseId: baseId, documentId: doc.id, passageSet: randomUUID(), position, content }));
  await database.db.insert(knowledgeChunks).values(dead);
  expect(await rowsOf(doc.id)).toBe(7);

  // Its retry fails (a refresh whose page is gone): the dead rows go, the last good text stays.
  await repo.failDocument(database.db, ORG, doc.id, doc.generation, "The page answered 404");
  expect(await rowsOf(doc.id)).toBe(4);
  expect(await seen("refresh.txt", "wombatrefresh")).toEqual({ searched: kept, whole: kept });

  // Never published: nothing of it is left.
  const never = await newDocument("never.txt");
  await database.db.insert(knowledgeChunks).values(dead.map((row) => ({ ...row, documentId: never.id })));
  await repo.failDocument(database.db, ORG, never.id, never.generation, "The file has no text");
  expect(await rowsOf(never.id)).toBe(0);
});

it("writes the passages in statements sized by the pace, one row first", async () => {
  const doc = await newDocument("pace.txt");
  const texts = passages("ibexpace", "paced", 23);
  const sizes: number[] = [];
  const written = await store(doc, texts, (rows) => (sizes.push(rows), 5));
  expect(written).toBe(true);
  // One row, then the pace's five a statement, the last one the rest: each statement's rows told to the pace.
  expect(sizes).toEqual([1, 5, 5, 5, 5, 2]);
  expect(await rowsOf(doc.id)).toBe(23);
});
