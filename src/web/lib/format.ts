import { format } from "date-fns";

/**
 * JSON for people: indented, and a string holding JSON is shown as that JSON (tool results often
 * arrive as JSON text). Used by the transcripts and the Tools page alike.
 */
export function prettyJson(value: unknown): string {
  if (typeof value === "string") {
    try {
      return JSON.stringify(JSON.parse(value), null, 2);
    } catch {
      return value;
    }
  }
  return JSON.stringify(value, null, 2) ?? String(value);
}

/** Time of day of a transcript entry ("3:04:05 PM"); empty when unreadable. */
export function formatEntryTime(iso: string): string {
  const date = new Date(iso);
  return Number.isNaN(date.getTime()) ? "" : format(date, "h:mm:ss a");
}
