import { format } from "date-fns";

function parse(iso: string | null | undefined): Date | "missing" | "invalid" {
  if (!iso) return "missing";
  const date = new Date(iso);
  return Number.isNaN(date.getTime()) ? "invalid" : date;
}

/** Table form (spec §9 "short form in tables"), with the fallbacks of spec §8. */
export function shortDate(iso: string | null | undefined): string {
  const date = parse(iso);
  if (date === "missing") return "Unknown date";
  if (date === "invalid") return "Invalid date";
  return format(date, "MMM d, yyyy");
}

/** Details form (spec §9 "long form in details"); anything unreadable is "Unknown" (spec §2). */
export function longDate(iso: string | null | undefined): string {
  const date = parse(iso);
  return date instanceof Date ? format(date, "MMMM d, yyyy 'at' h:mm a") : "Unknown";
}
