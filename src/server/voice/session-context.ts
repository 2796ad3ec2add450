/**
 * The conversation so far as context items for a new provider session (a call outlives the
 * provider's 60-minute session): the transcript's user and assistant lines as messages, tool
 * use as short system notes, newest last, truncated from the oldest end to a budget.
 */
import type { TranscriptEntry } from "../../shared/calls.ts";
import type { ConversationItem } from "./providers/realtime-protocol.ts";

/** About 10k tokens of text: room for a long call's recent context, well inside any model's window. */
export const CONTEXT_BUDGET_CHARS = 40_000;
const ENTRY_MAX_CHARS = 4_000;

function clip(text: string, max: number): string {
  return text.length <= max ? text : `${text.slice(0, max - 1)}…`;
}

function brief(value: unknown): string {
  if (value === undefined) return "";
  const text = typeof value === "string" ? value : (JSON.stringify(value) ?? "");
  return ` ${clip(text, 1_000)}`;
}

function itemOf(entry: TranscriptEntry): ConversationItem | null {
  const text = clip(entry.content, ENTRY_MAX_CHARS);
  switch (entry.type) {
    case "user":
      return entry.isError ? null : { type: "message", role: "user", content: [{ type: "input_text", text }] };
    case "assistant":
      return { type: "message", role: "assistant", content: [{ type: "output_text", text }] };
    case "tool-request":
      return { type: "message", role: "system", content: [{ type: "input_text", text: `${text}:${brief(entry.parameters)}` }] };
    case "tool-response":
      return { type: "message", role: "system", content: [{ type: "input_text", text: `${text}:${brief(entry.result)}` }] };
    default:
      // Connection and provider errors are the engine's, not the conversation's.
      return null;
  }
}

const sizeOf = (item: ConversationItem): number =>
  item.type === "message" ? item.content.reduce((n, part) => n + part.text.length, 0) : item.output.length;

export function contextItems(entries: readonly TranscriptEntry[], budgetChars = CONTEXT_BUDGET_CHARS): ConversationItem[] {
  const items: ConversationItem[] = [];
  let used = 0;
  for (let i = entries.length - 1; i >= 0; i -= 1) {
    const item = itemOf(entries[i]!);
    if (!item) continue;
    used += sizeOf(item);
    if (used > budgetChars) break;
    items.push(item);
  }
  return items.reverse();
}
