ALTER TABLE "api_keys" ADD COLUMN "created_by" text;--> statement-breakpoint
ALTER TABLE "audit_log" ADD COLUMN "actor_api_key_id" uuid;--> statement-breakpoint
ALTER TABLE "api_keys" ADD CONSTRAINT "api_keys_creator_member_fk" FOREIGN KEY ("organization_id","created_by") REFERENCES "public"."member"("organization_id","user_id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
-- hand-written:
-- Keys made before they had a creator act for their organisation's first owner (the oldest
-- owner membership); the column is NOT NULL once every key has one.
UPDATE "api_keys" SET "created_by" = (
  SELECT "m"."user_id" FROM "member" "m"
  WHERE "m"."organization_id" = "api_keys"."organization_id" AND "m"."role" = 'owner'
  ORDER BY "m"."created_at", "m"."id" LIMIT 1
);--> statement-breakpoint
-- An organisation with no owner left has nobody its keys could act for: they go.
DELETE FROM "api_keys" WHERE "created_by" IS NULL;--> statement-breakpoint
ALTER TABLE "api_keys" ALTER COLUMN "created_by" SET NOT NULL;
