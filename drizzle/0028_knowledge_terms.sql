CREATE TABLE "knowledge_terms" (
	"organization_id" text NOT NULL,
	"knowledge_base_id" uuid NOT NULL,
	"lexeme" text NOT NULL,
	"passages" integer NOT NULL,
	CONSTRAINT "knowledge_terms_organization_id_knowledge_base_id_lexeme_pk" PRIMARY KEY("organization_id","knowledge_base_id","lexeme")
);
--> statement-breakpoint
ALTER TABLE "knowledge_terms" ADD CONSTRAINT "knowledge_terms_organization_id_organization_id_fk" FOREIGN KEY ("organization_id") REFERENCES "public"."organization"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
-- hand-written:
-- No passage is written while the triggers are made and the existing passages are counted: each
-- one is counted exactly once, by the sum below or by a trigger. Passages are never updated (a
-- document's are replaced: deleted, then inserted), so inserts and deletes keep the counts exact.
LOCK TABLE "knowledge_chunks" IN SHARE ROW EXCLUSIVE MODE;--> statement-breakpoint
INSERT INTO "knowledge_terms" ("organization_id", "knowledge_base_id", "lexeme", "passages")
SELECT c.organization_id, c.knowledge_base_id, w.lexeme, count(*)::int FROM knowledge_chunks c, unnest(c.search) AS w GROUP BY 1, 2, 3;--> statement-breakpoint
-- Rows go in key order, so two writers never wait for each other crosswise; ON CONFLICT adds under
-- the row's lock, exact under concurrency.
CREATE FUNCTION knowledge_terms_add() RETURNS trigger LANGUAGE plpgsql AS $fn$
BEGIN
  INSERT INTO knowledge_terms AS t (organization_id, knowledge_base_id, lexeme, passages)
  SELECT n.organization_id, n.knowledge_base_id, w.lexeme, count(*)::int FROM new_rows n, unnest(n.search) AS w
  GROUP BY 1, 2, 3 ORDER BY 1, 2, 3
  ON CONFLICT (organization_id, knowledge_base_id, lexeme) DO UPDATE SET passages = t.passages + excluded.passages;
  RETURN NULL;
END $fn$;--> statement-breakpoint
-- Only existing counts are lowered, never a row inserted: passages deleted with their organisation
-- may go after its counts did. Locked in key order first, as the insert does.
CREATE FUNCTION knowledge_terms_remove() RETURNS trigger LANGUAGE plpgsql AS $fn$
BEGIN
  PERFORM 1 FROM knowledge_terms t
    JOIN (SELECT DISTINCT o.organization_id, o.knowledge_base_id, w.lexeme FROM old_rows o, unnest(o.search) AS w) g USING (organization_id, knowledge_base_id, lexeme)
    ORDER BY t.organization_id, t.knowledge_base_id, t.lexeme FOR UPDATE OF t;
  UPDATE knowledge_terms t SET passages = t.passages - g.n
    FROM (SELECT o.organization_id, o.knowledge_base_id, w.lexeme, count(*)::int AS n FROM old_rows o, unnest(o.search) AS w GROUP BY 1, 2, 3) g
    WHERE t.organization_id = g.organization_id AND t.knowledge_base_id = g.knowledge_base_id AND t.lexeme = g.lexeme;
  -- Only the words the deleted passages had: a base's other words are not scanned.
  DELETE FROM knowledge_terms t WHERE t.passages <= 0
    AND (t.organization_id, t.knowledge_base_id, t.lexeme) IN (SELECT o.organization_id, o.knowledge_base_id, w.lexeme FROM old_rows o, unnest(o.search) AS w);
  RETURN NULL;
END $fn$;--> statement-breakpoint
CREATE TRIGGER knowledge_terms_add AFTER INSERT ON knowledge_chunks REFERENCING NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION knowledge_terms_add();--> statement-breakpoint
CREATE TRIGGER knowledge_terms_remove AFTER DELETE ON knowledge_chunks REFERENCING OLD TABLE AS old_rows FOR EACH STATEMENT EXECUTE FUNCTION knowledge_terms_remove();
