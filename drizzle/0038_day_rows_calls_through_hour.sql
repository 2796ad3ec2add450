-- hand-written (ADR 085): a day row of call_rollups carries a running count of its calls by the end
-- of each UTC hour, so the hours a time zone moves to the neighbouring local day are read from the
-- day's own row, not from its hour rows (which the stats looked up by `hour_of_day`: that column
-- and its index go).
-- No call is written meanwhile: each one is counted exactly once, by the sum below or by a trigger.
LOCK TABLE "calls" IN SHARE ROW EXCLUSIVE MODE;--> statement-breakpoint
DROP INDEX "call_rollups_hour_of_day_idx";--> statement-breakpoint
ALTER TABLE "call_rollups" ADD COLUMN "calls_through_hour" integer[];--> statement-breakpoint
ALTER TABLE "call_rollups" DROP COLUMN "hour_of_day";--> statement-breakpoint
-- The running counts of calls through each hour of a day, from the hours of its calls and their signs.
CREATE FUNCTION calls_through_hours(hours int[], signs int[]) RETURNS int[] LANGUAGE sql IMMUTABLE AS $fn$
SELECT array_agg((SELECT coalesce(sum(u.n), 0)::int FROM unnest(hours, signs) u(h, n) WHERE u.h <= k) ORDER BY k) FROM generate_series(0, 23) k
$fn$;--> statement-breakpoint
-- As 0027's upsert, and a day row's `calls_through_hour`: 24 running counts, hour 0 first, added
-- element by element under the row's lock (a call moved to another hour of its day changes only them).
CREATE OR REPLACE FUNCTION call_rollups_upsert_sql(source text) RETURNS text LANGUAGE sql IMMUTABLE AS $fn$
SELECT format($q$
INSERT INTO call_rollups AS r (organization_id, span, bucket, group_key, assistant_id, assistant_name, assistant_version,
  is_test, direction, success_type, success_value, analysed, calls, ended, ended_ms, cost, errors, transferred, calls_through_hour)
SELECT * FROM (
  SELECT c.organization_id, s.span, s.bucket,
    md5(ROW(c.assistant_id, c.assistant_name, c.assistant_version, c.is_test, c.direction, g.success_type, g.success_value, g.analysed)::text) AS group_key,
    c.assistant_id, c.assistant_name, c.assistant_version, c.is_test, c.direction, g.success_type, g.success_value, g.analysed,
    sum(c.sign)::int AS calls, sum(c.sign * (c.end_time IS NOT NULL)::int)::int AS ended,
    sum(c.sign * coalesce(extract(epoch FROM c.end_time - c.start_time) * 1000, 0)) AS ended_ms,
    sum(c.sign * coalesce((CASE
      WHEN c.is_test IS DISTINCT FROM false THEN c.cost
      WHEN c.end_time IS NULL THEN NULL
      WHEN c.provider_cost IS NULL AND c.telephony_cost IS NULL THEN NULL
      ELSE coalesce(CASE WHEN jsonb_typeof(c.provider_cost->'total') = 'number' THEN (c.provider_cost->>'total')::float8 END, CASE WHEN c.provider_cost IS NULL THEN 0 END) + coalesce(c.telephony_cost, 0)
    END)::numeric, 0)) AS cost,
    sum(c.sign * (c.status = 'error')::int)::int AS errors,
    sum(c.sign * (c.end_time IS NOT NULL AND coalesce(starts_with(c.ended_reason, 'Transferred to '), false))::int)::int AS transferred,
    -- Left null when no count moves: the group's calls are all of one hour and net nothing (most updates).
    CASE WHEN s.span = 24 AND NOT (min(g.hour) = max(g.hour) AND sum(c.sign) = 0)
      THEN calls_through_hours(array_agg(g.hour), array_agg(c.sign)) END AS calls_through_hour
  FROM (%s) c
  CROSS JOIN LATERAL (VALUES
    (1::smallint, date_trunc('hour', c.start_time AT TIME ZONE 'UTC') AT TIME ZONE 'UTC'),
    (24::smallint, date_trunc('day', c.start_time AT TIME ZONE 'UTC') AT TIME ZONE 'UTC')) s(span, bucket)
  CROSS JOIN LATERAL (SELECT
    jsonb_typeof(c.analysis -> 'success' -> 'value') AS success_type,
    c.analysis -> 'success' ->> 'value' AS success_value,
    coalesce(c.analysis ->> 'status' = 'done' AND jsonb_typeof(c.analysis -> 'success' -> 'value') IN ('string', 'number'), false) AS analysed,
    extract(hour FROM c.start_time AT TIME ZONE 'UTC')::int AS hour) g
  -- A cascade from a deleted organisation has nothing left to count for.
  WHERE EXISTS (SELECT 1 FROM organization o WHERE o.id = c.organization_id)
  GROUP BY 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12
) d
-- An update that moved no figure (most of a live call's writes) writes nothing.
WHERE d.calls <> 0 OR d.ended <> 0 OR d.ended_ms <> 0 OR d.cost <> 0 OR d.errors <> 0 OR d.transferred <> 0
  OR 0 <> ANY(d.calls_through_hour)
ORDER BY d.organization_id, d.span, d.bucket, d.group_key
ON CONFLICT (organization_id, span, bucket, group_key) DO UPDATE SET
  calls = r.calls + excluded.calls, ended = r.ended + excluded.ended, ended_ms = r.ended_ms + excluded.ended_ms,
  cost = r.cost + excluded.cost, errors = r.errors + excluded.errors, transferred = r.transferred + excluded.transferred,
  calls_through_hour = (SELECT array_agg(coalesce(x.a, 0) + coalesce(x.b, 0) ORDER BY x.i) FROM unnest(r.calls_through_hour, excluded.calls_through_hour) WITH ORDINALITY x(a, b, i))
$q$, source)
$fn$;--> statement-breakpoint
-- The day rows counted so far, from their hour rows (24 key lookups a day row, never the calls).
UPDATE call_rollups d SET calls_through_hour = (
  SELECT array_agg(x.upto ORDER BY x.n) FROM (
    SELECT g.n, (sum(coalesce(h.calls, 0)) OVER (ORDER BY g.n))::int AS upto
    FROM generate_series(0, 23) g(n)
    LEFT JOIN call_rollups h ON h.organization_id = d.organization_id AND h.span = 1
      AND h.bucket = d.bucket + g.n * interval '1 hour' AND h.group_key = d.group_key) x)
WHERE d.span = 24;
