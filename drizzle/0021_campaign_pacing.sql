ALTER TABLE "campaigns" ADD COLUMN "pace_tokens" double precision;--> statement-breakpoint
ALTER TABLE "campaigns" ADD COLUMN "paced_at" timestamp with time zone;