ALTER TABLE "assistants" ADD COLUMN "transfer_destinations" jsonb DEFAULT '[]'::jsonb NOT NULL;--> statement-breakpoint
ALTER TABLE "assistants" ADD COLUMN "allow_end_call" boolean DEFAULT true NOT NULL;--> statement-breakpoint
ALTER TABLE "assistants" ADD COLUMN "keypad_input" boolean DEFAULT true NOT NULL;