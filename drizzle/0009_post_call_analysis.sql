CREATE TABLE "analysis_runs" (
	"id" uuid PRIMARY KEY DEFAULT gen_random_uuid() NOT NULL,
	"user_id" text NOT NULL,
	"assistant_id" uuid NOT NULL,
	"total" integer NOT NULL,
	"finished" integer DEFAULT 0 NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
ALTER TABLE "assistants" ADD COLUMN "analysis" jsonb;
--> statement-breakpoint
ALTER TABLE "calls" ADD COLUMN "analysis" jsonb;
--> statement-breakpoint
-- The search document now includes the analysis summary: the generated column is re-made (its GIN index goes with it).
ALTER TABLE "calls" drop column "search";
--> statement-breakpoint
ALTER TABLE "calls" ADD COLUMN "search" "tsvector" GENERATED ALWAYS AS (to_tsvector('simple'::regconfig, coalesce(ltrim(caller_number, '+') || ' ' || right(caller_number, 10) || ' ' || right(caller_number, 4), '')) || to_tsvector('simple'::regconfig, jsonb_path_query_array(logs, '$.transcript[*].content')) || to_tsvector('simple'::regconfig, coalesce(analysis ->> 'summary', ''))) STORED;
--> statement-breakpoint
CREATE INDEX "calls_search_idx" ON "calls" USING gin ("search");
--> statement-breakpoint
ALTER TABLE "analysis_runs" ADD CONSTRAINT "analysis_runs_user_id_user_id_fk" FOREIGN KEY ("user_id") REFERENCES "public"."user"("id") ON DELETE cascade ON UPDATE no action;
--> statement-breakpoint
ALTER TABLE "analysis_runs" ADD CONSTRAINT "analysis_runs_assistant_id_assistants_id_fk" FOREIGN KEY ("assistant_id") REFERENCES "public"."assistants"("id") ON DELETE cascade ON UPDATE no action;
--> statement-breakpoint
CREATE INDEX "analysis_runs_user_assistant_idx" ON "analysis_runs" USING btree ("user_id","assistant_id","created_at");