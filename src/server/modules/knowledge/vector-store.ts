/**
 * pgvector for the passages' embeddings, set up at start rather than in a migration (ADR 060):
 * the embedded database always has the extension; a PostgreSQL server may not, and the
 * migrations must hold there too. Where the extension can be had, this adds the `embedding`
 * column and its HNSW index (idempotent, so every start and every instance may run it; a server
 * that gains pgvector later gets them at its next start). Where it cannot, the knowledge bases
 * search by words only and the start says so once.
 */
import { sql, type SQL } from "drizzle-orm";
import type { Database, Db } from "../../db/client.ts";
import { vectorLiteral } from "./vector-literal.ts";

/** Vectors are asked of the model at this length (text-embedding-3-* shorten theirs on request). */
export const EMBEDDING_DIMENSIONS = 512;

export const PGVECTOR_MISSING_MESSAGE =
  "The PostgreSQL server has no pgvector extension: knowledge bases search by words only. Install pgvector on the server (see the README, \"Knowledge bases\") and restart to search by meaning too.";

const rows = async (db: Db, query: ReturnType<typeof sql>) => {
  const result = (await db.execute(query)) as unknown as { rows: Record<string, unknown>[] };
  return result.rows;
};

export async function hasEmbeddingColumn(db: Db): Promise<boolean> {
  const found = await rows(db, sql`select 1 from information_schema.columns where table_name = 'knowledge_chunks' and column_name = 'embedding' and table_schema = current_schema()`);
  return found.length > 0;
}

/**
 * How the passages' vectors are indexed (ADR 090). On a PostgreSQL server at half precision
 * (pgvector's `halfvec` expression index): the index is half the size, so more of it stays in the
 * server's buffers and a search reads fewer pages. On the embedded database at full precision: its
 * WebAssembly has no half-float instructions, so each conversion is done in software (an index
 * built three times slower, searches no faster).
 */
export type VectorIndex = "half" | "full";

export const vectorIndexFor = (kind: Database["kind"]): VectorIndex => (kind === "postgres" ? "half" : "full");

const INDEX_NAME: Record<VectorIndex, string> = { full: "knowledge_chunks_embedding_idx", half: "knowledge_chunks_embedding_half_idx" };
/** The half-precision type the index and the searches' order cast to. */
const HALFVEC = `halfvec(${EMBEDDING_DIMENSIONS})`;
const INDEXED: Record<VectorIndex, string> = {
  full: "embedding vector_cosine_ops",
  half: `(embedding::${HALFVEC}) halfvec_cosine_ops`,
};

/**
 * Makes sure the column and index exist where pgvector can be had; answers the index searches
 * order by, or null without pgvector.
 */
export async function ensureVectorStore(db: Db, index: VectorIndex, logger: { warn(obj: object, msg: string): void }): Promise<VectorIndex | null> {
  try {
    const available = await rows(db, sql`select 1 from pg_available_extensions where name = 'vector'`);
    if (available.length === 0) {
      logger.warn({}, PGVECTOR_MISSING_MESSAGE);
      return null;
    }
    await db.execute(sql`create extension if not exists vector`);
    await db.execute(sql.raw(`alter table knowledge_chunks add column if not exists embedding vector(${EMBEDDING_DIMENSIONS})`));
    // Cosine distance: OpenAI's embeddings are normalised, and the ranking is the same as inner product's.
    await createVectorIndex(db, index);
    return index;
  } catch (err) {
    // Another instance creating the same at once, or a role that may not create extensions.
    if (await hasEmbeddingColumn(db).catch(() => false)) return index;
    logger.warn({ err }, PGVECTOR_MISSING_MESSAGE);
    return null;
  }
}

/**
 * The HNSW index on the passages' vectors (cosine distance), and the other form's dropped (a
 * server that had the full-precision one builds the half one once, at its next start). A wider
 * build search than pgvector's default (ef_construction 64) makes a better graph, for better
 * recall at the same query cost; bench:kb may try others.
 */
export async function createVectorIndex(db: Db, index: VectorIndex, build: { m: number; efConstruction: number } = { m: 16, efConstruction: 128 }): Promise<void> {
  await db.execute(sql.raw(`create index if not exists ${INDEX_NAME[index]} on knowledge_chunks using hnsw (${INDEXED[index]}) with (m = ${build.m}, ef_construction = ${build.efConstruction})`));
  await db.execute(sql.raw(`drop index if exists ${INDEX_NAME[index === "half" ? "full" : "half"]}`));
}

/** Drops the vector index, whichever form (bench:kb seeds without it). */
export async function dropVectorIndex(db: Db): Promise<void> {
  for (const name of Object.values(INDEX_NAME)) await db.execute(sql.raw(`drop index if exists ${name}`));
}

/** A passage's (`c`) cosine distance to the vector, in the form `index` orders by. */
export const indexedDistance = (index: VectorIndex, v: ArrayLike<number>): SQL =>
  index === "half"
    ? sql`c.embedding::${sql.raw(HALFVEC)} <=> ${vectorLiteral(v)}::${sql.raw(HALFVEC)}`
    : sql`c.embedding <=> ${vectorLiteral(v)}::vector`;
