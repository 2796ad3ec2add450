import type { Page, PageQuery } from "../../../shared/pages.ts";
import { and, eq, getTableColumns, inArray, isNull, ne, sql } from "drizzle-orm";
import type { Db } from "../../db/client.ts";
import { keysetPage, keysetQuery, newestFirst } from "../../db/keyset.ts";
import { assistants, tools } from "../../db/schema.ts";

export type ToolRow = typeof tools.$inferSelect;
export type ToolValues = Omit<typeof tools.$inferInsert, "id" | "organizationId" | "createdAt" | "updatedAt">;

/** Every query here is scoped to `organizationId`: another user's rows are invisible, never forbidden. */

/** A page of the organisation's tools, newest first: the keyset in SQL (db/keyset.ts). */
export async function pageTools(db: Db, organizationId: string, query: PageQuery): Promise<Page<ToolRow>> {
  const q = keysetQuery(newestFirst(tools.createdAt, tools.id), query);
  const rows = await db
    .select({ ...getTableColumns(tools), page_key: q.key })
    .from(tools)
    .where(and(eq(tools.organizationId, organizationId), q.after))
    .orderBy(...q.orderBy)
    .limit(q.limit);
  return keysetPage(rows, query.limit);
}

export async function findTool(db: Db, organizationId: string, id: string): Promise<ToolRow | null> {
  const [row] = await db
    .select()
    .from(tools)
    .where(and(eq(tools.organizationId, organizationId), eq(tools.id, id)));
  return row ?? null;
}

/** The user's tools among `ids`, in the order of `ids` (an assistant's tool_ids); unknown ids are absent. */
export async function findToolsInOrder(db: Db, organizationId: string, ids: readonly string[]): Promise<ToolRow[]> {
  if (ids.length === 0) return [];
  const rows = await db
    .select()
    .from(tools)
    .where(and(eq(tools.organizationId, organizationId), inArray(tools.id, [...ids])));
  const byId = new Map(rows.map((row) => [row.id, row]));
  return ids.flatMap((id) => byId.get(id) ?? []);
}

export async function insertTool(db: Db, organizationId: string, values: ToolValues): Promise<ToolRow> {
  const [row] = await db
    .insert(tools)
    .values({ ...values, organizationId })
    .returning();
  return row!;
}

export async function updateTool(db: Db, organizationId: string, id: string, values: Partial<ToolValues>): Promise<ToolRow | null> {
  const [row] = await db
    .update(tools)
    // updated_at is set even when no field changes, so a save always moves "Last updated".
    .set({ ...values, updatedAt: new Date() })
    .where(and(eq(tools.organizationId, organizationId), eq(tools.id, id)))
    .returning();
  return row ?? null;
}

/**
 * Deletes the tool and takes its id out of the owner's assistants in one transaction, so no
 * assistant is left pointing at a tool that no longer exists (tool_ids is JSON, without a foreign key).
 */
export async function deleteTool(db: Db, organizationId: string, id: string): Promise<boolean> {
  return db.transaction(async (tx) => {
    const deleted = await tx
      .delete(tools)
      .where(and(eq(tools.organizationId, organizationId), eq(tools.id, id)))
      .returning({ id: tools.id });
    if (deleted.length === 0) return false;
    await tx
      .update(assistants)
      .set({
        // jsonb `-` text removes every array element equal to the string.
        toolIds: sql`${assistants.toolIds} - ${id}::text`,
        // The user did not edit these assistants; their "last updated" stays as it was.
        updatedAt: sql`${assistants.updatedAt}`,
      })
      .where(and(eq(assistants.organizationId, organizationId), sql`${assistants.toolIds} @> ${JSON.stringify([id])}::jsonb`));
    return true;
  });
}

// At start, across organisations (tool-secrets.ts sealLegacyToolHeaders): rows stored before
// header encryption, with clear header values and no sealed copy.

export function listToolsWithClearHeaders(db: Db): Promise<Array<Pick<ToolRow, "id" | "httpHeaders">>> {
  return db
    .select({ id: tools.id, httpHeaders: tools.httpHeaders })
    .from(tools)
    .where(and(isNull(tools.httpHeadersEncrypted), ne(tools.httpHeaders, sql`'{}'::jsonb`)));
}

/** Stores a row's sealed headers unless another start did already; its updated time stays. */
export async function sealStoredHeaders(db: Db, id: string, sealed: Pick<ToolRow, "httpHeaders" | "httpHeadersEncrypted">): Promise<void> {
  await db
    .update(tools)
    .set({ ...sealed, updatedAt: sql`${tools.updatedAt}` })
    .where(and(eq(tools.id, id), isNull(tools.httpHeadersEncrypted)));
}
