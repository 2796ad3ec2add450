CREATE TABLE "assistant_versions" (
	"id" uuid PRIMARY KEY DEFAULT gen_random_uuid() NOT NULL,
	"user_id" text NOT NULL,
	"assistant_id" uuid NOT NULL,
	"version" integer NOT NULL,
	"content" jsonb NOT NULL,
	"note" text,
	"published_by" text,
	"published_with_failures" boolean DEFAULT false NOT NULL,
	"rolled_back_from" integer,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
ALTER TABLE "calls" ADD COLUMN "assistant_version" integer;--> statement-breakpoint
ALTER TABLE "phone_numbers" ADD COLUMN "assistant_version" integer;--> statement-breakpoint
ALTER TABLE "assistant_versions" ADD CONSTRAINT "assistant_versions_user_id_user_id_fk" FOREIGN KEY ("user_id") REFERENCES "public"."user"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "assistant_versions" ADD CONSTRAINT "assistant_versions_assistant_id_assistants_id_fk" FOREIGN KEY ("assistant_id") REFERENCES "public"."assistants"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "assistant_versions" ADD CONSTRAINT "assistant_versions_published_by_user_id_fk" FOREIGN KEY ("published_by") REFERENCES "public"."user"("id") ON DELETE set null ON UPDATE no action;--> statement-breakpoint
CREATE UNIQUE INDEX "assistant_versions_assistant_version_idx" ON "assistant_versions" USING btree ("assistant_id","version");--> statement-breakpoint
CREATE INDEX "assistant_versions_user_idx" ON "assistant_versions" USING btree ("user_id");--> statement-breakpoint
CREATE INDEX "calls_user_assistant_version_start_idx" ON "calls" USING btree ("user_id","assistant_id","assistant_version","start_time","id");--> statement-breakpoint
-- Every assistant that exists before versions is published as v1 with what it has now, so
-- its numbers keep answering exactly as before (hand-written: docs/decisions/040-assistant-versions.md).
INSERT INTO "assistant_versions" ("user_id", "assistant_id", "version", "content", "created_at")
SELECT "user_id", "id", 1,
  jsonb_build_object(
    'first_message', "first_message", 'instructions', "instructions", 'tool_ids', "tool_ids",
    'voice', "voice", 'model', "model", 'transfer_destinations', "transfer_destinations",
    'allow_end_call', "allow_end_call", 'keypad_input', "keypad_input") || CASE WHEN "analysis" IS NULL THEN '{}'::jsonb ELSE jsonb_build_object('analysis', "analysis") END,
  "updated_at"
FROM "assistants";
