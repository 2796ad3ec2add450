CREATE TABLE "instances" (
	"id" text PRIMARY KEY NOT NULL,
	"started_at" timestamp with time zone DEFAULT now() NOT NULL,
	"lease_expires_at" timestamp with time zone NOT NULL
);
--> statement-breakpoint
CREATE TABLE "shared_counters" (
	"key" text PRIMARY KEY NOT NULL,
	"count" integer NOT NULL,
	"expires_at" timestamp with time zone NOT NULL
);
--> statement-breakpoint
ALTER TABLE "calls" ADD COLUMN "instance_id" text;--> statement-breakpoint
CREATE INDEX "shared_counters_expires_at_idx" ON "shared_counters" USING btree ("expires_at");--> statement-breakpoint
CREATE INDEX "calls_open_idx" ON "calls" USING btree ("instance_id") WHERE end_time IS NULL;