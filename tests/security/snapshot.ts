import { sql } from "drizzle-orm";
import type { Db } from "../../src/server/db/client.ts";

/** Every table with user data: a bad request must leave all of them exactly as they were. */
export const DATA_TABLES = ["user", "session", "account", "verification", "tools", "assistants", "phone_numbers", "calls", "call_retention", "credentials", "demo_requests", "scenarios", "test_runs", "test_results"] as const;

/** One hash per table over every row's full text: equal snapshots mean nothing was written. */
export async function snapshot(db: Db, tables: readonly string[] = DATA_TABLES): Promise<Record<string, string>> {
  const select = tables
    .map((t) => `(SELECT md5(coalesce(string_agg(r::text, '|' ORDER BY r::text), '')) FROM "${t}" r) AS "${t}"`)
    .join(", ");
  const result = (await db.execute(sql.raw(`SELECT ${select}`))) as unknown as { rows: Record<string, string>[] };
  return result.rows[0]!;
}

/** The tables whose content differs between two snapshots. */
export const changedTables = (before: Record<string, string>, after: Record<string, string>) =>
  Object.keys(before).filter((t) => before[t] !== after[t]);
