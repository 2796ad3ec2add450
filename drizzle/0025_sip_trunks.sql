CREATE TABLE "sip_trunks" (
	"id" uuid PRIMARY KEY DEFAULT gen_random_uuid() NOT NULL,
	"organization_id" text NOT NULL,
	"name" text NOT NULL,
	"inbound_addresses" text[] DEFAULT '{}'::text[] NOT NULL,
	"inbound_username" text,
	"inbound_password_encrypted" text,
	"outbound_uri" text,
	"outbound_username" text,
	"outbound_password_encrypted" text,
	"register" boolean DEFAULT false NOT NULL,
	"register_expires" integer DEFAULT 3600 NOT NULL,
	"caller_id" text,
	"prefix" text,
	"transport" text DEFAULT 'udp' NOT NULL,
	"last_options_at" timestamp with time zone,
	"registration_state" text DEFAULT 'unregistered' NOT NULL,
	"last_error" text,
	"last_error_at" timestamp with time zone,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
ALTER TABLE "phone_numbers" ALTER COLUMN "country_code" DROP NOT NULL;--> statement-breakpoint
ALTER TABLE "calls" ADD COLUMN "carrier" text DEFAULT 'twilio' NOT NULL;--> statement-breakpoint
ALTER TABLE "calls" ADD COLUMN "sip_call_id" text;--> statement-breakpoint
ALTER TABLE "phone_numbers" ADD COLUMN "provider" text DEFAULT 'twilio' NOT NULL;--> statement-breakpoint
ALTER TABLE "phone_numbers" ADD COLUMN "sip_trunk_id" uuid;--> statement-breakpoint
ALTER TABLE "sip_trunks" ADD CONSTRAINT "sip_trunks_organization_id_organization_id_fk" FOREIGN KEY ("organization_id") REFERENCES "public"."organization"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "sip_trunks_org_idx" ON "sip_trunks" USING btree ("organization_id","created_at");--> statement-breakpoint
CREATE INDEX "sip_trunks_register_idx" ON "sip_trunks" USING btree ("id") WHERE register;--> statement-breakpoint
ALTER TABLE "phone_numbers" ADD CONSTRAINT "phone_numbers_sip_trunk_id_sip_trunks_id_fk" FOREIGN KEY ("sip_trunk_id") REFERENCES "public"."sip_trunks"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
CREATE UNIQUE INDEX "phone_numbers_sip_number_idx" ON "phone_numbers" USING btree ("organization_id","phone_number") WHERE provider = 'sip';--> statement-breakpoint
CREATE INDEX "phone_numbers_sip_lookup_idx" ON "phone_numbers" USING btree (ltrim(phone_number, '+')) WHERE provider = 'sip';--> statement-breakpoint
CREATE INDEX "phone_numbers_sip_trunk_idx" ON "phone_numbers" USING btree ("sip_trunk_id");--> statement-breakpoint
-- hand-written:
-- A SIP number always names its trunk and a Twilio number never does; only Twilio numbers have a country.
ALTER TABLE "phone_numbers" ADD CONSTRAINT "phone_numbers_provider_trunk_check" CHECK ((provider = 'sip') = (sip_trunk_id IS NOT NULL) AND (provider = 'sip' OR country_code IS NOT NULL));
