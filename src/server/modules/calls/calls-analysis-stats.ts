/**
 * The stats' post-call analysis figures: success rate (pass/fail), mean score, and each
 * category's share — over the filtered calls, per assistant and per day. One grouped query over
 * the same filter-to-SQL function as the list (calls-query.ts); the few rows it returns (one per
 * assistant, day and value) are summed here.
 */
import { sql } from "drizzle-orm";
import type { AnalysisStats, CallFilters, CallStats } from "../../../shared/call-records.ts";
import type { Db } from "../../db/client.ts";
import { assistants, calls } from "../../db/schema.ts";
import { callConditions } from "./calls-query.ts";

export interface AnalysisGroup {
  assistantId: string | null;
  assistantName: string | null;
  day: string;
  kind: string;
  value: string;
  calls: number;
}

export function analysisGroupsQuery(db: Db, organizationId: string, filters: CallFilters, timeZone: string) {
  const value = sql`${calls.analysis} -> 'success' -> 'value'`;
  return db
    .select({
      assistantId: calls.assistantId,
      assistantName: sql<string | null>`max(coalesce(${assistants.name}, ${calls.assistantName}))`,
      day: sql<string>`to_char(${calls.startTime} AT TIME ZONE ${timeZone}, 'YYYY-MM-DD')`,
      kind: sql<string>`jsonb_typeof(${value})`,
      value: sql<string>`${calls.analysis} -> 'success' ->> 'value'`,
      calls: sql<number>`count(*)::int`,
    })
    .from(calls)
    .leftJoin(assistants, sql`${assistants.id} = ${calls.assistantId} AND ${assistants.organizationId} = ${calls.organizationId}`)
    .where(sql`${callConditions(organizationId, filters)} AND ${calls.analysis} ->> 'status' = 'done' AND jsonb_typeof(${value}) IN ('string', 'number')`)
    // By position: the zone is a parameter (see callsPerDay).
    .groupBy(sql`1`, sql`3`, sql`4`, sql`5`)
    // One order for the raw and the rolled-up groups (calls-rollups.repo.ts): the mean score adds them in it.
    .orderBy(sql`1`, sql`3`, sql`4`, sql`5`);
}

function summarise(groups: readonly AnalysisGroup[]): AnalysisStats {
  let passed = 0;
  let judged = 0;
  let scoreSum = 0;
  let scored = 0;
  const categories = new Map<string, number>();
  for (const g of groups) {
    if (g.kind === "number") {
      scoreSum += Number(g.value) * g.calls;
      scored += g.calls;
    } else if (g.value === "pass" || g.value === "fail") {
      judged += g.calls;
      if (g.value === "pass") passed += g.calls;
    } else categories.set(g.value, (categories.get(g.value) ?? 0) + g.calls);
  }
  const categorised = [...categories.values()].reduce((a, b) => a + b, 0);
  return {
    analysed: groups.reduce((sum, g) => sum + g.calls, 0),
    success_rate: judged > 0 ? passed / judged : null,
    average_score: scored > 0 ? Math.round((scoreSum / scored) * 100) / 100 : null,
    categories: [...categories]
      .map(([category, n]) => ({ category, calls: n, share: n / categorised }))
      .sort((a, b) => b.calls - a.calls || a.category.localeCompare(b.category)),
  };
}

function groupBy<K>(groups: readonly AnalysisGroup[], key: (g: AnalysisGroup) => K): Map<K, AnalysisGroup[]> {
  const out = new Map<K, AnalysisGroup[]>();
  for (const g of groups) out.set(key(g), [...(out.get(key(g)) ?? []), g]);
  return out;
}

export async function analysisStats(db: Db, organizationId: string, filters: CallFilters, timeZone: string): Promise<CallStats["success"]> {
  return analysisFromGroups(await analysisGroupsQuery(db, organizationId, filters, timeZone));
}

/** The figures of the groups (one per assistant, day and value, in assistant, day, value order). */
export function analysisFromGroups(groups: readonly AnalysisGroup[]): CallStats["success"] {
  return {
    ...summarise(groups),
    per_assistant: [...groupBy(groups, (g) => g.assistantId)].map(([assistantId, list]) => ({
      assistant_id: assistantId,
      assistant_name: list[0]!.assistantName,
      ...summarise(list),
    })),
    per_day: [...groupBy(groups, (g) => g.day)].sort(([a], [b]) => a.localeCompare(b)).map(([day, list]) => ({ day, ...summarise(list) })),
  };
}
