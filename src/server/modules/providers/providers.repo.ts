import type { Page, PageQuery } from "../../../shared/pages.ts";
import { and, count, eq, getTableColumns, sql } from "drizzle-orm";
import type { Db } from "../../db/client.ts";
import { keysetPage, keysetQuery, newestFirst } from "../../db/keyset.ts";
import { assistants, providers } from "../../db/schema.ts";

export type ProviderRow = typeof providers.$inferSelect;
export type ProviderValues = Omit<typeof providers.$inferInsert, "id" | "organizationId" | "createdAt" | "updatedAt">;

/** Every query here is scoped to `organizationId`. */

/** A page of the organisation's providers, newest first: the keyset in SQL (db/keyset.ts). */
export async function pageProviders(db: Db, organizationId: string, query: PageQuery): Promise<Page<ProviderRow>> {
  const q = keysetQuery(newestFirst(providers.createdAt, providers.id), query);
  const rows = await db
    .select({ ...getTableColumns(providers), page_key: q.key })
    .from(providers)
    .where(and(eq(providers.organizationId, organizationId), q.after))
    .orderBy(...q.orderBy)
    .limit(q.limit);
  return keysetPage(rows, query.limit);
}

export async function countProviders(db: Db, organizationId: string): Promise<number> {
  const [row] = await db.select({ n: count() }).from(providers).where(eq(providers.organizationId, organizationId));
  return row?.n ?? 0;
}

export async function findProvider(db: Db, organizationId: string, id: string): Promise<ProviderRow | null> {
  const [row] = await db.select().from(providers).where(and(eq(providers.organizationId, organizationId), eq(providers.id, id)));
  return row ?? null;
}

export async function insertProvider(db: Db, organizationId: string, values: ProviderValues): Promise<ProviderRow> {
  const [row] = await db.insert(providers).values({ ...values, organizationId }).returning();
  return row!;
}

export async function updateProvider(db: Db, organizationId: string, id: string, values: Partial<ProviderValues>): Promise<ProviderRow | null> {
  const [row] = await db.update(providers).set(values).where(and(eq(providers.organizationId, organizationId), eq(providers.id, id))).returning();
  return row ?? null;
}

export async function deleteProvider(db: Db, organizationId: string, id: string): Promise<boolean> {
  const rows = await db.delete(providers).where(and(eq(providers.organizationId, organizationId), eq(providers.id, id))).returning({ id: providers.id });
  return rows.length > 0;
}

/** The names of the organisation's assistants whose draft's voice engine names provider `id`. */
export async function assistantsUsing(db: Db, organizationId: string, id: string): Promise<string[]> {
  const rows = await db
    .select({ name: assistants.name })
    .from(assistants)
    .where(
      and(
        eq(assistants.organizationId, organizationId),
        sql`${id} in (${assistants.voiceEngine}->'transcriber'->>'provider_id', ${assistants.voiceEngine}->'model'->>'provider_id', ${assistants.voiceEngine}->'voice'->>'provider_id')`,
      ),
    )
    .orderBy(assistants.name);
  return rows.map((r) => r.name);
}
