import { and, eq, sql } from "drizzle-orm";
import type { Db } from "../../db/client.ts";
import { assistants, providers } from "../../db/schema.ts";
import { scopedRepo } from "../../db/scoped-repo.ts";

export type ProviderRow = typeof providers.$inferSelect;
export type ProviderValues = Omit<typeof providers.$inferInsert, "id" | "organizationId" | "createdAt" | "updatedAt">;

/** Every query here is scoped to `organizationId`. */
const repo = scopedRepo<typeof providers, ProviderValues>(providers);
export const { list: listProviders, page: pageProviders, count: countProviders, find: findProvider, insert: insertProvider, update: updateProvider, remove: deleteProvider } = repo;

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
