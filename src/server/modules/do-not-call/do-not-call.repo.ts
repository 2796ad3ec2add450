/** The do-not-call list: numbers (E.164) an owner's calls must never dial. Scoped by owner. */
import { and, count, desc, eq, inArray, lt, or, sql } from "drizzle-orm";
import type { Db } from "../../db/client.ts";
import { doNotCall } from "../../db/schema.ts";

export async function addNumbers(db: Db, organizationId: string, phones: string[]): Promise<number> {
  let added = 0;
  // Slices keep each statement's parameters well under PostgreSQL's limit.
  for (let i = 0; i < phones.length; i += 1000) {
    const rows = await db
      .insert(doNotCall)
      .values(phones.slice(i, i + 1000).map((phone) => ({ organizationId, phone })))
      .onConflictDoNothing()
      .returning({ phone: doNotCall.phone });
    added += rows.length;
  }
  return added;
}

export async function removeNumber(db: Db, organizationId: string, phone: string): Promise<boolean> {
  const rows = await db.delete(doNotCall).where(and(eq(doNotCall.organizationId, organizationId), eq(doNotCall.phone, phone))).returning({ phone: doNotCall.phone });
  return rows.length > 0;
}

/** Which of `phones` are on the list. */
export async function listed(db: Db, organizationId: string, phones: string[]): Promise<Set<string>> {
  if (phones.length === 0) return new Set();
  const rows = await db.select({ phone: doNotCall.phone }).from(doNotCall).where(and(eq(doNotCall.organizationId, organizationId), inArray(doNotCall.phone, phones)));
  return new Set(rows.map((r) => r.phone));
}

/**
 * Newest first, keyset-paged by (created_at, phone). The cursor carries an ISO time (milliseconds)
 * while PostgreSQL keeps microseconds: compared as they are, a row added in the same millisecond
 * as the page's last one would be neither before nor equal to it and never listed.
 */
export async function page(db: Db, organizationId: string, limit: number, after: { createdAt: Date; phone: string } | null) {
  const addedAt = sql<Date>`date_trunc('milliseconds', ${doNotCall.createdAt})`;
  const at = after && sql`${after.createdAt.toISOString()}::timestamptz`;
  const rows = await db
    .select({ phone: doNotCall.phone, createdAt: doNotCall.createdAt })
    .from(doNotCall)
    .where(
      and(
        eq(doNotCall.organizationId, organizationId),
        after && at ? or(lt(addedAt, at), and(eq(addedAt, at), lt(doNotCall.phone, after.phone))) : undefined,
      ),
    )
    .orderBy(desc(addedAt), desc(doNotCall.phone))
    .limit(limit);
  const [total] = await db.select({ n: count() }).from(doNotCall).where(eq(doNotCall.organizationId, organizationId));
  return { rows, total: total?.n ?? 0 };
}
