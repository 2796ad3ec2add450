/**
 * The Calls page's stats from the roll-ups (`call_rollups`, ADR 061; ADR 085): one statement, the
 * sums and the median's counts. Whole UTC days come from day rows, each counted on the
 * local day its noon falls on; the hours of such a day that belong to the neighbouring local day
 * (the zone's offset: 4–5 for New York, 1–2 for Berlin, none for UTC) are moved there by the day
 * row's running count of calls per hour; hours at the window's ends come from hour rows, and the
 * part-hours at its very ends from the calls themselves (a few dozen rows on the
 * (organization_id, start_time) index). Every figure is a sum (the money and the durations exact
 * numerics), so the parts add up to the raw aggregate's very value.
 */
import { sql, type SQL } from "drizzle-orm";
import type { CallFilters } from "../../../shared/call-records.ts";
import type { Db } from "../../db/client.ts";
import { calls } from "../../db/schema.ts";
import { callConditions } from "./calls-query.ts";
import type { AnalysisGroup } from "./calls-analysis-stats.ts";
import type { CallTotals } from "./calls-history.repo.ts";
import { shownCost, TRANSFERRED_PREFIX } from "./calls-history.repo.ts";

const HOUR_MS = 3_600_000;

export interface RolledUpStats {
  totals: CallTotals;
  perDay: Array<{ day: string; calls: number }>;
  groups: AnalysisGroup[];
  medianTurnLatencyMs: number | null;
}

/** The filters the roll-ups keep a column for; extracted-data filters (`data.*`) are answered from the calls. */
export const canRollUp = (filters: CallFilters): boolean => Object.keys(filters.data ?? {}).length === 0;

/** The filters on a roll-up row, in the same terms as callConditions on a call. */
function rollupConditions(filters: CallFilters): SQL {
  const parts: SQL[] = [sql`true`];
  if (filters.assistant_id) parts.push(sql`r.assistant_id = ${filters.assistant_id}`);
  if (filters.assistant_version !== undefined) {
    parts.push(filters.assistant_version === "draft" ? sql`r.assistant_version IS NULL` : sql`r.assistant_version = ${Number(filters.assistant_version)}`);
  }
  if (filters.type) parts.push(sql`r.is_test = ${filters.type === "test"}`);
  if (filters.direction) parts.push(sql`r.direction = ${filters.direction}`);
  if (filters.success) parts.push(sql`lower(r.success_value) = lower(${filters.success})`);
  const score = sql`CASE WHEN r.success_type = 'number' THEN r.success_value::numeric END`;
  if (filters.success_min !== undefined) parts.push(sql`${score} >= ${filters.success_min}`);
  if (filters.success_max !== undefined) parts.push(sql`${score} <= ${filters.success_max}`);
  return sql.join(parts, sql` AND `);
}

/** Whether any filter is a column of the roll-ups' groups: else the latency counts' 'all' rows answer. */
const groupFiltered = (f: CallFilters): boolean =>
  Boolean(f.assistant_id || f.assistant_version !== undefined || f.type || f.direction || f.success || f.success_min !== undefined || f.success_max !== undefined);

/** The part-hours at the window's ends, as roll-up-shaped rows of one call each. */
function edgeCalls(organizationId: string, filters: CallFilters, ranges: SQL[], tz: string): SQL {
  if (ranges.length === 0) return sql`SELECT NULL::date, NULL::uuid, NULL, NULL, NULL, false, 0, 0, 0::numeric, 0::numeric, 0, 0, NULL::timestamptz, NULL::int[] WHERE false`;
  const within = callConditions(organizationId, { ...filters, from: undefined, to: undefined });
  // The same terms as the roll-ups' trigger (drizzle/, call_rollups_upsert_sql) for one call.
  return sql`SELECT (calls.start_time AT TIME ZONE ${tz})::date, calls.assistant_id, calls.assistant_name,
      jsonb_typeof(calls.analysis -> 'success' -> 'value'), calls.analysis -> 'success' ->> 'value',
      coalesce(calls.analysis ->> 'status' = 'done' AND jsonb_typeof(calls.analysis -> 'success' -> 'value') IN ('string', 'number'), false),
      1, (calls.end_time IS NOT NULL)::int, coalesce(extract(epoch FROM calls.end_time - calls.start_time) * 1000, 0),
      coalesce((${shownCost})::numeric, 0), (calls.status = 'error')::int,
      (calls.end_time IS NOT NULL AND starts_with(calls.ended_reason, ${TRANSFERRED_PREFIX}))::int, NULL::timestamptz, NULL::int[]
    FROM calls WHERE ${within} AND (${sql.join(ranges, sql` OR `)})`;
}

/** The turns' latencies in the part-hours at the window's ends, as latency-count rows of one turn each. */
function edgeTurns(organizationId: string, filters: CallFilters, ranges: SQL[]): SQL {
  if (ranges.length === 0) return sql`SELECT NULL::numeric, 0 WHERE false`;
  const within = callConditions(organizationId, { ...filters, from: undefined, to: undefined });
  // The same turns as the raw median (calls-history.repo.ts, callsMedianTurnLatency).
  return sql`SELECT (turn ->> 'firstAudioSentMs')::numeric, 1
    FROM calls CROSS JOIN LATERAL jsonb_array_elements(CASE WHEN jsonb_typeof(calls.logs -> 'turns') = 'array' THEN calls.logs -> 'turns' ELSE '[]'::jsonb END) AS turn
    WHERE ${within} AND (${sql.join(ranges, sql` OR `)}) AND jsonb_typeof(turn -> 'firstAudioSentMs') = 'number'`;
}

/** The window's part-hours at its ends, as conditions on the calls. */
function edgeRanges(from: Date | null, to: Date | null): SQL[] {
  const ranges: SQL[] = [];
  if (from) ranges.push(sql`(${calls.startTime} >= ${from.toISOString()}::timestamptz AND ${calls.startTime} < ${new Date(ceilHour(from)).toISOString()}::timestamptz)`);
  if (to) ranges.push(sql`(${calls.startTime} >= ${new Date(floorHour(to)).toISOString()}::timestamptz AND ${calls.startTime} < ${to.toISOString()}::timestamptz)`);
  return ranges;
}

const ceilHour = (d: Date) => Math.ceil(d.getTime() / HOUR_MS) * HOUR_MS;
const floorHour = (d: Date) => Math.floor(d.getTime() / HOUR_MS) * HOUR_MS;

/**
 * The stats of the window from the roll-ups, or null when `tz` puts part of an hour of the
 * window on another day than the rest (a zone whose offset is not whole hours: then only the
 * calls themselves can say which day a call is on), or the window holds no whole hour.
 */
export async function rolledUpStats(db: Db, organizationId: string, filters: CallFilters, tz: string): Promise<RolledUpStats | null> {
  const query = rolledUpStatsQuery(organizationId, filters, tz);
  if (!query) return null;
  // Both drivers answer { rows } (node-postgres QueryResult, PGlite Results).
  const { rows } = (await db.execute(query)) as unknown as {
    rows: Array<{ misaligned: boolean; totals: CallTotals; per_day: RolledUpStats["perDay"]; groups: AnalysisGroup[]; latencies: LatencyCounts[] | null }>;
  };
  const [row] = rows;
  if (!row || row.misaligned) return null;
  const median = medianOfCounts(row.latencies ?? []);
  // Rounded as the raw median is (callsMedianTurnLatency).
  return { totals: row.totals, perDay: row.per_day, groups: row.groups, medianTurnLatencyMs: median === null ? null : Math.round(median) };
}

/**
 * A roll-up row's latency values and how many turns had each, as the texts of its numeric[] and
 * int[] (read as float8, as the raw median orders them). Sent as numeric: its text costs the
 * embedded database less than float8's (ADR 085).
 */
type LatencyCounts = [values: string, counts: string];

const elements = (array: string): string[] => (array === "{}" ? [] : array.slice(1, -1).split(","));

/**
 * percentile_cont(0.5) of the turns the rows count, in its own arithmetic: the values in order,
 * the two at floor and ceil of 0.5 × (N − 1), 0-based, and the point between. Merged here rather
 * than in SQL: the embedded database's WebAssembly spent a third of the statement unnesting,
 * grouping and summing some 14,000 values (ADR 085).
 */
function medianOfCounts(rows: LatencyCounts[]): number | null {
  const counts = new Map<number, number>();
  for (const [v, n] of rows) {
    const values = elements(v);
    const turns = elements(n);
    for (let i = 0; i < values.length; i++) {
      const value = Number(values[i]);
      counts.set(value, (counts.get(value) ?? 0) + Number(turns[i]));
    }
  }
  const values = [...counts].filter(([, n]) => n !== 0).sort((x, y) => x[0] - y[0]);
  const total = values.reduce((sum, [, n]) => sum + n, 0);
  if (total <= 0) return null;
  const p = 0.5 * (total - 1);
  const at = (k: number): number => {
    let upto = 0;
    for (const [value, n] of values) if ((upto += n) > k) return value;
    return values[values.length - 1]![0];
  };
  const lo = at(Math.floor(p));
  return lo + (at(Math.ceil(p)) - lo) * (p - Math.floor(p));
}

/**
 * The statement of rolledUpStats (bench:stats explains it): the sums, and the latency counts' rows
 * for the median; or null when the window holds no whole hour. One statement, where the latency
 * rows were a second one sent at once: the embedded database ran the two one after the other, and
 * a statement there costs ~1 ms before its first row (ADR 085).
 */
export function rolledUpStatsQuery(organizationId: string, filters: CallFilters, tz: string): SQL | null {
  const from = filters.from ? new Date(filters.from) : null;
  const to = filters.to ? new Date(filters.to) : null;
  // Inside one hour: no whole hour to read, and the two part-hours would overlap.
  if (from && to && ceilHour(from) > floorHour(to)) return null;
  const a = from ? new Date(ceilHour(from)).toISOString() : null;
  const b = to ? new Date(floorHour(to)).toISOString() : null;
  const org = organizationId;
  const where = rollupConditions(filters);
  const latencyWhere = groupFiltered(filters) ? sql`r.group_key <> 'all' AND ${where}` : sql`r.group_key = 'all'`;
  // One index range of roll-up rows of one span each (an OR of ranges made the planner read the
  // whole table): the span is the statement's own text, never a parameter, and the bounds are
  // subqueries (a join to the window let the planner scan all of the span's rows and filter them).
  const latencyRange = (span: 1 | 24 | 168, from: string, to: string) =>
    sql`SELECT r.latencies AS v, r.counts AS n FROM call_latency_rollups r
          WHERE r.organization_id = ${org} AND r.span = ${sql.raw(String(span))} AND r.bucket >= (SELECT ${sql.raw(from)} FROM w) AND r.bucket < (SELECT ${sql.raw(to)} FROM w) AND ${latencyWhere}`;
  const localDay = (t: SQL) => sql`(${t} AT TIME ZONE ${tz})::date`;
  const utcDay = (t: SQL) => sql`(date_trunc('day', ${t} AT TIME ZONE 'UTC') AT TIME ZONE 'UTC')`;
  const utcWeek = (t: SQL) => sql`(date_trunc('week', ${t} AT TIME ZONE 'UTC') AT TIME ZONE 'UTC')`;
  const columns = sql`r.assistant_id, r.assistant_name, r.success_type, r.success_value, r.analysed, r.calls, r.ended, r.ended_ms, r.cost, r.errors, r.transferred`;
  // The window's bounds (an omitted end: the first or last hour with calls) and its whole UTC days and weeks.
  const window = sql`w0 AS (
      SELECT coalesce(${a}::timestamptz, (SELECT min(bucket) FROM call_rollups WHERE organization_id = ${org} AND span = 1)) AS a,
             coalesce(${b}::timestamptz, (SELECT max(bucket) + interval '1 hour' FROM call_rollups WHERE organization_id = ${org} AND span = 1)) AS b
    ), w1 AS (
      SELECT a, b, ${utcDay(sql`(a - interval '1 microsecond')`)} + interval '24 hours' AS d1 FROM w0
    ), w2 AS (
      SELECT a, b, d1, greatest(d1, ${utcDay(sql`b`)}) AS d2 FROM w1
    ), w AS (
      -- The whole UTC weeks (from Monday) inside the whole days: the latency counts' week rows.
      SELECT a, b, d1, d2, k1, greatest(k1, ${utcWeek(sql`d2`)}) AS k2
      FROM (SELECT a, b, d1, d2, ${utcWeek(sql`(d1 - interval '1 microsecond')`)} + interval '7 days' AS k1 FROM w2) x
    )`;
  // The turns of the window counted by exact value, a row of arrays each: whole UTC weeks, whole
  // UTC days, then hours, then the part-hours from the calls. A median needs no local day, so no
  // hour moves.
  const latencies = sql`
    ${latencyRange(168, "w.k1", "w.k2")}
    UNION ALL
    ${latencyRange(24, "w.d1", "least(w.k1, w.d2)")}
    UNION ALL
    ${latencyRange(24, "w.k2", "w.d2")}
    UNION ALL
    ${latencyRange(1, "w.a", "least(w.d1, w.b)")}
    UNION ALL
    ${latencyRange(1, "w.d2", "w.b")}
    UNION ALL
    SELECT array_agg(e.v), array_agg(e.n) FROM (${edgeTurns(organizationId, filters, edgeRanges(from, to))}) e(v, n)`;
  return sql`
    WITH ${window}, hrs AS MATERIALIZED (
      -- Each hour's local time once (a zone's conversion is the costly part of this check).
      SELECT h, h AT TIME ZONE ${tz} AS lt, (h + interval '3599.999999 seconds') AT TIME ZONE ${tz} AS lt_end
      FROM w, generate_series(w.a, w.b - interval '1 hour', interval '1 hour') h
    ), md AS MATERIALIZED (
      -- Per whole UTC day, each run of its hours on another local day than the day's noon: that
      -- local day, and the run's first and last UTC hour (a zone that turns its clock back at
      -- midnight can make two runs).
      SELECT d, day, anchor, min(hour) AS lo, max(hour) AS hi FROM (
        SELECT d, day, anchor, hour, hour - row_number() OVER (PARTITION BY d, day ORDER BY hour) AS run FROM (
          SELECT ${utcDay(sql`h`)} AS d, lt::date AS day, ${localDay(sql`(${utcDay(sql`h`)} + interval '12 hours')`)} AS anchor,
            extract(hour FROM h AT TIME ZONE 'UTC')::int AS hour
          FROM hrs, w WHERE h >= w.d1 AND h < w.d2) x
        WHERE day <> anchor) y
      GROUP BY d, day, anchor, run
    ), chk AS (
      SELECT coalesce(bool_or(date_trunc('hour', lt) <> lt OR lt_end <> lt + interval '3599.999999 seconds'), false) AS misaligned
      FROM hrs
    ), base AS MATERIALIZED (
      -- Every figure once: whole UTC days (on the local day of their noon), the edge hours, the part-hours.
      SELECT ${localDay(sql`(r.bucket + interval '12 hours')`)} AS day, ${columns}, r.bucket, r.calls_through_hour AS through
        FROM call_rollups r, w WHERE r.organization_id = ${org} AND r.span = 24 AND r.bucket >= w.d1 AND r.bucket < w.d2 AND ${where}
      UNION ALL
      -- The edge hours, one index range each (an OR of the two let the planner read the whole table).
      SELECT ${localDay(sql`r.bucket`)}, ${columns}, NULL, NULL
        FROM call_rollups r, w WHERE r.organization_id = ${org} AND r.span = 1 AND r.bucket >= w.a AND r.bucket < least(w.d1, w.b) AND ${where}
      UNION ALL
      SELECT ${localDay(sql`r.bucket`)}, ${columns}, NULL, NULL
        FROM call_rollups r, w WHERE r.organization_id = ${org} AND r.span = 1 AND r.bucket >= w.d2 AND r.bucket < w.b AND ${where}
      UNION ALL
      ${edgeCalls(organizationId, filters, edgeRanges(from, to), tz)}
    ), moved AS (
      -- Those hours' calls, from their day's running counts: only the calls per day and group move
      -- (the totals need no day).
      SELECT md.day, md.anchor, b.assistant_id, b.assistant_name, b.success_type, b.success_value, b.analysed,
        b.through[md.hi + 1] - coalesce(b.through[md.lo], 0) AS calls
      FROM base b JOIN md ON md.d = b.bucket
    ), g AS MATERIALIZED (
      SELECT day, assistant_id, assistant_name, success_type, success_value, analysed, sum(calls) AS calls
      FROM (
        SELECT day, assistant_id, assistant_name, success_type, success_value, analysed, calls FROM base
        UNION ALL
        SELECT day, assistant_id, assistant_name, success_type, success_value, analysed, calls FROM moved
        UNION ALL
        SELECT anchor, assistant_id, assistant_name, success_type, success_value, analysed, -calls FROM moved
      ) p
      GROUP BY 1, 2, 3, 4, 5, 6
    )
    SELECT
      (SELECT misaligned FROM chk) AS misaligned,
      (SELECT json_build_object('calls', coalesce(sum(calls), 0), 'ended', coalesce(sum(ended), 0), 'endedMs', coalesce(sum(ended_ms), 0)::float8,
        'cost', coalesce(sum(cost), 0)::float8, 'errors', coalesce(sum(errors), 0), 'transferred', coalesce(sum(transferred), 0)) FROM base) AS totals,
      (SELECT coalesce(json_agg(json_build_object('day', to_char(day, 'YYYY-MM-DD'), 'calls', n) ORDER BY day), '[]')
        FROM (SELECT day, sum(calls) AS n FROM g GROUP BY day HAVING sum(calls) <> 0) d) AS per_day,
      (SELECT coalesce(json_agg(json_build_object('assistantId', assistant_id, 'assistantName', name, 'day', day, 'kind', kind, 'value', value, 'calls', n)
          ORDER BY assistant_id, day, kind, value), '[]')
        FROM (SELECT g.assistant_id, max(coalesce(a.name, g.assistant_name)) AS name, to_char(g.day, 'YYYY-MM-DD') AS day,
            g.success_type AS kind, g.success_value AS value, sum(g.calls) AS n
          FROM g LEFT JOIN assistants a ON a.id = g.assistant_id AND a.organization_id = ${org}
          -- A name some counted call carries: a part that moved to another day nets to zero here.
          WHERE g.analysed AND g.calls <> 0
          GROUP BY g.assistant_id, 3, 4, 5) x) AS groups,
      (SELECT json_agg(json_build_array(l.v::text, l.n::text)) FROM (${latencies}) l(v, n) WHERE l.v IS NOT NULL AND l.n IS NOT NULL) AS latencies`;
}

/**
 * Sums every call again (after an import that bypassed the triggers, or to check them): under a
 * lock that holds writers of calls back, so no call is counted twice or missed meanwhile.
 */
export async function rebuildCallRollups(db: Db): Promise<void> {
  await db.transaction(async (tx) => {
    await tx.execute(sql`LOCK TABLE calls IN SHARE ROW EXCLUSIVE MODE`);
    await tx.execute(sql`DELETE FROM call_rollups`);
    await tx.execute(sql`DELETE FROM call_latency_rollups`);
    await tx.execute(sql`DO $$ BEGIN
      EXECUTE call_rollups_upsert_sql('SELECT 1 AS sign, c.* FROM calls c');
      EXECUTE call_latency_rollups_upsert_sql('SELECT 1 AS sign, c.* FROM calls c');
    END $$`);
  });
}
