ALTER TABLE "call_settings" ADD COLUMN "busy_message" text;--> statement-breakpoint
ALTER TABLE "instances" ADD COLUMN "public_url" text;--> statement-breakpoint
ALTER TABLE "instances" ADD COLUMN "calls" integer DEFAULT 0 NOT NULL;--> statement-breakpoint
ALTER TABLE "instances" ADD COLUMN "max_calls" integer DEFAULT 0 NOT NULL;--> statement-breakpoint
ALTER TABLE "instances" ADD COLUMN "draining" boolean DEFAULT false NOT NULL;