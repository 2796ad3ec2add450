/**
 * The vector index each database keeps (half precision on a PostgreSQL server, full on the
 * embedded one), a server's index of the other form replaced at start, and searches ordering by
 * the form kept: else the planner cannot use the index and every search reads every passage.
 */
import { sql } from "drizzle-orm";
import { afterAll, beforeAll, expect, it } from "vitest";
import { freshDatabase } from "../../../../tests/harness.ts";
import { fakeEmbedding } from "../../../../tests/fakes/fake-embeddings.ts";
import type { Database } from "../../db/client.ts";
import { knowledgeBases, knowledgeDocuments, organization } from "../../db/schema.ts";
import * as repo from "./knowledge.repo.ts";
import { EMBEDDING_DIMENSIONS, ensureVectorStore, indexedDistance, vectorIndexFor } from "./vector-store.ts";
import { vectorLiteral } from "./vector-literal.ts";

const ORG = "org-vector-index";
let database: Database;
const quiet = { warn: () => undefined };
const rows = async <T>(query: ReturnType<typeof sql>) => ((await database.db.execute(query)) as unknown as { rows: T[] }).rows;

beforeAll(async () => {
  database = await freshDatabase();
});
afterAll(() => database.close());

it("keeps one vector index, of its database's form, and searches by it", async () => {
  const kept = vectorIndexFor(database.kind);
  expect(kept).toBe(database.kind === "postgres" ? "half" : "full");
  const other = kept === "half" ? "full" : "half";
  // As a server from before half precision started: the other form's index in place.
  expect(await ensureVectorStore(database.db, other, quiet)).toBe(other);
  expect(await ensureVectorStore(database.db, kept, quiet)).toBe(kept);

  const indexes = await rows<{ indexdef: string }>(sql`select indexdef from pg_indexes where tablename = 'knowledge_chunks' and indexdef like '%hnsw%'`);
  expect(indexes).toHaveLength(1);
  expect(indexes[0]!.indexdef).toContain(kept === "half" ? "halfvec_cosine_ops" : "vector_cosine_ops");

  await database.db.insert(organization).values({ id: ORG, name: "Vectors", slug: ORG });
  const [base] = await database.db.insert(knowledgeBases).values({ organizationId: ORG, name: "FAQ" }).returning();
  const [doc] = await database.db.insert(knowledgeDocuments).values({ organizationId: ORG, knowledgeBaseId: base!.id, name: "faq.txt", source: "text", status: "processing" }).returning();
  const texts = ["Returns are accepted within 30 days.", "Deliveries take two working days.", "The shop opens at nine on Saturdays."];
  await repo.replaceChunks(database.db, doc!, texts.map((content) => ({ location: null, content })), texts.map((t) => vectorLiteral(fakeEmbedding(t, EMBEDDING_DIMENSIONS))), { pageCount: null, fetchedAt: null });

  // With sequential scans priced out, a search's order can only come from an index that matches it.
  const question = fakeEmbedding("Deliveries take two working days.", EMBEDDING_DIMENSIONS);
  const plan = await database.db.transaction(async (tx) => {
    await tx.execute(sql`set local enable_seqscan = off`);
    const explained = (await tx.execute(sql`explain select c.id from knowledge_chunks c order by ${indexedDistance(kept, question)} limit 5`)) as unknown as { rows: Record<string, string>[] };
    return explained.rows.map((r) => Object.values(r)[0]).join("\n");
  });
  expect(plan).toMatch(/Index Scan using knowledge_chunks_embedding(_half)?_idx/);

  const found = await repo.searchPassages(database.db, ORG, [base!.id], "When does my parcel arrive?", { values: question, index: kept }, 3);
  expect(found[0]!.text).toBe("Deliveries take two working days.");
});
