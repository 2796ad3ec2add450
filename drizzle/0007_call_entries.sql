CREATE TABLE "call_entries" (
	"call_id" uuid NOT NULL,
	"kind" text NOT NULL,
	"position" integer NOT NULL,
	"body" jsonb NOT NULL,
	CONSTRAINT "call_entries_call_id_kind_position_pk" PRIMARY KEY("call_id","kind","position")
);
--> statement-breakpoint
ALTER TABLE "call_entries" ADD CONSTRAINT "call_entries_call_id_calls_id_fk" FOREIGN KEY ("call_id") REFERENCES "public"."calls"("id") ON DELETE cascade ON UPDATE no action;