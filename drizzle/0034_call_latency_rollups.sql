CREATE TABLE "call_latency_rollups" (
	"organization_id" text NOT NULL,
	"span" smallint NOT NULL,
	"bucket" timestamp with time zone NOT NULL,
	"group_key" text NOT NULL,
	"assistant_id" uuid,
	"assistant_version" integer,
	"is_test" boolean,
	"direction" text,
	"success_type" text,
	"success_value" text,
	"latencies" numeric[] NOT NULL,
	"counts" integer[] NOT NULL
);
--> statement-breakpoint
ALTER TABLE "call_latency_rollups" ADD CONSTRAINT "call_latency_rollups_organization_id_organization_id_fk" FOREIGN KEY ("organization_id") REFERENCES "public"."organization"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
CREATE UNIQUE INDEX "call_latency_rollups_key_idx" ON "call_latency_rollups" USING btree ("organization_id","span","bucket","group_key");--> statement-breakpoint
-- hand-written:
-- No call is written while the trigger changes and the existing turns are counted: each turn is
-- counted exactly once, by the count below or by a trigger.
LOCK TABLE "calls" IN SHARE ROW EXCLUSIVE MODE;--> statement-breakpoint
-- The upsert that adds the turns of `source`'s rows (columns: sign, then a calls row) to the
-- latency counts, per UTC hour and day, per group and for 'all': each turn the raw median reads
-- (calls-history.repo.ts, callsMedianTurnLatency) counts once under its exact value. The arrays
-- merge under the row's lock of ON CONFLICT, rows in key order, as in call_rollups_upsert_sql:
-- exact under concurrent writers.
CREATE FUNCTION call_latency_rollups_upsert_sql(source text) RETURNS text LANGUAGE sql IMMUTABLE AS $fn$
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
    (24::smallint, date_trunc('day', c.start_time AT TIME ZONE 'UTC') AT TIME ZONE 'UTC')) s(span, bucket)
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
CREATE OR REPLACE FUNCTION call_rollups_apply() RETURNS trigger LANGUAGE plpgsql AS $fn$
DECLARE
  source text;
BEGIN
  IF TG_OP = 'INSERT' THEN
    source := 'SELECT 1 AS sign, n.* FROM call_rollups_new n';
  ELSIF TG_OP = 'DELETE' THEN
    source := 'SELECT -1 AS sign, o.* FROM call_rollups_old o';
  ELSE
    source := 'SELECT -1 AS sign, o.* FROM call_rollups_old o UNION ALL SELECT 1, n.* FROM call_rollups_new n';
  END IF;
  EXECUTE call_rollups_upsert_sql(source);
  EXECUTE call_latency_rollups_upsert_sql(source);
  RETURN NULL;
END
$fn$;--> statement-breakpoint
-- The turns recorded before the latency counts existed.
DO $$ BEGIN EXECUTE call_latency_rollups_upsert_sql('SELECT 1 AS sign, c.* FROM calls c'); END $$;
