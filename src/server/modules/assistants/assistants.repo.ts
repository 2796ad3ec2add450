import type { Page, PageQuery } from "../../../shared/pages.ts";
import { and, desc, eq, getTableColumns, inArray } from "drizzle-orm";
import { DEFAULT_ANALYSIS_SETTINGS, type AnalysisSettings } from "../../../shared/analysis.ts";
import type { Db } from "../../db/client.ts";
import { keysetPage, keysetQuery, newestFirst } from "../../db/keyset.ts";
import { assistants, tools } from "../../db/schema.ts";

export type AssistantRow = typeof assistants.$inferSelect;
export type ToolSummaryRow = { id: string; name: string; type: string };

/** Every query here is scoped to `organizationId`: another user's rows are invisible, never forbidden. */

export function listAssistants(db: Db, organizationId: string): Promise<AssistantRow[]> {
  return db
    .select()
    .from(assistants)
    .where(eq(assistants.organizationId, organizationId))
    .orderBy(desc(assistants.createdAt), desc(assistants.id));
}

/** A page of the organisation's assistants, newest first: the keyset in SQL (db/keyset.ts). */
export async function pageAssistants(db: Db, organizationId: string, query: PageQuery): Promise<Page<AssistantRow>> {
  const q = keysetQuery(newestFirst(assistants.createdAt, assistants.id), query);
  const rows = await db
    .select({ ...getTableColumns(assistants), page_key: q.key })
    .from(assistants)
    .where(and(eq(assistants.organizationId, organizationId), q.after))
    .orderBy(...q.orderBy)
    .limit(q.limit);
  return keysetPage(rows, query.limit);
}

export async function findAssistant(db: Db, organizationId: string, id: string): Promise<AssistantRow | null> {
  const [row] = await db
    .select()
    .from(assistants)
    .where(and(eq(assistants.organizationId, organizationId), eq(assistants.id, id)));
  return row ?? null;
}

/** The user's tools among `ids` (one query for any number of assistants); unknown ids are absent. */
export async function findOwnTools(db: Db, organizationId: string, ids: readonly string[]): Promise<ToolSummaryRow[]> {
  if (ids.length === 0) return [];
  return db
    .select({ id: tools.id, name: tools.name, type: tools.type })
    .from(tools)
    .where(and(eq(tools.organizationId, organizationId), inArray(tools.id, [...ids])));
}

export type AssistantValues = Pick<AssistantRow, "name" | "description" | "firstMessage" | "instructions" | "toolIds" | "voice" | "model" | "transferDestinations" | "allowEndCall" | "keypadInput" | "timezone" | "voicemail" | "allowDoNotCall" | "analysis" | "knowledgeBaseIds" | "knowledge" | "voiceEngine">;

export async function insertAssistant(db: Db, organizationId: string, values: AssistantValues): Promise<AssistantRow> {
  const [row] = await db
    .insert(assistants)
    .values({ ...values, organizationId })
    .returning();
  return row!;
}

export async function updateAssistant(db: Db, organizationId: string, id: string, values: Partial<AssistantValues>): Promise<AssistantRow | null> {
  const [row] = await db
    .update(assistants)
    // updated_at is set even when no field is sent, so a save always moves "Last Updated".
    .set({ ...values, updatedAt: new Date() })
    .where(and(eq(assistants.organizationId, organizationId), eq(assistants.id, id)))
    .returning();
  return row ?? null;
}

/** Linked phone numbers and past calls keep their rows: the foreign keys set their assistant_id to null. */
export async function deleteAssistant(db: Db, organizationId: string, id: string): Promise<boolean> {
  const rows = await db
    .delete(assistants)
    .where(and(eq(assistants.organizationId, organizationId), eq(assistants.id, id)))
    .returning({ id: assistants.id });
  return rows.length > 0;
}

/** An assistant's analysis settings; one saved before analysis existed analyses with the defaults. */
export function analysisSettingsOf(row: Pick<AssistantRow, "analysis">): AnalysisSettings {
  return row.analysis ?? DEFAULT_ANALYSIS_SETTINGS;
}
