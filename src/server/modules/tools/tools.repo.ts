import { and, eq, inArray, isNull, ne, sql } from "drizzle-orm";
import type { Db } from "../../db/client.ts";
import { assistants, tools } from "../../db/schema.ts";
import { scopedRepo } from "../../db/scoped-repo.ts";

export type ToolRow = typeof tools.$inferSelect;
export type ToolValues = Omit<typeof tools.$inferInsert, "id" | "organizationId" | "createdAt" | "updatedAt">;

/** Every query here is scoped to `organizationId`: another user's rows are invisible, never forbidden. */

const repo = scopedRepo<typeof tools, ToolValues>(tools, { stampUpdatedAt: true });
export const { list: listTools, page: pageTools, find: findTool, insert: insertTool, update: updateTool } = repo;

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
