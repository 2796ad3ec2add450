ALTER TABLE "calls" ADD COLUMN "caller_number" text;--> statement-breakpoint
ALTER TABLE "calls" ADD COLUMN "called_number" text;--> statement-breakpoint
ALTER TABLE "calls" ADD COLUMN "phone_number_id" uuid;--> statement-breakpoint
ALTER TABLE "calls" ADD COLUMN "provider_call_sid" text;--> statement-breakpoint
ALTER TABLE "calls" ADD CONSTRAINT "calls_phone_number_id_phone_numbers_id_fk" FOREIGN KEY ("phone_number_id") REFERENCES "public"."phone_numbers"("id") ON DELETE set null ON UPDATE no action;