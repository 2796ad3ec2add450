/**
 * The word counts retrieval searches by stay exact whatever happens to the passages (a document
 * stored, replaced, deleted; a base deleted), and a question full of a base's common words still
 * finds the passage its one rare word names.
 */
import { sql } from "drizzle-orm";
import { afterAll, beforeAll, expect, it } from "vitest";
import { freshDatabase } from "../../../../tests/harness.ts";
import type { Database } from "../../db/client.ts";
import { knowledgeBases, knowledgeDocuments, organization } from "../../db/schema.ts";
import * as repo from "./knowledge.repo.ts";

let database: Database;
const ORG = "org-terms";
let baseId: string;

beforeAll(async () => {
  database = await freshDatabase();
  await database.db.insert(organization).values({ id: ORG, name: "Terms", slug: ORG });
  [{ id: baseId }] = await database.db.insert(knowledgeBases).values({ organizationId: ORG, name: "FAQ" }).returning({ id: knowledgeBases.id });
});
afterAll(() => database.close());

const newDocument = async (name: string) => {
  const [doc] = await database.db.insert(knowledgeDocuments).values({ organizationId: ORG, knowledgeBaseId: baseId, name, source: "text", status: "processing" }).returning();
  return doc!;
};
const store = (doc: Awaited<ReturnType<typeof newDocument>>, texts: string[]) =>
  repo.replaceChunks(database.db, doc, texts.map((content) => ({ location: null, content })), null, { pageCount: null, fetchedAt: null });

/** The counts as kept, and as a recount of the passages gives them. */
async function counts() {
  const rows = async (query: ReturnType<typeof sql>) => ((await database.db.execute(query)) as unknown as { rows: { lexeme: string; passages: number }[] }).rows;
  const kept = await rows(sql`select lexeme, passages from knowledge_terms where organization_id = ${ORG} order by lexeme`);
  const recount = await rows(sql`select w.lexeme, count(*)::int as passages from knowledge_chunks c, unnest(c.search) as w where c.organization_id = ${ORG} group by 1 order by 1`);
  return { kept, recount };
}

// Every passage says the common words; one names the rare one.
const common = (i: number) => `Our order delivery service opens hours every day, order number ${i}.`;

it("counts each word's passages as documents are stored, replaced and deleted, and as the base goes", async () => {
  const faq = await newDocument("faq.txt");
  await store(faq, Array.from({ length: 30 }, (_, i) => common(i)));
  const policy = await newDocument("policy.txt");
  await store(policy, ["Refunds for a damaged parcel are paid within five days.", common(99)]);
  let { kept, recount } = await counts();
  expect(kept).toEqual(recount);
  expect(kept).toContainEqual({ lexeme: "order", passages: 31 });
  expect(kept).toContainEqual({ lexeme: "refund", passages: 1 });

  await store({ ...policy, generation: policy.generation }, ["Refunds for a damaged parcel are paid within ten days."]);
  ({ kept, recount } = await counts());
  expect(kept).toEqual(recount);
  expect(kept).toContainEqual({ lexeme: "order", passages: 30 });

  await repo.deleteDocument(database.db, ORG, baseId, faq.id);
  ({ kept, recount } = await counts());
  expect(kept).toEqual(recount);
  expect(kept.map((k) => k.lexeme)).not.toContain("order");

  const [other] = await database.db.insert(knowledgeBases).values({ organizationId: ORG, name: "Gone" }).returning();
  const [doc] = await database.db.insert(knowledgeDocuments).values({ organizationId: ORG, knowledgeBaseId: other!.id, name: "x.txt", source: "text", status: "processing" }).returning();
  await store(doc!, ["Parcel lockers open at night."]);
  await repo.deleteBase(database.db, ORG, other!.id);
  ({ kept, recount } = await counts());
  expect(kept).toEqual(recount);
  expect(kept).toContainEqual({ lexeme: "parcel", passages: 1 });
});

it("finds the passage a question's one rare word names among passages that all share its common words, and still answers a question of common words only", async () => {
  const many = await newDocument("orders.txt");
  await store(many, Array.from({ length: 400 }, (_, i) => common(i)));
  const answers = await repo.searchPassages(database.db, ORG, [baseId], "How many days until my order refund for a damaged delivery?", null, 3);
  expect(answers[0]).toMatchObject({ document_name: "policy.txt", text: "Refunds for a damaged parcel are paid within ten days." });
  const commonOnly = await repo.searchPassages(database.db, ORG, [baseId], "order delivery hours", null, 3);
  expect(commonOnly).toHaveLength(3);
  expect(commonOnly.every((p) => p.document_name === "orders.txt")).toBe(true);
  expect(await repo.searchPassages(database.db, ORG, [baseId], "xylophone", null, 3)).toEqual([]);
});
