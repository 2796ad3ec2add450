import { sql } from "drizzle-orm";
import type { Db } from "./client.ts";

/**
 * Runs `run` in one transaction holding a per-organisation advisory lock named by `purpose`:
 * a check and the write it guards (a count against a limit, "is there another owner", "is a run
 * in flight") are then one step for every request and instance on the database, where two
 * separate statements let two concurrent requests both pass the check. The lock is released
 * with the transaction; other purposes and other organisations never wait for it.
 */
export function withOrganizationLock<T>(db: Db, organizationId: string, purpose: string, run: (tx: Db) => Promise<T>): Promise<T> {
  return db.transaction(async (tx) => {
    await lockOrganization(tx as unknown as Db, organizationId, purpose);
    return run(tx as unknown as Db);
  });
}

/** The same lock, taken inside a transaction the caller already holds (released when it ends). */
export async function lockOrganization(tx: Db, organizationId: string, purpose: string): Promise<void> {
  await tx.execute(sql`SELECT pg_advisory_xact_lock(hashtext(${`${purpose}:${organizationId}`}))`);
}

/** The lock every change to an organisation's owners takes (team roles and removals, account deletion). */
export const OWNERS_LOCK = "owners";

/**
 * Inserts with `insert` only while `count` is below `limit`, atomically (withOrganizationLock):
 * null at the limit, for the caller to refuse with its own message. The one helper behind every
 * "at most N per organisation" rule (webhook endpoints, API keys, scenarios).
 */
export function insertWithinLimit<T>(
  db: Db,
  scope: { organizationId: string; purpose: string; limit: number },
  count: (tx: Db) => Promise<number>,
  insert: (tx: Db) => Promise<T>,
): Promise<T | null> {
  return withOrganizationLock(db, scope.organizationId, `limit:${scope.purpose}`, async (tx) => ((await count(tx)) >= scope.limit ? null : insert(tx)));
}
