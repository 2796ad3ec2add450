CREATE TABLE "call_rollups" (
	"organization_id" text NOT NULL,
	"span" smallint NOT NULL,
	"bucket" timestamp with time zone NOT NULL,
	"hour_of_day" smallint NOT NULL,
	"group_key" text NOT NULL,
	"assistant_id" uuid,
	"assistant_name" text,
	"assistant_version" integer,
	"is_test" boolean,
	"direction" text NOT NULL,
	"success_type" text,
	"success_value" text,
	"analysed" boolean NOT NULL,
	"calls" integer NOT NULL,
	"ended" integer NOT NULL,
	"ended_ms" numeric NOT NULL,
	"cost" numeric NOT NULL,
	"errors" integer NOT NULL,
	"transferred" integer NOT NULL
);
--> statement-breakpoint
ALTER TABLE "call_rollups" ADD CONSTRAINT "call_rollups_organization_id_organization_id_fk" FOREIGN KEY ("organization_id") REFERENCES "public"."organization"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
CREATE UNIQUE INDEX "call_rollups_key_idx" ON "call_rollups" USING btree ("organization_id","span","bucket","group_key");--> statement-breakpoint
CREATE INDEX "call_rollups_hour_of_day_idx" ON "call_rollups" USING btree ("organization_id","span","hour_of_day","bucket");--> statement-breakpoint
-- hand-written:
-- No call is written while the triggers are made and the existing calls are summed: each one is
-- counted exactly once, by the sum below or by a trigger.
LOCK TABLE "calls" IN SHARE ROW EXCLUSIVE MODE;--> statement-breakpoint
-- The upsert that adds `source`'s rows (columns: sign, then a calls row) to the roll-ups, as one
-- statement per hour and per UTC day. Each figure is the raw aggregate's term for one call
-- (calls-stats-raw.ts); the test compares them. Rows go in key order, so two writers never wait
-- for each other crosswise; ON CONFLICT adds under the row's lock, exact under concurrency.
CREATE FUNCTION call_rollups_upsert_sql(source text) RETURNS text LANGUAGE sql IMMUTABLE AS $fn$
SELECT format($q$
INSERT INTO call_rollups AS r (organization_id, span, bucket, hour_of_day, group_key, assistant_id, assistant_name,
  assistant_version, is_test, direction, success_type, success_value, analysed, calls, ended, ended_ms, cost, errors, transferred)
SELECT * FROM (
  SELECT c.organization_id, s.span, s.bucket, extract(hour FROM s.bucket AT TIME ZONE 'UTC')::smallint AS hour_of_day,
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
    sum(c.sign * (c.end_time IS NOT NULL AND coalesce(starts_with(c.ended_reason, 'Transferred to '), false))::int)::int AS transferred
  FROM (%s) c
  CROSS JOIN LATERAL (VALUES
    (1::smallint, date_trunc('hour', c.start_time AT TIME ZONE 'UTC') AT TIME ZONE 'UTC'),
    (24::smallint, date_trunc('day', c.start_time AT TIME ZONE 'UTC') AT TIME ZONE 'UTC')) s(span, bucket)
  CROSS JOIN LATERAL (SELECT
    jsonb_typeof(c.analysis -> 'success' -> 'value') AS success_type,
    c.analysis -> 'success' ->> 'value' AS success_value,
    coalesce(c.analysis ->> 'status' = 'done' AND jsonb_typeof(c.analysis -> 'success' -> 'value') IN ('string', 'number'), false) AS analysed) g
  -- A cascade from a deleted organisation has nothing left to count for.
  WHERE EXISTS (SELECT 1 FROM organization o WHERE o.id = c.organization_id)
  GROUP BY 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13
) d
-- An update that moved no figure (most of a live call's writes) writes nothing.
WHERE d.calls <> 0 OR d.ended <> 0 OR d.ended_ms <> 0 OR d.cost <> 0 OR d.errors <> 0 OR d.transferred <> 0
ORDER BY d.organization_id, d.span, d.bucket, d.group_key
ON CONFLICT (organization_id, span, bucket, group_key) DO UPDATE SET
  calls = r.calls + excluded.calls, ended = r.ended + excluded.ended, ended_ms = r.ended_ms + excluded.ended_ms,
  cost = r.cost + excluded.cost, errors = r.errors + excluded.errors, transferred = r.transferred + excluded.transferred
$q$, source)
$fn$;--> statement-breakpoint
CREATE FUNCTION call_rollups_apply() RETURNS trigger LANGUAGE plpgsql AS $fn$
BEGIN
  IF TG_OP = 'INSERT' THEN
    EXECUTE call_rollups_upsert_sql('SELECT 1 AS sign, n.* FROM call_rollups_new n');
  ELSIF TG_OP = 'DELETE' THEN
    EXECUTE call_rollups_upsert_sql('SELECT -1 AS sign, o.* FROM call_rollups_old o');
  ELSE
    EXECUTE call_rollups_upsert_sql('SELECT -1 AS sign, o.* FROM call_rollups_old o UNION ALL SELECT 1, n.* FROM call_rollups_new n');
  END IF;
  RETURN NULL;
END
$fn$;--> statement-breakpoint
CREATE TRIGGER call_rollups_insert AFTER INSERT ON calls REFERENCING NEW TABLE AS call_rollups_new
  FOR EACH STATEMENT EXECUTE FUNCTION call_rollups_apply();--> statement-breakpoint
CREATE TRIGGER call_rollups_update AFTER UPDATE ON calls REFERENCING OLD TABLE AS call_rollups_old NEW TABLE AS call_rollups_new
  FOR EACH STATEMENT EXECUTE FUNCTION call_rollups_apply();--> statement-breakpoint
CREATE TRIGGER call_rollups_delete AFTER DELETE ON calls REFERENCING OLD TABLE AS call_rollups_old
  FOR EACH STATEMENT EXECUTE FUNCTION call_rollups_apply();--> statement-breakpoint
-- The calls recorded before the roll-ups existed.
DO $$ BEGIN EXECUTE call_rollups_upsert_sql('SELECT 1 AS sign, c.* FROM calls c'); END $$;
