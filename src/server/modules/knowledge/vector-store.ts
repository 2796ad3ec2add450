/**
 * pgvector for the passages' embeddings, set up at start rather than in a migration (ADR 060):
 * the embedded database always has the extension; a PostgreSQL server may not, and the
 * migrations must hold there too. Where the extension can be had, this adds the `embedding`
 * column and its HNSW index (idempotent, so every start and every instance may run it; a server
 * that gains pgvector later gets them at its next start). Where it cannot, the knowledge bases
 * search by words only and the start says so once.
 */
import { sql } from "drizzle-orm";
import type { Db } from "../../db/client.ts";

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

/** Makes sure the column and index exist where pgvector can be had; answers whether they do. */
export async function ensureVectorStore(db: Db, logger: { warn(obj: object, msg: string): void }): Promise<boolean> {
  try {
    const available = await rows(db, sql`select 1 from pg_available_extensions where name = 'vector'`);
    if (available.length === 0) {
      logger.warn({}, PGVECTOR_MISSING_MESSAGE);
      return false;
    }
    await db.execute(sql`create extension if not exists vector`);
    await db.execute(sql.raw(`alter table knowledge_chunks add column if not exists embedding vector(${EMBEDDING_DIMENSIONS})`));
    // Cosine distance: OpenAI's embeddings are normalised, and the ranking is the same as inner product's.
    await createVectorIndex(db);
    return true;
  } catch (err) {
    // Another instance creating the same at once, or a role that may not create extensions.
    if (await hasEmbeddingColumn(db).catch(() => false)) return true;
    logger.warn({ err }, PGVECTOR_MISSING_MESSAGE);
    return false;
  }
}

/**
 * The HNSW index on the passages' vectors (cosine distance). A wider build search than pgvector's
 * default (ef_construction 64) makes a better graph, for better recall at the same query cost.
 */
export async function createVectorIndex(db: Db): Promise<void> {
  await db.execute(sql`create index if not exists knowledge_chunks_embedding_idx on knowledge_chunks using hnsw (embedding vector_cosine_ops) with (m = 16, ef_construction = 128)`);
}

/** pgvector's text form of a vector. */
export const vectorLiteral = (v: readonly number[]): string => `[${v.join(",")}]`;
