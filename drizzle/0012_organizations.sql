-- Organisations own every product row: each user gets one ("<name>'s team", its id the user's
-- id), is its owner, and their rows move to it. Nothing is lost.
CREATE TABLE "invitation" (
	"id" text PRIMARY KEY NOT NULL,
	"organization_id" text NOT NULL,
	"email" text NOT NULL,
	"role" text NOT NULL,
	"status" text DEFAULT 'pending' NOT NULL,
	"inviter_id" text,
	"expires_at" timestamp with time zone NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "member" (
	"id" text PRIMARY KEY NOT NULL,
	"organization_id" text NOT NULL,
	"user_id" text NOT NULL,
	"role" text NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "organization" (
	"id" text PRIMARY KEY NOT NULL,
	"name" text NOT NULL,
	"slug" text NOT NULL,
	"logo" text,
	"metadata" text,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "organization_slug_unique" UNIQUE("slug")
);
--> statement-breakpoint
ALTER TABLE "session" ADD COLUMN "active_organization_id" text;
--> statement-breakpoint
INSERT INTO "organization" ("id", "name", "slug", "created_at") SELECT "id", "name" || '''s team', "id", "created_at" FROM "user";
--> statement-breakpoint
INSERT INTO "member" ("id", "organization_id", "user_id", "role", "created_at") SELECT gen_random_uuid()::text, "id", "id", 'owner', "created_at" FROM "user";
--> statement-breakpoint
ALTER TABLE "tools" ADD COLUMN "organization_id" text;
--> statement-breakpoint
UPDATE "tools" SET "organization_id" = "user_id";
--> statement-breakpoint
ALTER TABLE "tools" ALTER COLUMN "organization_id" SET NOT NULL;
--> statement-breakpoint
ALTER TABLE "tools" DROP COLUMN "user_id";
--> statement-breakpoint
ALTER TABLE "assistants" ADD COLUMN "organization_id" text;
--> statement-breakpoint
UPDATE "assistants" SET "organization_id" = "user_id";
--> statement-breakpoint
ALTER TABLE "assistants" ALTER COLUMN "organization_id" SET NOT NULL;
--> statement-breakpoint
ALTER TABLE "assistants" DROP COLUMN "user_id";
--> statement-breakpoint
ALTER TABLE "assistant_versions" ADD COLUMN "organization_id" text;
--> statement-breakpoint
UPDATE "assistant_versions" SET "organization_id" = "user_id";
--> statement-breakpoint
ALTER TABLE "assistant_versions" ALTER COLUMN "organization_id" SET NOT NULL;
--> statement-breakpoint
ALTER TABLE "assistant_versions" DROP COLUMN "user_id";
--> statement-breakpoint
ALTER TABLE "phone_numbers" ADD COLUMN "organization_id" text;
--> statement-breakpoint
UPDATE "phone_numbers" SET "organization_id" = "user_id";
--> statement-breakpoint
ALTER TABLE "phone_numbers" ALTER COLUMN "organization_id" SET NOT NULL;
--> statement-breakpoint
ALTER TABLE "phone_numbers" DROP COLUMN "user_id";
--> statement-breakpoint
ALTER TABLE "calls" ADD COLUMN "organization_id" text;
--> statement-breakpoint
UPDATE "calls" SET "organization_id" = "user_id";
--> statement-breakpoint
ALTER TABLE "calls" ALTER COLUMN "organization_id" SET NOT NULL;
--> statement-breakpoint
ALTER TABLE "calls" DROP COLUMN "user_id";
--> statement-breakpoint
ALTER TABLE "analysis_runs" ADD COLUMN "organization_id" text;
--> statement-breakpoint
UPDATE "analysis_runs" SET "organization_id" = "user_id";
--> statement-breakpoint
ALTER TABLE "analysis_runs" ALTER COLUMN "organization_id" SET NOT NULL;
--> statement-breakpoint
ALTER TABLE "analysis_runs" DROP COLUMN "user_id";
--> statement-breakpoint
ALTER TABLE "call_retention" ADD COLUMN "organization_id" text;
--> statement-breakpoint
UPDATE "call_retention" SET "organization_id" = "user_id";
--> statement-breakpoint
ALTER TABLE "call_retention" ALTER COLUMN "organization_id" SET NOT NULL;
--> statement-breakpoint
ALTER TABLE "call_retention" DROP COLUMN "user_id";
--> statement-breakpoint
ALTER TABLE "campaigns" ADD COLUMN "organization_id" text;
--> statement-breakpoint
UPDATE "campaigns" SET "organization_id" = "user_id";
--> statement-breakpoint
ALTER TABLE "campaigns" ALTER COLUMN "organization_id" SET NOT NULL;
--> statement-breakpoint
ALTER TABLE "campaigns" DROP COLUMN "user_id";
--> statement-breakpoint
ALTER TABLE "call_settings" ADD COLUMN "organization_id" text;
--> statement-breakpoint
UPDATE "call_settings" SET "organization_id" = "user_id";
--> statement-breakpoint
ALTER TABLE "call_settings" ALTER COLUMN "organization_id" SET NOT NULL;
--> statement-breakpoint
ALTER TABLE "call_settings" DROP COLUMN "user_id";
--> statement-breakpoint
ALTER TABLE "do_not_call" ADD COLUMN "organization_id" text;
--> statement-breakpoint
UPDATE "do_not_call" SET "organization_id" = "user_id";
--> statement-breakpoint
ALTER TABLE "do_not_call" ALTER COLUMN "organization_id" SET NOT NULL;
--> statement-breakpoint
ALTER TABLE "do_not_call" DROP COLUMN "user_id";
--> statement-breakpoint
ALTER TABLE "credentials" ADD COLUMN "organization_id" text;
--> statement-breakpoint
UPDATE "credentials" SET "organization_id" = "user_id";
--> statement-breakpoint
ALTER TABLE "credentials" ALTER COLUMN "organization_id" SET NOT NULL;
--> statement-breakpoint
ALTER TABLE "credentials" DROP COLUMN "user_id";
--> statement-breakpoint
ALTER TABLE "webhook_endpoints" ADD COLUMN "organization_id" text;
--> statement-breakpoint
UPDATE "webhook_endpoints" SET "organization_id" = "user_id";
--> statement-breakpoint
ALTER TABLE "webhook_endpoints" ALTER COLUMN "organization_id" SET NOT NULL;
--> statement-breakpoint
ALTER TABLE "webhook_endpoints" DROP COLUMN "user_id";
--> statement-breakpoint
ALTER TABLE "webhook_deliveries" ADD COLUMN "organization_id" text;
--> statement-breakpoint
UPDATE "webhook_deliveries" SET "organization_id" = "user_id";
--> statement-breakpoint
ALTER TABLE "webhook_deliveries" ALTER COLUMN "organization_id" SET NOT NULL;
--> statement-breakpoint
ALTER TABLE "webhook_deliveries" DROP COLUMN "user_id";
--> statement-breakpoint
ALTER TABLE "api_keys" ADD COLUMN "organization_id" text;
--> statement-breakpoint
UPDATE "api_keys" SET "organization_id" = "user_id";
--> statement-breakpoint
ALTER TABLE "api_keys" ALTER COLUMN "organization_id" SET NOT NULL;
--> statement-breakpoint
ALTER TABLE "api_keys" DROP COLUMN "user_id";
--> statement-breakpoint
ALTER TABLE "call_retention" ADD PRIMARY KEY ("organization_id");
--> statement-breakpoint
ALTER TABLE "call_settings" ADD PRIMARY KEY ("organization_id");
--> statement-breakpoint
ALTER TABLE "credentials" ADD CONSTRAINT "credentials_organization_id_name_pk" PRIMARY KEY("organization_id","name");
--> statement-breakpoint
ALTER TABLE "do_not_call" ADD CONSTRAINT "do_not_call_organization_id_phone_pk" PRIMARY KEY("organization_id","phone");
--> statement-breakpoint
ALTER TABLE "invitation" ADD CONSTRAINT "invitation_organization_id_organization_id_fk" FOREIGN KEY ("organization_id") REFERENCES "public"."organization"("id") ON DELETE cascade ON UPDATE no action;
--> statement-breakpoint
ALTER TABLE "invitation" ADD CONSTRAINT "invitation_inviter_id_user_id_fk" FOREIGN KEY ("inviter_id") REFERENCES "public"."user"("id") ON DELETE set null ON UPDATE no action;
--> statement-breakpoint
ALTER TABLE "member" ADD CONSTRAINT "member_organization_id_organization_id_fk" FOREIGN KEY ("organization_id") REFERENCES "public"."organization"("id") ON DELETE cascade ON UPDATE no action;
--> statement-breakpoint
ALTER TABLE "member" ADD CONSTRAINT "member_user_id_user_id_fk" FOREIGN KEY ("user_id") REFERENCES "public"."user"("id") ON DELETE cascade ON UPDATE no action;
--> statement-breakpoint
CREATE INDEX "invitation_organization_idx" ON "invitation" USING btree ("organization_id","created_at");
--> statement-breakpoint
CREATE INDEX "invitation_email_idx" ON "invitation" USING btree ("email");
--> statement-breakpoint
CREATE UNIQUE INDEX "member_organization_user_idx" ON "member" USING btree ("organization_id","user_id");
--> statement-breakpoint
CREATE INDEX "member_user_idx" ON "member" USING btree ("user_id");
--> statement-breakpoint
ALTER TABLE "analysis_runs" ADD CONSTRAINT "analysis_runs_organization_id_organization_id_fk" FOREIGN KEY ("organization_id") REFERENCES "public"."organization"("id") ON DELETE cascade ON UPDATE no action;
--> statement-breakpoint
ALTER TABLE "api_keys" ADD CONSTRAINT "api_keys_organization_id_organization_id_fk" FOREIGN KEY ("organization_id") REFERENCES "public"."organization"("id") ON DELETE cascade ON UPDATE no action;
--> statement-breakpoint
ALTER TABLE "assistant_versions" ADD CONSTRAINT "assistant_versions_organization_id_organization_id_fk" FOREIGN KEY ("organization_id") REFERENCES "public"."organization"("id") ON DELETE cascade ON UPDATE no action;
--> statement-breakpoint
ALTER TABLE "assistants" ADD CONSTRAINT "assistants_organization_id_organization_id_fk" FOREIGN KEY ("organization_id") REFERENCES "public"."organization"("id") ON DELETE cascade ON UPDATE no action;
--> statement-breakpoint
ALTER TABLE "call_retention" ADD CONSTRAINT "call_retention_organization_id_organization_id_fk" FOREIGN KEY ("organization_id") REFERENCES "public"."organization"("id") ON DELETE cascade ON UPDATE no action;
--> statement-breakpoint
ALTER TABLE "call_settings" ADD CONSTRAINT "call_settings_organization_id_organization_id_fk" FOREIGN KEY ("organization_id") REFERENCES "public"."organization"("id") ON DELETE cascade ON UPDATE no action;
--> statement-breakpoint
ALTER TABLE "calls" ADD CONSTRAINT "calls_organization_id_organization_id_fk" FOREIGN KEY ("organization_id") REFERENCES "public"."organization"("id") ON DELETE cascade ON UPDATE no action;
--> statement-breakpoint
ALTER TABLE "campaigns" ADD CONSTRAINT "campaigns_organization_id_organization_id_fk" FOREIGN KEY ("organization_id") REFERENCES "public"."organization"("id") ON DELETE cascade ON UPDATE no action;
--> statement-breakpoint
ALTER TABLE "credentials" ADD CONSTRAINT "credentials_organization_id_organization_id_fk" FOREIGN KEY ("organization_id") REFERENCES "public"."organization"("id") ON DELETE cascade ON UPDATE no action;
--> statement-breakpoint
ALTER TABLE "do_not_call" ADD CONSTRAINT "do_not_call_organization_id_organization_id_fk" FOREIGN KEY ("organization_id") REFERENCES "public"."organization"("id") ON DELETE cascade ON UPDATE no action;
--> statement-breakpoint
ALTER TABLE "phone_numbers" ADD CONSTRAINT "phone_numbers_organization_id_organization_id_fk" FOREIGN KEY ("organization_id") REFERENCES "public"."organization"("id") ON DELETE cascade ON UPDATE no action;
--> statement-breakpoint
ALTER TABLE "tools" ADD CONSTRAINT "tools_organization_id_organization_id_fk" FOREIGN KEY ("organization_id") REFERENCES "public"."organization"("id") ON DELETE cascade ON UPDATE no action;
--> statement-breakpoint
ALTER TABLE "webhook_deliveries" ADD CONSTRAINT "webhook_deliveries_organization_id_organization_id_fk" FOREIGN KEY ("organization_id") REFERENCES "public"."organization"("id") ON DELETE cascade ON UPDATE no action;
--> statement-breakpoint
ALTER TABLE "webhook_endpoints" ADD CONSTRAINT "webhook_endpoints_organization_id_organization_id_fk" FOREIGN KEY ("organization_id") REFERENCES "public"."organization"("id") ON DELETE cascade ON UPDATE no action;
--> statement-breakpoint
CREATE INDEX "analysis_runs_org_assistant_idx" ON "analysis_runs" USING btree ("organization_id","assistant_id","created_at");
--> statement-breakpoint
CREATE INDEX "api_keys_org_idx" ON "api_keys" USING btree ("organization_id","created_at");
--> statement-breakpoint
CREATE INDEX "assistant_versions_org_idx" ON "assistant_versions" USING btree ("organization_id");
--> statement-breakpoint
CREATE INDEX "assistants_org_idx" ON "assistants" USING btree ("organization_id","created_at");
--> statement-breakpoint
CREATE INDEX "calls_org_start_idx" ON "calls" USING btree ("organization_id","start_time","id");
--> statement-breakpoint
CREATE INDEX "calls_org_assistant_start_idx" ON "calls" USING btree ("organization_id","assistant_id","start_time","id");
--> statement-breakpoint
CREATE INDEX "calls_org_assistant_version_start_idx" ON "calls" USING btree ("organization_id","assistant_id","assistant_version","start_time","id");
--> statement-breakpoint
CREATE INDEX "calls_org_type_start_idx" ON "calls" USING btree ("organization_id","is_test","start_time","id");
--> statement-breakpoint
CREATE INDEX "calls_org_status_start_idx" ON "calls" USING btree ("organization_id","status","start_time","id");
--> statement-breakpoint
CREATE INDEX "calls_org_direction_start_idx" ON "calls" USING btree ("organization_id","direction","start_time","id");
--> statement-breakpoint
CREATE INDEX "campaigns_org_created_idx" ON "campaigns" USING btree ("organization_id","created_at");
--> statement-breakpoint
CREATE INDEX "phone_numbers_org_idx" ON "phone_numbers" USING btree ("organization_id","created_at");
--> statement-breakpoint
CREATE INDEX "tools_org_idx" ON "tools" USING btree ("organization_id","created_at");
--> statement-breakpoint
CREATE INDEX "webhook_endpoints_org_idx" ON "webhook_endpoints" USING btree ("organization_id","created_at");
--> statement-breakpoint
CREATE INDEX "calls_open_outbound_idx" ON "calls" USING btree ("organization_id") WHERE end_time IS NULL AND direction = 'outbound';
