CREATE TABLE "call_retention" (
	"user_id" text PRIMARY KEY NOT NULL,
	"recordings_days" integer,
	"calls_days" integer,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
DROP INDEX "calls_user_id_idx";--> statement-breakpoint
ALTER TABLE "calls" ADD COLUMN "provider_cost" jsonb;--> statement-breakpoint
ALTER TABLE "calls" ADD COLUMN "is_test" boolean GENERATED ALWAYS AS (CASE WHEN jsonb_typeof(logs -> 'isTest') = 'boolean' THEN (logs ->> 'isTest')::boolean END) STORED;--> statement-breakpoint
ALTER TABLE "calls" ADD COLUMN "status" text GENERATED ALWAYS AS (CASE WHEN end_time IS NULL THEN 'in_progress' WHEN ended_reason ~* '(error|fail)' THEN 'error' ELSE 'completed' END) STORED;--> statement-breakpoint
ALTER TABLE "calls" ADD COLUMN "search" "tsvector" GENERATED ALWAYS AS (to_tsvector('simple'::regconfig, coalesce(ltrim(caller_number, '+') || ' ' || right(caller_number, 10) || ' ' || right(caller_number, 4), '')) || to_tsvector('simple'::regconfig, jsonb_path_query_array(logs, '$.transcript[*].content'))) STORED;--> statement-breakpoint
ALTER TABLE "call_retention" ADD CONSTRAINT "call_retention_user_id_user_id_fk" FOREIGN KEY ("user_id") REFERENCES "public"."user"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "calls_user_start_idx" ON "calls" USING btree ("user_id","start_time","id");--> statement-breakpoint
CREATE INDEX "calls_user_assistant_start_idx" ON "calls" USING btree ("user_id","assistant_id","start_time","id");--> statement-breakpoint
CREATE INDEX "calls_user_type_start_idx" ON "calls" USING btree ("user_id","is_test","start_time","id");--> statement-breakpoint
CREATE INDEX "calls_user_status_start_idx" ON "calls" USING btree ("user_id","status","start_time","id");--> statement-breakpoint
CREATE INDEX "calls_search_idx" ON "calls" USING gin ("search");