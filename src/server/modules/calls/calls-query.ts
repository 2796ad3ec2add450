/**
 * The Calls page's filters as SQL, and the list's keyset order. One home for both so the list, the
 * stats and the CSV export select exactly the same calls for the same query string.
 */
import { and, eq, gte, isNull, lt, sql, type SQL } from "drizzle-orm";
import type { CallFilters } from "../../../shared/call-records.ts";
import { afterKey, type KeysetOrder } from "../../db/keyset.ts";
import { calls } from "../../db/schema.ts";
import type { Keyset } from "../../http/pages.ts";

/**
 * The Calls list's order: newest start first, then id (keyset, src/server/db/keyset.ts); the
 * indexes on (organization_id[, assistant_id], start_time, id) serve it as one range.
 */
export const callOrder: KeysetOrder = {
  parts: [
    { column: calls.startTime, kind: "timestamp" },
    { column: calls.id, kind: "uuid" },
  ],
  desc: true,
};

/**
 * q as a prefix query on the search document: each word of letters or digits must start a word of
 * the transcript or the caller's number. A q that looks like a phone number ("+1 (555) 123")
 * becomes one run of digits. Only [letters, digits] reach to_tsquery, so q cannot break its syntax.
 */
export function searchQuery(q: string | undefined): string | null {
  if (!q) return null;
  const words = /^[+\d\s().-]+$/.test(q) ? [q.replace(/\D/g, "")] : q.toLowerCase().split(/[^\p{L}\p{N}]+/u);
  const terms = words.filter((w) => w.length > 0).slice(0, 8);
  return terms.length === 0 ? null : terms.map((w) => `${w}:*`).join(" & ");
}

/** The owner's calls matching the filters (every query of the Calls page starts here). */
export function callConditions(organizationId: string, filters: CallFilters, after?: Keyset): SQL {
  const parts: Array<SQL | undefined> = [eq(calls.organizationId, organizationId)];
  if (filters.assistant_id) parts.push(eq(calls.assistantId, filters.assistant_id));
  if (filters.assistant_version !== undefined) {
    parts.push(filters.assistant_version === "draft" ? isNull(calls.assistantVersion) : eq(calls.assistantVersion, Number(filters.assistant_version)));
  }
  if (filters.type) parts.push(eq(calls.isTest, filters.type === "test"));
  if (filters.status) parts.push(eq(calls.status, filters.status));
  if (filters.direction) parts.push(eq(calls.direction, filters.direction));
  if (filters.from) parts.push(gte(calls.startTime, new Date(filters.from)));
  if (filters.to) parts.push(lt(calls.startTime, new Date(filters.to)));
  parts.push(...analysisConditions(filters));
  const search = searchQuery(filters.q);
  if (search) parts.push(sql`${calls.search} @@ to_tsquery('simple', ${search})`);
  if (after) parts.push(afterKey(callOrder, after));
  return and(...parts)!;
}

/**
 * The post-call analysis's filters (jsonb of the `analysis` column): the success value, a score
 * range, and extracted fields equal to (ignoring case) or containing a text. They narrow what the
 * owner's index range already selected.
 */
function analysisConditions(filters: CallFilters): SQL[] {
  const parts: SQL[] = [];
  const value = sql`${calls.analysis} -> 'success' -> 'value'`;
  if (filters.success) parts.push(sql`lower(${calls.analysis} -> 'success' ->> 'value') = lower(${filters.success})`);
  const score = sql`CASE WHEN jsonb_typeof(${value}) = 'number' THEN (${value})::text::numeric END`;
  if (filters.success_min !== undefined) parts.push(sql`${score} >= ${filters.success_min}`);
  if (filters.success_max !== undefined) parts.push(sql`${score} <= ${filters.success_max}`);
  for (const [key, wanted] of Object.entries(filters.data ?? {})) {
    const contains = key.endsWith(".contains");
    const field = contains ? key.slice(0, -".contains".length) : key;
    const text = sql`lower(${calls.analysis} -> 'data' ->> ${field})`;
    // strpos, not LIKE: a % or _ in the text is looked for as typed.
    parts.push(contains ? sql`strpos(${text}, lower(${wanted})) > 0` : sql`${text} = lower(${wanted})`);
  }
  return parts;
}
