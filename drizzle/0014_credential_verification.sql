ALTER TABLE "credentials" ADD COLUMN "verified" boolean;--> statement-breakpoint
ALTER TABLE "credentials" ADD COLUMN "verification_message" text;--> statement-breakpoint
ALTER TABLE "credentials" ADD COLUMN "checked_at" timestamp with time zone;