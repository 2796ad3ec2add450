-- hand-written (ADR 079): the latency counts also per UTC week (span 168, from Monday 00:00 UTC),
-- so the median of 30 days reads some 10 rows' arrays where it read 30.
-- No call is written while the upsert changes and the week rows are summed: each turn is counted
-- in its week exactly once, by the sum below or by a trigger. The sum reads the day rows only (a
-- year of a busy organisation: some 11,000 rows), never the calls: seconds under the lock.
LOCK TABLE "calls" IN SHARE ROW EXCLUSIVE MODE;--> statement-breakpoint
-- The upsert that adds the turns of `source`'s rows (columns: sign, then a calls row) to the
-- latency counts, per UTC hour, day and week, per group and for 'all': each turn the raw median
-- reads (calls-history.repo.ts, callsMedianTurnLatency) counts once under its exact value. The
-- arrays merge under the row's lock of ON CONFLICT, rows in key order, as in
-- call_rollups_upsert_sql: exact under concurrent writers.
CREATE OR REPLACE FUNCTION call_latency_rollups_upsert_sql(source text) RETURNS text LANGUAGE sql IMMUTABLE AS $fn$
SELECT format($q$
INSERT INTO call_latency_rollups AS r (organization_id, span, bucket, group_key, assistant_id, assistant_version, is_test,
  direction, success_type, success_value, latencies, counts)
SELECT d.organization_id, d.span, d.bucket, d.group_key, d.assistant_id, d.assistant_version, d.is_test, d.direction,
  d.success_type, d.success_value, array_agg(d.latency_ms ORDER BY d.latency_ms), array_agg(d.turns ORDER BY d.latency_ms)
FROM (
  SELECT c.organization_id, s.span, s.bucket,
    CASE WHEN k.whole THEN 'all' ELSE md5(ROW(c.assistant_id, c.assistant_version, c.is_test, c.direction, g.success_type, g.success_value)::text) END AS group_key,
    CASE WHEN NOT k.whole THEN c.assistant_id END AS assistant_id, CASE WHEN NOT k.whole THEN c.assistant_version END AS assistant_version,
    CASE WHEN NOT k.whole THEN c.is_test END AS is_test, CASE WHEN NOT k.whole THEN c.direction END AS direction,
    CASE WHEN NOT k.whole THEN g.success_type END AS success_type, CASE WHEN NOT k.whole THEN g.success_value END AS success_value,
    (t.turn ->> 'firstAudioSentMs')::numeric AS latency_ms, sum(c.sign)::int AS turns
  FROM (%s) c
  CROSS JOIN LATERAL jsonb_array_elements(CASE WHEN jsonb_typeof(c.logs -> 'turns') = 'array' THEN c.logs -> 'turns' ELSE '[]'::jsonb END) t(turn)
  CROSS JOIN LATERAL (VALUES
    (1::smallint, date_trunc('hour', c.start_time AT TIME ZONE 'UTC') AT TIME ZONE 'UTC'),
    (24::smallint, date_trunc('day', c.start_time AT TIME ZONE 'UTC') AT TIME ZONE 'UTC'),
    (168::smallint, date_trunc('week', c.start_time AT TIME ZONE 'UTC') AT TIME ZONE 'UTC')) s(span, bucket)
  CROSS JOIN LATERAL (SELECT jsonb_typeof(c.analysis -> 'success' -> 'value') AS success_type, c.analysis -> 'success' ->> 'value' AS success_value) g
  CROSS JOIN (VALUES (false), (true)) k(whole)
  WHERE jsonb_typeof(t.turn -> 'firstAudioSentMs') = 'number'
    AND EXISTS (SELECT 1 FROM organization o WHERE o.id = c.organization_id)
  GROUP BY 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11
) d
-- Unchanged turns of an updated call (old minus new) write nothing.
WHERE d.turns <> 0
GROUP BY 1, 2, 3, 4, 5, 6, 7, 8, 9, 10
ORDER BY 1, 2, 3, 4
ON CONFLICT (organization_id, span, bucket, group_key) DO UPDATE SET (latencies, counts) = (
  SELECT coalesce(array_agg(m.v ORDER BY m.v), '{}'), coalesce(array_agg(m.n ORDER BY m.v), '{}') FROM (
    SELECT x.v, sum(x.n)::int AS n
    FROM (SELECT * FROM unnest(r.latencies, r.counts) UNION ALL SELECT * FROM unnest(excluded.latencies, excluded.counts)) x(v, n)
    GROUP BY x.v HAVING sum(x.n) <> 0) m)
$q$, source)
$fn$;--> statement-breakpoint
-- The weeks of the turns counted so far, from their days.
DO $$
DECLARE
  wk timestamptz;
BEGIN
  -- A week at a time, grouped by value and key only (the group's columns copied from one of its
  -- day rows): 12 s at 1,000,000 calls on the loaded build machine, where one grouped statement
  -- over all the values and columns took 22 s.
  FOR wk IN SELECT DISTINCT date_trunc('week', bucket AT TIME ZONE 'UTC') AT TIME ZONE 'UTC' FROM call_latency_rollups WHERE span = 24 ORDER BY 1 LOOP
    INSERT INTO call_latency_rollups (organization_id, span, bucket, group_key, assistant_id, assistant_version, is_test,
      direction, success_type, success_value, latencies, counts)
    SELECT k.organization_id, 168, wk, k.group_key, k.assistant_id, k.assistant_version, k.is_test, k.direction,
      k.success_type, k.success_value, m.latencies, m.counts
    FROM (
      SELECT d.organization_id, d.group_key, array_agg(d.v ORDER BY d.v) AS latencies, array_agg(d.n ORDER BY d.v) AS counts
      FROM (
        SELECT r.organization_id, r.group_key, u.v, sum(u.n)::int AS n
        FROM call_latency_rollups r CROSS JOIN LATERAL unnest(r.latencies, r.counts) u(v, n)
        WHERE r.span = 24 AND r.bucket >= wk AND r.bucket < wk + interval '7 days'
        GROUP BY r.organization_id, r.group_key, u.v
        HAVING sum(u.n) <> 0
      ) d
      GROUP BY d.organization_id, d.group_key
    ) m
    JOIN LATERAL (SELECT * FROM call_latency_rollups r WHERE r.organization_id = m.organization_id AND r.span = 24
      AND r.bucket >= wk AND r.bucket < wk + interval '7 days' AND r.group_key = m.group_key LIMIT 1) k ON true
    ORDER BY m.organization_id, m.group_key;
  END LOOP;
END $$;
