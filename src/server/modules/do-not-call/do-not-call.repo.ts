/** The do-not-call list: numbers (E.164) an owner's calls must never dial. Scoped by owner. */
import { and, count, eq, inArray } from "drizzle-orm";
import type { PageQuery } from "../../../shared/pages.ts";
import type { Db } from "../../db/client.ts";
import { keysetPage, keysetQuery, type KeysetOrder } from "../../db/keyset.ts";
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

/** Newest first by (created_at, phone): a number is on an organisation's list once. */
const dncOrder: KeysetOrder = {
  parts: [
    { column: doNotCall.createdAt, kind: "timestamp" },
    { column: doNotCall.phone, kind: "text" },
  ],
  desc: true,
};

/** A page of the list (keyset in SQL, src/server/db/keyset.ts), and how many numbers it holds in all. */
export async function page(db: Db, organizationId: string, query: PageQuery) {
  const q = keysetQuery(dncOrder, query);
  const rows = await db
    .select({ phone: doNotCall.phone, createdAt: doNotCall.createdAt, page_key: q.key })
    .from(doNotCall)
    .where(and(eq(doNotCall.organizationId, organizationId), q.after))
    .orderBy(...q.orderBy)
    .limit(q.limit);
  const [total] = await db.select({ n: count() }).from(doNotCall).where(eq(doNotCall.organizationId, organizationId));
  return { page: keysetPage(rows, query.limit), total: total?.n ?? 0 };
}
