import { and, count, desc, eq, getTableColumns, gt, isNull, lt, or, sql } from "drizzle-orm";
import type { Page, PageQuery } from "../../../shared/pages.ts";
import type { Db } from "../../db/client.ts";
import { keysetPage, keysetQuery, newestFirst } from "../../db/keyset.ts";
import { apiKeys, member, user } from "../../db/schema.ts";

export type ApiKeyRow = typeof apiKeys.$inferSelect;

/** Not revoked and not expired: the keys that authenticate, count towards the limit and are listed. */
const live = () => and(isNull(apiKeys.revokedAt), or(isNull(apiKeys.expiresAt), gt(apiKeys.expiresAt, sql`now()`)));

/** With the name of the member each acts for (their e-mail when they have no name). */
export function listLiveKeys(db: Db, organizationId: string): Promise<(ApiKeyRow & { creatorName: string })[]> {
  return db
    .select({ ...getTableColumns(apiKeys), creatorName: sql<string>`coalesce(nullif(trim(${user.name}), ''), ${user.email})` })
    .from(apiKeys)
    .innerJoin(user, eq(user.id, apiKeys.createdBy))
    .where(and(eq(apiKeys.organizationId, organizationId), live()))
    .orderBy(desc(apiKeys.createdAt), desc(apiKeys.id));
}

/** A page of the organisation's live keys, newest first: the keyset in SQL (db/keyset.ts). */
export async function pageLiveKeys(db: Db, organizationId: string, query: PageQuery): Promise<Page<ApiKeyRow & { creatorName: string }>> {
  const q = keysetQuery(newestFirst(apiKeys.createdAt, apiKeys.id), query);
  const rows = await db
    .select({ ...getTableColumns(apiKeys), creatorName: sql<string>`coalesce(nullif(trim(${user.name}), ''), ${user.email})`, page_key: q.key })
    .from(apiKeys)
    .innerJoin(user, eq(user.id, apiKeys.createdBy))
    .where(and(eq(apiKeys.organizationId, organizationId), live(), q.after))
    .orderBy(...q.orderBy)
    .limit(q.limit);
  return keysetPage(rows, query.limit);
}

export async function countLiveKeys(db: Db, organizationId: string): Promise<number> {
  const [row] = await db.select({ n: count() }).from(apiKeys).where(and(eq(apiKeys.organizationId, organizationId), live()));
  return row?.n ?? 0;
}

export async function insertKey(db: Db, values: Pick<ApiKeyRow, "organizationId" | "createdBy" | "name" | "prefix" | "keyHash" | "expiresAt">): Promise<ApiKeyRow> {
  const [row] = await db.insert(apiKeys).values(values).returning();
  return row!;
}

export async function revokeKey(db: Db, organizationId: string, id: string): Promise<boolean> {
  const rows = await db
    .update(apiKeys)
    .set({ revokedAt: sql`now()` })
    .where(and(eq(apiKeys.organizationId, organizationId), eq(apiKeys.id, id), isNull(apiKeys.revokedAt)))
    .returning({ id: apiKeys.id });
  return rows.length > 0;
}

/**
 * The live key with this hash, with its creator's membership as it is now (role, name), in one
 * query read on every Bearer request: a revocation, a role change or the creator's removal holds
 * at once on every instance. No membership, no key.
 */
export async function findByHash(db: Db, keyHash: string) {
  const [row] = await db
    .select({
      id: apiKeys.id,
      name: apiKeys.name,
      lastUsedAt: apiKeys.lastUsedAt,
      organizationId: apiKeys.organizationId,
      userId: member.userId,
      role: member.role,
      userName: user.name,
      userEmail: user.email,
    })
    .from(apiKeys)
    .innerJoin(member, and(eq(member.organizationId, apiKeys.organizationId), eq(member.userId, apiKeys.createdBy)))
    .innerJoin(user, eq(user.id, member.userId))
    .where(and(eq(apiKeys.keyHash, keyHash), live()));
  return row ?? null;
}

/** At most once a minute per key: a busy key does not write on every request. */
export async function touchKey(db: Db, id: string): Promise<void> {
  await db
    .update(apiKeys)
    .set({ lastUsedAt: sql`now()` })
    .where(and(eq(apiKeys.id, id), or(isNull(apiKeys.lastUsedAt), lt(apiKeys.lastUsedAt, sql`now() - interval '1 minute'`))));
}
