import { and, eq, inArray } from "drizzle-orm";
import { DEFAULT_ANALYSIS_SETTINGS, type AnalysisSettings } from "../../../shared/analysis.ts";
import type { Db } from "../../db/client.ts";
import { assistants, tools } from "../../db/schema.ts";
import { scopedRepo } from "../../db/scoped-repo.ts";

export type AssistantRow = typeof assistants.$inferSelect;
export type ToolSummaryRow = { id: string; name: string; type: string };

/** Every query here is scoped to `organizationId`: another user's rows are invisible, never forbidden. */

export type AssistantValues = Pick<AssistantRow, "name" | "description" | "firstMessage" | "instructions" | "toolIds" | "voice" | "model" | "transferDestinations" | "allowEndCall" | "keypadInput" | "timezone" | "voicemail" | "allowDoNotCall" | "analysis" | "knowledgeBaseIds" | "knowledge" | "voiceEngine">;

// Deleting keeps linked phone numbers and past calls: the foreign keys set their assistant_id to null.
const repo = scopedRepo<typeof assistants, AssistantValues>(assistants, { stampUpdatedAt: true });
export const { list: listAssistants, page: pageAssistants, find: findAssistant, insert: insertAssistant, update: updateAssistant, remove: deleteAssistant } = repo;

/** The user's tools among `ids` (one query for any number of assistants); unknown ids are absent. */
export async function findOwnTools(db: Db, organizationId: string, ids: readonly string[]): Promise<ToolSummaryRow[]> {
  if (ids.length === 0) return [];
  return db
    .select({ id: tools.id, name: tools.name, type: tools.type })
    .from(tools)
    .where(and(eq(tools.organizationId, organizationId), inArray(tools.id, [...ids])));
}

/** An assistant's analysis settings; one saved before analysis existed analyses with the defaults. */
export function analysisSettingsOf(row: Pick<AssistantRow, "analysis">): AnalysisSettings {
  return row.analysis ?? DEFAULT_ANALYSIS_SETTINGS;
}
