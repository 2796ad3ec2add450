CREATE TABLE "call_settings" (
	"user_id" text PRIMARY KEY NOT NULL,
	"max_concurrent_calls" integer NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "campaign_contacts" (
	"campaign_id" uuid NOT NULL,
	"row" integer NOT NULL,
	"phone" text NOT NULL,
	"timezone" text,
	"variables" jsonb NOT NULL,
	"state" text DEFAULT 'pending' NOT NULL,
	"attempts" integer DEFAULT 0 NOT NULL,
	"next_attempt_at" timestamp with time zone,
	"last_dialled_at" timestamp with time zone,
	"last_outcome" text,
	"call_id" uuid,
	CONSTRAINT "campaign_contacts_campaign_id_row_pk" PRIMARY KEY("campaign_id","row")
);
--> statement-breakpoint
CREATE TABLE "campaigns" (
	"id" uuid PRIMARY KEY DEFAULT gen_random_uuid() NOT NULL,
	"user_id" text NOT NULL,
	"name" text NOT NULL,
	"assistant_id" uuid,
	"phone_number_id" uuid,
	"status" text DEFAULT 'draft' NOT NULL,
	"waiting_reason" text,
	"timezone" text NOT NULL,
	"start_at" timestamp with time zone,
	"windows" jsonb NOT NULL,
	"max_concurrent_calls" integer NOT NULL,
	"calls_per_minute" integer,
	"retry" jsonb NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "do_not_call" (
	"user_id" text NOT NULL,
	"phone" text NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "do_not_call_user_id_phone_pk" PRIMARY KEY("user_id","phone")
);
--> statement-breakpoint
ALTER TABLE "assistants" ADD COLUMN "timezone" text DEFAULT 'UTC' NOT NULL;--> statement-breakpoint
ALTER TABLE "assistants" ADD COLUMN "voicemail" jsonb;--> statement-breakpoint
ALTER TABLE "assistants" ADD COLUMN "allow_do_not_call" boolean DEFAULT false NOT NULL;--> statement-breakpoint
ALTER TABLE "calls" ADD COLUMN "direction" text DEFAULT 'inbound' NOT NULL;--> statement-breakpoint
ALTER TABLE "calls" ADD COLUMN "provider_status" text;--> statement-breakpoint
ALTER TABLE "calls" ADD COLUMN "answered_by" text;--> statement-breakpoint
ALTER TABLE "calls" ADD COLUMN "campaign_id" uuid;--> statement-breakpoint
ALTER TABLE "calls" ADD COLUMN "variables" jsonb;--> statement-breakpoint
ALTER TABLE "call_settings" ADD CONSTRAINT "call_settings_user_id_user_id_fk" FOREIGN KEY ("user_id") REFERENCES "public"."user"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "campaign_contacts" ADD CONSTRAINT "campaign_contacts_campaign_id_campaigns_id_fk" FOREIGN KEY ("campaign_id") REFERENCES "public"."campaigns"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "campaigns" ADD CONSTRAINT "campaigns_user_id_user_id_fk" FOREIGN KEY ("user_id") REFERENCES "public"."user"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "campaigns" ADD CONSTRAINT "campaigns_assistant_id_assistants_id_fk" FOREIGN KEY ("assistant_id") REFERENCES "public"."assistants"("id") ON DELETE set null ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "campaigns" ADD CONSTRAINT "campaigns_phone_number_id_phone_numbers_id_fk" FOREIGN KEY ("phone_number_id") REFERENCES "public"."phone_numbers"("id") ON DELETE set null ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "do_not_call" ADD CONSTRAINT "do_not_call_user_id_user_id_fk" FOREIGN KEY ("user_id") REFERENCES "public"."user"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "campaign_contacts_due_idx" ON "campaign_contacts" USING btree ("campaign_id","state","next_attempt_at");--> statement-breakpoint
CREATE INDEX "campaign_contacts_dialled_idx" ON "campaign_contacts" USING btree ("campaign_id","last_dialled_at");--> statement-breakpoint
CREATE INDEX "campaigns_user_created_idx" ON "campaigns" USING btree ("user_id","created_at");--> statement-breakpoint
CREATE INDEX "calls_user_direction_start_idx" ON "calls" USING btree ("user_id","direction","start_time","id");--> statement-breakpoint
CREATE INDEX "calls_open_outbound_idx" ON "calls" USING btree ("user_id") WHERE end_time IS NULL AND direction = 'outbound';