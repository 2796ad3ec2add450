/**
 * The knowledge bases' tables. Every query is scoped to `organizationId` (and, for documents and
 * passages, to their base): another organisation's rows are invisible, never forbidden.
 */
import { randomUUID } from "node:crypto";
import { and, asc, count, eq, inArray, isNull, lt, ne, or, sql, type SQL } from "drizzle-orm";
import type { Page, PageQuery } from "../../../shared/pages.ts";
import type { Db } from "../../db/client.ts";
import { keysetPage, keysetQuery, newestFirst, pageNewestFirst } from "../../db/keyset.ts";
import { knowledgeBases, knowledgeChunks, knowledgeDocuments } from "../../db/schema.ts";
import type { Chunk } from "./chunk.ts";
import { FIRST_ROWS, nextRows } from "./store-pace.ts";
import { vectorLiteral } from "./vector-literal.ts";
import { indexedDistance, type VectorIndex } from "./vector-store.ts";

export type BaseRow = typeof knowledgeBases.$inferSelect & { documentCount: number; chunkCount: number };
export type DocumentRow = typeof knowledgeDocuments.$inferSelect;

// Qualified by hand: inside the subquery an unqualified "id" would be the document's.
const counts = {
  documentCount: sql<number>`(select count(*)::int from knowledge_documents d where d.knowledge_base_id = "knowledge_bases"."id")`,
  chunkCount: sql<number>`(select coalesce(sum(d.chunk_count), 0)::int from knowledge_documents d where d.knowledge_base_id = "knowledge_bases"."id")`,
};

/** A page of the organisation's knowledge bases, newest first: the keyset in SQL (db/keyset.ts). */
export async function pageBases(db: Db, organizationId: string, query: PageQuery): Promise<Page<BaseRow>> {
  const q = keysetQuery(newestFirst(knowledgeBases.createdAt, knowledgeBases.id), query);
  const rows = await db
    .select({ ...tableColumns(), ...counts, page_key: q.key })
    .from(knowledgeBases)
    .where(and(eq(knowledgeBases.organizationId, organizationId), q.after))
    .orderBy(...q.orderBy)
    .limit(q.limit);
  return keysetPage(rows, query.limit);
}

function tableColumns() {
  const { id, organizationId, name, description, createdAt, updatedAt } = knowledgeBases;
  return { id, organizationId, name, description, createdAt, updatedAt };
}

export async function findBase(db: Db, organizationId: string, id: string): Promise<BaseRow | null> {
  const [row] = await db
    .select({ ...tableColumns(), ...counts })
    .from(knowledgeBases)
    .where(and(eq(knowledgeBases.organizationId, organizationId), eq(knowledgeBases.id, id)));
  return row ?? null;
}

/** The organisation's bases among `ids` (unknown ids are absent). */
export async function findOwnBaseIds(db: Db, organizationId: string, ids: readonly string[]): Promise<string[]> {
  if (ids.length === 0) return [];
  const found = await db
    .select({ id: knowledgeBases.id })
    .from(knowledgeBases)
    .where(and(eq(knowledgeBases.organizationId, organizationId), inArray(knowledgeBases.id, [...ids])));
  return found.map((r) => r.id);
}

export async function countBases(db: Db, organizationId: string): Promise<number> {
  const [row] = await db.select({ n: sql<number>`count(*)::int` }).from(knowledgeBases).where(eq(knowledgeBases.organizationId, organizationId));
  return row?.n ?? 0;
}

export async function insertBase(db: Db, organizationId: string, values: { name: string; description: string | null }): Promise<string> {
  const [row] = await db.insert(knowledgeBases).values({ organizationId, ...values }).returning({ id: knowledgeBases.id });
  return row!.id;
}

export async function updateBase(db: Db, organizationId: string, id: string, values: { name?: string; description?: string | null }): Promise<boolean> {
  const rows = await db
    .update(knowledgeBases)
    .set({ ...values, updatedAt: new Date() })
    .where(and(eq(knowledgeBases.organizationId, organizationId), eq(knowledgeBases.id, id)))
    .returning({ id: knowledgeBases.id });
  return rows.length > 0;
}

/** Deletes the base with its documents and passages (one statement, cascading); answers the stored originals' keys. */
export async function deleteBase(db: Db, organizationId: string, id: string): Promise<{ deleted: boolean; storageKeys: string[] }> {
  return db.transaction(async (tx) => {
    const docs = await tx
      .select({ key: knowledgeDocuments.storageKey })
      .from(knowledgeDocuments)
      .where(and(eq(knowledgeDocuments.organizationId, organizationId), eq(knowledgeDocuments.knowledgeBaseId, id)));
    // Passages name their base without a foreign key (the hot index stays narrow): removed here.
    await tx.delete(knowledgeChunks).where(and(eq(knowledgeChunks.organizationId, organizationId), eq(knowledgeChunks.knowledgeBaseId, id)));
    const rows = await tx
      .delete(knowledgeBases)
      .where(and(eq(knowledgeBases.organizationId, organizationId), eq(knowledgeBases.id, id)))
      .returning({ id: knowledgeBases.id });
    return { deleted: rows.length > 0, storageKeys: docs.flatMap((d) => (d.key ? [d.key] : [])) };
  });
}

/** A page of a base's documents, newest first. */
export const pageDocuments = (db: Db, organizationId: string, baseId: string, query: PageQuery): Promise<Page<DocumentRow>> =>
  pageNewestFirst(db, knowledgeDocuments, and(eq(knowledgeDocuments.organizationId, organizationId), eq(knowledgeDocuments.knowledgeBaseId, baseId)), query);

export async function findDocument(db: Db, organizationId: string, baseId: string, id: string): Promise<DocumentRow | null> {
  const [row] = await db
    .select()
    .from(knowledgeDocuments)
    .where(and(eq(knowledgeDocuments.organizationId, organizationId), eq(knowledgeDocuments.knowledgeBaseId, baseId), eq(knowledgeDocuments.id, id)));
  return row ?? null;
}

/** A document's name by its id alone (the audit log's name of a deletion). */
export async function findDocumentName(db: Db, organizationId: string, id: string): Promise<string | null> {
  const [row] = await db
    .select({ name: knowledgeDocuments.name })
    .from(knowledgeDocuments)
    .where(and(eq(knowledgeDocuments.organizationId, organizationId), eq(knowledgeDocuments.id, id)));
  return row?.name ?? null;
}

export async function countDocuments(db: Db, organizationId: string, baseId: string): Promise<number> {
  const [row] = await db
    .select({ n: sql<number>`count(*)::int` })
    .from(knowledgeDocuments)
    .where(and(eq(knowledgeDocuments.organizationId, organizationId), eq(knowledgeDocuments.knowledgeBaseId, baseId)));
  return row?.n ?? 0;
}

export type NewDocument = Pick<DocumentRow, "name" | "source" | "url" | "refresh" | "contentType" | "storageKey" | "sizeBytes">;

export async function insertDocument(db: Db, organizationId: string, baseId: string, values: NewDocument & { id?: string }): Promise<DocumentRow> {
  const [row] = await db
    .insert(knowledgeDocuments)
    .values({ organizationId, knowledgeBaseId: baseId, ...values })
    .returning();
  return row!;
}

/** Queued again (re-process, replace, a URL's refresh): a new generation the job will carry. */
export async function requeueDocument(db: Db, organizationId: string, baseId: string, id: string, replace?: Partial<NewDocument>): Promise<DocumentRow | null> {
  const [row] = await db
    .update(knowledgeDocuments)
    .set({ ...replace, status: "queued", progress: 0, error: null, generation: sql`${knowledgeDocuments.generation} + 1`, updatedAt: new Date() })
    .where(and(eq(knowledgeDocuments.organizationId, organizationId), eq(knowledgeDocuments.knowledgeBaseId, baseId), eq(knowledgeDocuments.id, id)))
    .returning();
  return row ?? null;
}

/** Removes the document and, by cascade in the same statement, its passages. */
export async function deleteDocument(db: Db, organizationId: string, baseId: string, id: string): Promise<DocumentRow | null> {
  const [row] = await db
    .delete(knowledgeDocuments)
    .where(and(eq(knowledgeDocuments.organizationId, organizationId), eq(knowledgeDocuments.knowledgeBaseId, baseId), eq(knowledgeDocuments.id, id)))
    .returning();
  return row ?? null;
}

// ── The ingestion job's writes: each only for the generation it was queued for ─────────────────

const current = (organizationId: string, id: string, generation: number) =>
  and(eq(knowledgeDocuments.organizationId, organizationId), eq(knowledgeDocuments.id, id), eq(knowledgeDocuments.generation, generation));

export async function findForJob(db: Db, organizationId: string, id: string, generation: number): Promise<DocumentRow | null> {
  const [row] = await db.select().from(knowledgeDocuments).where(current(organizationId, id, generation));
  return row ?? null;
}

export async function setProgress(db: Db, organizationId: string, id: string, generation: number, progress: number): Promise<void> {
  await db.update(knowledgeDocuments).set({ status: "processing", progress }).where(current(organizationId, id, generation));
}

export async function failDocument(db: Db, organizationId: string, id: string, generation: number, error: string, fetched?: { at: Date; error: string | null }): Promise<void> {
  await db.transaction(async (tx) => {
    const [failed] = await tx
      .update(knowledgeDocuments)
      .set({ status: "failed", progress: 0, error, ...(fetched ? { lastFetchedAt: fetched.at, lastFetchError: fetched.error } : {}), updatedAt: new Date() })
      .where(current(organizationId, id, generation))
      .returning({ passageSet: knowledgeDocuments.passageSet });
    if (!failed) return;
    // Passages of no published set: an earlier run of this generation that ended with its process
    // while writing them (its retry is the run failing now), which no publish will ever drop. The
    // published set stays searchable (a failed refresh keeps the last good text); no newer run can
    // be writing meanwhile, as its requeue waits on this transaction's row lock.
    await dropOtherSets(tx, { organizationId, id }, failed.passageSet);
  });
}

/** Every passage of the document but those of `set`, in the transaction that settles the document. */
function dropOtherSets(tx: Db, doc: Pick<DocumentRow, "organizationId" | "id">, set: string) {
  return tx.delete(knowledgeChunks).where(and(eq(knowledgeChunks.organizationId, doc.organizationId), eq(knowledgeChunks.documentId, doc.id), ne(knowledgeChunks.passageSet, set)));
}

/** The document's passages written under `set` (one run's). */
const ofSet = (doc: Pick<DocumentRow, "organizationId" | "id">, set: string) =>
  and(eq(knowledgeChunks.organizationId, doc.organizationId), eq(knowledgeChunks.documentId, doc.id), eq(knowledgeChunks.passageSet, set));

/** Rows between two checks that the run is still the document's current generation. */
const SUPERSEDED_CHECK_ROWS = 64;

/** Rows per delete statement when a run's unpublished passages are cleared away. */
const CLEAR_BATCH = 64;

/**
 * The document's passages swapped for `chunks`, with its state; false (nothing searchable
 * written) for a superseded generation, or when another run of this one published first. The
 * rows go in statement by statement under a new passage set, which no search sees; one small
 * transaction then makes the set the document's, and drops the old one: a search sees the old
 * passages or the new ones, never a mix or a part (ADR 080).
 */
export async function replaceChunks(
  db: Db,
  doc: Pick<DocumentRow, "organizationId" | "knowledgeBaseId" | "id" | "generation">,
  chunks: readonly Chunk[],
  /** Each passage's vector in pgvector's text (`vectorLiteral`), or null: found by words only. */
  vectors: readonly string[] | null,
  meta: { pageCount: number | null; fetchedAt: Date | null },
  /** The next statement's rows after one took so long (bench:kb's seeding writes in bulk). */
  pace: (rows: number, tookMs: number) => number = nextRows,
): Promise<boolean> {
  const set = randomUUID();
  const clear = () => clearPassageSet(db, doc, set);
  try {
    // Statements sized to a time budget (store-pace.ts), one short turn of the database each
    // outside a transaction (db/client.ts): a call's audio goes on between them.
    let rows = FIRST_ROWS;
    let nextCheck = SUPERSEDED_CHECK_ROWS;
    for (let at = 0; at < chunks.length; ) {
      await new Promise((resolve) => setImmediate(resolve));
      if (at >= nextCheck) {
        nextCheck = at + SUPERSEDED_CHECK_ROWS;
        if (!(await findForJob(db, doc.organizationId, doc.id, doc.generation))) {
          await clear();
          return false;
        }
      }
      const batch = chunks.slice(at, at + rows);
      const started = performance.now();
      await insertPassages(db, doc, set, at, batch, vectors);
      at += batch.length;
      rows = pace(batch.length, performance.now() - started);
    }
    const published = await db.transaction(async (tx) => {
      // The document's row first (a run of the same version publishing now waits here), then this
      // run's rows: a run of the same version that published first (a job retried beside one still
      // running) dropped what this one had written by then, and part of a set is never published.
      const [locked] = await tx.select({ id: knowledgeDocuments.id }).from(knowledgeDocuments).where(current(doc.organizationId, doc.id, doc.generation)).for("no key update");
      if (!locked) return false;
      const [{ rows: kept }] = await tx
        .select({ rows: count() })
        .from(knowledgeChunks)
        .where(ofSet(doc, set));
      if (kept !== chunks.length) return false;
      await tx
        .update(knowledgeDocuments)
        .set({
          status: "ready",
          progress: 100,
          error: null,
          chunkCount: chunks.length,
          pageCount: meta.pageCount,
          embedded: vectors !== null,
          passageSet: set,
          ...(meta.fetchedAt ? { lastFetchedAt: meta.fetchedAt, lastFetchError: null } : {}),
          updatedAt: new Date(),
        })
        .where(current(doc.organizationId, doc.id, doc.generation));
      // The previous set, and any set a crashed or superseded run left: none is searchable now.
      // No newer run can be writing yet: its requeue waits on this transaction's row lock.
      await dropOtherSets(tx, doc, set);
      return true;
    });
    if (!published) await clear();
    return published;
  } catch (err) {
    await clear().catch(() => undefined);
    throw err;
  }
}

async function insertPassages(
  db: Db,
  doc: Pick<DocumentRow, "organizationId" | "knowledgeBaseId" | "id">,
  set: string,
  from: number,
  chunks: readonly Chunk[],
  vectors: readonly string[] | null,
): Promise<void> {
  const values = chunks.map((c, i) => {
    const row = sql`${doc.organizationId}, ${doc.knowledgeBaseId}, ${doc.id}, ${set}::uuid, ${from + i}, ${c.location}, ${c.content}`;
    return vectors ? sql`(${row}, ${vectors[from + i]!}::vector)` : sql`(${row})`;
  });
  const columns = sql.raw(`(organization_id, knowledge_base_id, document_id, passage_set, position, location, content${vectors ? ", embedding" : ""})`);
  await db.execute(sql`insert into knowledge_chunks ${columns} values ${sql.join(values, sql`, `)}`);
}

/** A run's passages that were never made searchable, deleted in small statements. */
async function clearPassageSet(db: Db, doc: Pick<DocumentRow, "organizationId" | "id">, set: string): Promise<void> {
  const batch = db
    .select({ id: knowledgeChunks.id })
    .from(knowledgeChunks)
    .where(ofSet(doc, set))
    .limit(CLEAR_BATCH);
  for (;;) {
    const deleted = await db.delete(knowledgeChunks).where(inArray(knowledgeChunks.id, batch)).returning({ id: knowledgeChunks.id });
    if (deleted.length < CLEAR_BATCH) return;
    await new Promise((resolve) => setImmediate(resolve));
  }
}

/** URL documents due for their daily or weekly fetch (a sweep across organisations, like retention's). */
export function dueForRefresh(db: Db, now: Date): Promise<Pick<DocumentRow, "organizationId" | "knowledgeBaseId" | "id">[]> {
  const day = new Date(now.getTime() - 24 * 3_600_000);
  const week = new Date(now.getTime() - 7 * 24 * 3_600_000);
  return db
    .select({ organizationId: knowledgeDocuments.organizationId, knowledgeBaseId: knowledgeDocuments.knowledgeBaseId, id: knowledgeDocuments.id })
    .from(knowledgeDocuments)
    .where(
      and(
        eq(knowledgeDocuments.source, "url"),
        inArray(knowledgeDocuments.status, ["ready", "failed"]),
        or(
          and(eq(knowledgeDocuments.refresh, "daily"), or(isNull(knowledgeDocuments.lastFetchedAt), lt(knowledgeDocuments.lastFetchedAt, day))),
          and(eq(knowledgeDocuments.refresh, "weekly"), or(isNull(knowledgeDocuments.lastFetchedAt), lt(knowledgeDocuments.lastFetchedAt, week))),
        ),
      ),
    )
    .limit(500);
}

// ── Retrieval ─────────────────────────────────────────────────────────────────────────────────

export interface PassageRow {
  document_id: string;
  document_name: string;
  location: string | null;
  text: string;
  score: number;
}

/**
 * Only a document's published passages (`replaceChunks`), never a set still being written. A
 * scalar subquery, evaluated per candidate as a filter: the planner cannot turn it into a join,
 * so the vector half stays an ordered HNSW scan (its iterative scan makes up for what is dropped).
 */
const publishedOnly = sql`c.passage_set = (select d.passage_set from knowledge_documents d where d.id = c.document_id)`;

/** Each ranking contributes 1 / (RRF_K + rank): the constant of the reciprocal-rank-fusion paper. */
const RRF_K = 60;
/** How deep each ranking is read before fusing. */
const CANDIDATES = 40;
/**
 * HNSW candidates looked at per scan (pgvector's default is 40): at 100,000 passages recall@5
 * 0.99–1.000 against exact search (1.000 at 200, 0.96 at 40) for a fifth less time (bench:kb).
 */
export const EF_SEARCH = 100;
/**
 * At most about this many passages are ranked by words: ranking reads each matching passage, so a
 * question's common words ("order", "hours") would rank most of a base. Its rarer words, whose
 * passages together stay within this, carry the match (as inverse document frequency would).
 */
const WORD_MATCH_BUDGET = 250;

/** A lexeme quoted for tsquery input: quotes and backslashes doubled. */
const quoteLexeme = (lexeme: string) => `'${lexeme.replace(/\\/g, "\\\\").replace(/'/g, "''")}'`;

/**
 * The words to search by, as a tsquery's text: the question's rarest lexemes in these bases whose
 * passages fit the budget, any of them; when even the rarest is common, all of them together
 * (the index intersects their lists). Null when no word of the question is in the bases.
 */
async function wordQuery(db: Db, organizationId: string, bases: SQL, query: string): Promise<string | null> {
  // Each (base, lexeme) of the question looked up by the key, one probe each. `offset 0` keeps the
  // probes apart: joined, a planner without the table's statistics (before its first analyse)
  // read every word of the base and filtered (2 ms on the server at 5,000 words).
  const result = await db.execute(sql`select q.lexeme, sum(t.passages)::int as passages
    from unnest(array[${bases}]) b(id) cross join unnest(tsvector_to_array(to_tsvector('english', ${query}))) q(lexeme)
    cross join lateral (select passages from knowledge_terms
      where organization_id = ${organizationId} and knowledge_base_id = b.id and lexeme = q.lexeme offset 0) t
    group by q.lexeme order by 2, 1`);
  const found = (result as unknown as { rows: { lexeme: string; passages: number }[] }).rows;
  if (found.length === 0) return null;
  const rare: string[] = [];
  let total = 0;
  for (const { lexeme, passages } of found) {
    if (total + passages > WORD_MATCH_BUDGET) break;
    rare.push(lexeme);
    total += passages;
  }
  return rare.length > 0 ? rare.map(quoteLexeme).join(" | ") : found.map((r) => quoteLexeme(r.lexeme)).join(" & ");
}

/**
 * Hybrid retrieval, filtered by organisation and base in SQL: the `CANDIDATES` nearest passages
 * by cosine distance (HNSW, with pgvector's iterative scan so the filter cannot starve it) and the
 * best by full-text rank (the question's rarer words: `wordQuery`), fused by reciprocal rank.
 * Without a query vector, words only.
 */
export async function searchPassages(db: Db, organizationId: string, baseIds: readonly string[], query: string, vector: QueryVector | null, limit: number, efSearch = EF_SEARCH): Promise<PassageRow[]> {
  if (baseIds.length === 0) return [];
  const bases = sql.join(baseIds.map((id) => sql`${id}::uuid`), sql`, `);
  const scope = sql`c.organization_id = ${organizationId} and c.knowledge_base_id in (${bases}) and ${publishedOnly}`;
  const words = await wordQuery(db, organizationId, bases, query);
  const text = words
    ? sql`select c.id, row_number() over (order by ts_rank_cd(c.search, ${words}::tsquery) desc, c.id) as r
    from knowledge_chunks c where ${scope} and c.search @@ ${words}::tsquery order by ts_rank_cd(c.search, ${words}::tsquery) desc, c.id limit ${CANDIDATES}`
    : sql`select null::uuid as id, null::bigint as r where false`;
  const fused = (vec: ReturnType<typeof sql>) => sql`with txt as (${text}), vec as (${vec})
    select c.document_id, d.name as document_name, c.location, c.content as text,
      (coalesce(1.0 / (${RRF_K} + vec.r), 0) + coalesce(1.0 / (${RRF_K} + txt.r), 0))::float8 as score
    from (select id from txt union select id from vec) ids
    join knowledge_chunks c on c.id = ids.id
    join knowledge_documents d on d.id = c.document_id and d.organization_id = c.organization_id
    left join txt on txt.id = ids.id left join vec on vec.id = ids.id
    order by score desc, c.document_id, c.position limit ${limit}`;
  if (!vector) {
    const result = await db.execute(fused(sql`select null::uuid as id, null::bigint as r where false`));
    return (result as unknown as { rows: PassageRow[] }).rows;
  }
  const near = sql`select id, row_number() over (order by distance, id) as r from (${nearest(scope, vector)}) n`;
  return inVectorScan(db, efSearch, async (tx) => (await tx.execute(fused(near))) as unknown as { rows: PassageRow[] }).then((result) => result.rows);
}

/** A question's vector, and the form of the index its search orders by (vector-store.ts). */
export interface QueryVector {
  values: ArrayLike<number>;
  index: VectorIndex;
}

/**
 * The `CANDIDATES` passages nearest the vector by cosine distance, as the HNSW index finds them
 * (unordered), each with its full-precision distance (a half-precision index's order is ranked
 * again by it).
 */
const nearest = (scope: SQL, vector: QueryVector) =>
  sql`select c.id, c.embedding <=> ${vectorLiteral(vector.values)}::vector as distance from knowledge_chunks c
    where ${scope} and c.embedding is not null order by ${indexedDistance(vector.index, vector.values)} limit ${CANDIDATES}`;

/** Runs a statement with the vector half's scan settings. */
function inVectorScan<T>(db: Db, efSearch: number, run: (tx: Parameters<Parameters<Db["transaction"]>[0]>[0]) => Promise<T>): Promise<T> {
  return db.transaction(async (tx) => {
    // Filtered HNSW scans go on past the first ef_search candidates until enough rows pass (pgvector
    // 0.8); relaxed order, since the candidates are ranked again by distance afterwards. Both
    // settings in one statement (one round trip), for this transaction only.
    await tx.execute(sql`select set_config('hnsw.iterative_scan', 'relaxed_order', true), set_config('hnsw.ef_search', ${String(efSearch)}, true)`);
    return run(tx);
  });
}

/**
 * The vector half's candidates (id and distance), nearest first, as retrieval sees them (bench:kb's
 * recall); `filtered: false` scans the index with no organisation or base (what the filter costs).
 */
export async function candidateDistances(db: Db, organizationId: string, baseId: string, vector: QueryVector, efSearch = EF_SEARCH, filtered = true): Promise<{ id: string; distance: number }[]> {
  const scope = filtered ? sql`c.organization_id = ${organizationId} and c.knowledge_base_id = ${baseId}::uuid and ${publishedOnly}` : sql`true`;
  const result = (await inVectorScan(db, efSearch, (tx) => tx.execute(nearest(scope, vector)))) as unknown as { rows: { id: string; distance: number }[] };
  return result.rows.map((r) => ({ id: r.id, distance: Number(r.distance) })).sort((a, b) => a.distance - b.distance);
}

/** The bases' whole text, in document and passage order (for "place the whole text in the instructions"). */
export async function wholeText(db: Db, organizationId: string, baseIds: readonly string[]): Promise<{ document_name: string; location: string | null; content: string }[]> {
  if (baseIds.length === 0) return [];
  return db
    .select({ document_name: knowledgeDocuments.name, location: knowledgeChunks.location, content: knowledgeChunks.content })
    .from(knowledgeChunks)
    .innerJoin(knowledgeDocuments, and(eq(knowledgeDocuments.id, knowledgeChunks.documentId), eq(knowledgeDocuments.passageSet, knowledgeChunks.passageSet)))
    .where(and(eq(knowledgeChunks.organizationId, organizationId), inArray(knowledgeChunks.knowledgeBaseId, [...baseIds])))
    .orderBy(asc(knowledgeDocuments.createdAt), asc(knowledgeDocuments.id), asc(knowledgeChunks.position));
}

/** Whether any passage of these bases has an embedding (else a search need not embed the question). */
export async function anyEmbedded(db: Db, organizationId: string, baseIds: readonly string[]): Promise<boolean> {
  if (baseIds.length === 0) return false;
  const [row] = await db
    .select({ id: knowledgeDocuments.id })
    .from(knowledgeDocuments)
    .where(and(eq(knowledgeDocuments.organizationId, organizationId), inArray(knowledgeDocuments.knowledgeBaseId, [...baseIds]), eq(knowledgeDocuments.embedded, true)))
    .limit(1);
  return Boolean(row);
}
