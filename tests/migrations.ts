import { cpSync, mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { PGlite } from "@electric-sql/pglite";
import { drizzle } from "drizzle-orm/pglite";
import { migrate } from "drizzle-orm/pglite/migrator";
import { afterAll } from "vitest";

/** The repository's migrations folder: a migration test first migrates up to a tag, then to here. */
export const MIGRATIONS = join(import.meta.dirname, "../drizzle");

/** The migrations folder as it was up to `tag` (the journal cut after it), for data made before a migration. */
export function migrationsUpTo(tag: string): string {
  const dir = mkdtempSync(join(tmpdir(), "migrations-"));
  cpSync(MIGRATIONS, dir, { recursive: true });
  const journalPath = join(dir, "meta/_journal.json");
  const journal = JSON.parse(readFileSync(journalPath, "utf8")) as { entries: { tag: string }[] };
  journal.entries = journal.entries.slice(0, journal.entries.findIndex((e) => e.tag === tag) + 1);
  writeFileSync(journalPath, JSON.stringify(journal));
  return dir;
}

/**
 * A file's own PGlite database for a migration test, closed after its last test: `migrateToTag()`
 * brings it up to `tag` (insert the old data then), `upgrade()` runs every later migration.
 */
export function useDatabaseBefore(tag: string) {
  const client = new PGlite();
  const db = drizzle(client);
  afterAll(() => client.close());
  return {
    client,
    migrateToTag: () => migrate(db, { migrationsFolder: migrationsUpTo(tag) }),
    upgrade: () => migrate(db, { migrationsFolder: MIGRATIONS }),
  };
}
