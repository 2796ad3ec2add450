import { and, eq, isNull, lt, sql } from "drizzle-orm";
import type { Db } from "../../db/client.ts";
import { idempotencyKeys } from "../../db/schema.ts";
import { IDEMPOTENCY_WINDOW_HOURS } from "../../../shared/idempotency.ts";

export type IdempotencyRow = typeof idempotencyKeys.$inferSelect;

const expired = () => lt(idempotencyKeys.createdAt, sql`now() - make_interval(hours => ${IDEMPOTENCY_WINDOW_HOURS})`);

/**
 * Claims the key for a new request (true), or answers the row already there (false). An expired
 * row is removed first, so its key starts afresh. The insert is the lock: of two requests at
 * once, one claims and the other sees the claim.
 */
export async function claim(db: Db, organizationId: string, key: string, fingerprint: string): Promise<{ claimed: true } | { claimed: false; row: IdempotencyRow }> {
  await db.delete(idempotencyKeys).where(and(eq(idempotencyKeys.organizationId, organizationId), eq(idempotencyKeys.key, key), expired()));
  const inserted = await db.insert(idempotencyKeys).values({ organizationId, key, fingerprint }).onConflictDoNothing().returning({ key: idempotencyKeys.key });
  if (inserted.length) return { claimed: true };
  const [row] = await db.select().from(idempotencyKeys).where(and(eq(idempotencyKeys.organizationId, organizationId), eq(idempotencyKeys.key, key)));
  // Removed between the insert and the read (expired and purged): claim again.
  return row ? { claimed: false, row } : claim(db, organizationId, key, fingerprint);
}

/** The first request's answer, kept for the retries. */
export async function complete(db: Db, organizationId: string, key: string, status: number, body: string): Promise<void> {
  await db
    .update(idempotencyKeys)
    .set({ status, body })
    .where(and(eq(idempotencyKeys.organizationId, organizationId), eq(idempotencyKeys.key, key), isNull(idempotencyKeys.status)));
}

/** Lets the key go (the request failed on our side): a retry runs afresh. */
export async function release(db: Db, organizationId: string, key: string): Promise<void> {
  await db.delete(idempotencyKeys).where(and(eq(idempotencyKeys.organizationId, organizationId), eq(idempotencyKeys.key, key), isNull(idempotencyKeys.status)));
}

/** Every organisation's expired keys (the hourly purge job). */
export async function purgeExpired(db: Db): Promise<number> {
  const gone = await db.delete(idempotencyKeys).where(expired()).returning({ key: idempotencyKeys.key });
  return gone.length;
}
