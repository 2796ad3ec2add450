/** The versioned part of an assistant (src/shared/versions.ts) taken from its draft row. */
import type { AssistantContent } from "../../../shared/versions.ts";
import { callSettingsOf } from "../assistants/assistant-settings.ts";
import type { AssistantRow } from "../assistants/assistants.repo.ts";

export function contentOf(row: AssistantRow): AssistantContent {
  return {
    ...callSettingsOf(row),
    tool_ids: row.toolIds,
    // Null (never set) is left out, so it compares equal to a version made before analysis existed.
    ...(row.analysis ? { analysis: row.analysis } : {}),
    // Likewise: an assistant without knowledge bases compares equal to a version made before they existed.
    ...(row.knowledgeBaseIds.length > 0 ? { knowledge_base_ids: row.knowledgeBaseIds } : {}),
    ...(row.knowledge ? { knowledge: row.knowledge } : {}),
    // Likewise: OpenAI Realtime is what every version made before voice engines ran.
    ...(row.voiceEngine && row.voiceEngine.type !== "realtime" ? { voice_engine: row.voiceEngine } : {}),
  };
}

/** Key order never matters (jsonb reorders keys); a key absent on one side equals null on the other. */
export function sameContent(a: AssistantContent, b: AssistantContent): boolean {
  return canonical(a) === canonical(b);
}

function canonical(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonical).join(",")}]`;
  if (value !== null && typeof value === "object") {
    const entries = Object.entries(value as Record<string, unknown>).filter(([, v]) => v !== null && v !== undefined);
    return `{${entries
      .sort(([x], [y]) => (x < y ? -1 : x > y ? 1 : 0))
      .map(([k, v]) => `${JSON.stringify(k)}:${canonical(v)}`)
      .join(",")}}`;
  }
  return JSON.stringify(value ?? null);
}
