import type { Page, PageQuery } from "../../../shared/pages.ts";
import { and, asc, count, eq, getTableColumns, inArray, sql } from "drizzle-orm";
import type { Db } from "../../db/client.ts";
import { keysetPage, keysetQuery, newestFirst } from "../../db/keyset.ts";
import { phoneNumbers, sipTrunks } from "../../db/schema.ts";

export type SipTrunkRow = typeof sipTrunks.$inferSelect;
export type SipTrunkValues = Omit<typeof sipTrunks.$inferInsert, "id" | "organizationId" | "createdAt" | "updatedAt">;
export type SipTrunkState = Partial<Pick<SipTrunkRow, "lastOptionsAt" | "registrationState" | "registrationStateAt" | "lastError" | "lastErrorAt">>;

/**
 * Every owner query here is scoped to `organizationId`. The runtime's lookups (`inboundCandidates`,
 * `trunksToRegister`, `recordState`) run across organisations: a SIP request names no account,
 * and what they return is checked against the request's source and credentials by the caller.
 */

/** A page of the organisation's SIP trunks, newest first: the keyset in SQL (db/keyset.ts). */
export async function pageTrunks(db: Db, organizationId: string, query: PageQuery): Promise<Page<SipTrunkRow>> {
  const q = keysetQuery(newestFirst(sipTrunks.createdAt, sipTrunks.id), query);
  const rows = await db
    .select({ ...getTableColumns(sipTrunks), page_key: q.key })
    .from(sipTrunks)
    .where(and(eq(sipTrunks.organizationId, organizationId), q.after))
    .orderBy(...q.orderBy)
    .limit(q.limit);
  return keysetPage(rows, query.limit);
}

export async function countTrunks(db: Db, organizationId: string): Promise<number> {
  const [row] = await db.select({ n: count() }).from(sipTrunks).where(eq(sipTrunks.organizationId, organizationId));
  return row?.n ?? 0;
}

export async function findTrunk(db: Db, organizationId: string, id: string): Promise<SipTrunkRow | null> {
  const [row] = await db.select().from(sipTrunks).where(and(eq(sipTrunks.organizationId, organizationId), eq(sipTrunks.id, id)));
  return row ?? null;
}

export async function insertTrunk(db: Db, organizationId: string, values: SipTrunkValues): Promise<SipTrunkRow> {
  const [row] = await db.insert(sipTrunks).values({ ...values, organizationId }).returning();
  return row!;
}

export async function updateTrunk(db: Db, organizationId: string, id: string, values: Partial<SipTrunkValues>): Promise<SipTrunkRow | null> {
  const [row] = await db
    .update(sipTrunks)
    .set(values)
    .where(and(eq(sipTrunks.organizationId, organizationId), eq(sipTrunks.id, id)))
    .returning();
  return row ?? null;
}

export async function deleteTrunk(db: Db, organizationId: string, id: string): Promise<boolean> {
  const rows = await db
    .delete(sipTrunks)
    .where(and(eq(sipTrunks.organizationId, organizationId), eq(sipTrunks.id, id)))
    .returning({ id: sipTrunks.id });
  return rows.length > 0;
}

/** The SIP numbers on each of the given trunks (read for the cards and the in-use refusal). */
export async function numbersOnTrunks(db: Db, organizationId: string, trunkIds: string[]): Promise<{ id: string; phoneNumber: string; sipTrunkId: string }[]> {
  if (trunkIds.length === 0) return [];
  const rows = await db
    .select({ id: phoneNumbers.id, phoneNumber: phoneNumbers.phoneNumber, sipTrunkId: phoneNumbers.sipTrunkId })
    .from(phoneNumbers)
    .where(and(eq(phoneNumbers.organizationId, organizationId), inArray(phoneNumbers.sipTrunkId, trunkIds)))
    .orderBy(asc(phoneNumbers.phoneNumber));
  return rows.map((r) => ({ ...r, sipTrunkId: r.sipTrunkId! }));
}

export interface CandidateRow {
  numberId: string;
  organizationId: string;
  phoneNumber: string;
  assistantId: string | null;
  assistantVersion: number | null;
  trunk: SipTrunkRow;
}

/**
 * SIP numbers whose number is `digits` (the Request-URI's user without '+'), as stored with or
 * without '+', or after their trunk's prefix. A prefix is at most 10 characters, so the number is
 * one of `digits`' last parts: all are looked up in phone_numbers_sip_lookup_idx at once.
 */
export async function candidatesFor(db: Db, digits: string, limit: number, maxPrefix: number): Promise<CandidateRow[]> {
  const bare = sql`ltrim(${phoneNumbers.phoneNumber}, '+')`;
  const tails = Array.from({ length: Math.min(maxPrefix, digits.length - 1) + 1 }, (_, k) => digits.slice(k));
  const rows = await db
    .select({
      numberId: phoneNumbers.id,
      organizationId: phoneNumbers.organizationId,
      phoneNumber: phoneNumbers.phoneNumber,
      assistantId: phoneNumbers.assistantId,
      assistantVersion: phoneNumbers.assistantVersion,
      trunk: sipTrunks,
    })
    .from(phoneNumbers)
    .innerJoin(sipTrunks, and(eq(sipTrunks.id, phoneNumbers.sipTrunkId), eq(sipTrunks.organizationId, phoneNumbers.organizationId)))
    .where(
      and(
        eq(phoneNumbers.provider, "sip"),
        sql`${bare} IN (${sql.join(
          tails.map((t) => sql`${t}`),
          sql`, `,
        )})`,
        sql`(${bare} = ${digits} OR (${sipTrunks.prefix} IS NOT NULL AND ${sipTrunks.prefix} || ${bare} = ${digits}))`,
      ),
    )
    .orderBy(asc(phoneNumbers.createdAt), asc(phoneNumbers.id))
    .limit(limit);
  return rows;
}

export function trunksToRegister(db: Db): Promise<SipTrunkRow[]> {
  return db.select().from(sipTrunks).where(eq(sipTrunks.register, true)).orderBy(asc(sipTrunks.createdAt));
}

/** Every trunk's source addresses and outbound URI, across organisations (the runtime's OPTIONS bookkeeping). */
export function trunkSources(db: Db): Promise<{ id: string; inboundAddresses: string[]; outboundUri: string | null }[]> {
  return db.select({ id: sipTrunks.id, inboundAddresses: sipTrunks.inboundAddresses, outboundUri: sipTrunks.outboundUri }).from(sipTrunks);
}

export async function recordState(db: Db, trunkId: string, patch: SipTrunkState): Promise<void> {
  if (Object.keys(patch).length === 0) return;
  // Not through `updatedAt`'s $onUpdate: what the runtime saw is not a change the user made.
  await db
    .update(sipTrunks)
    .set({ ...patch, updatedAt: sql`${sipTrunks.updatedAt}` })
    .where(eq(sipTrunks.id, trunkId));
}

/** The organisation's SIP number `phoneNumberId` with its trunk, or null (not theirs, or not a SIP number). */
export async function routeFor(
  db: Db,
  organizationId: string,
  phoneNumberId: string,
): Promise<{ phoneNumber: string; assistantId: string | null; assistantVersion: number | null; trunk: SipTrunkRow } | null> {
  const [row] = await db
    .select({ phoneNumber: phoneNumbers.phoneNumber, assistantId: phoneNumbers.assistantId, assistantVersion: phoneNumbers.assistantVersion, trunk: sipTrunks })
    .from(phoneNumbers)
    .innerJoin(sipTrunks, and(eq(sipTrunks.id, phoneNumbers.sipTrunkId), eq(sipTrunks.organizationId, phoneNumbers.organizationId)))
    .where(and(eq(phoneNumbers.organizationId, organizationId), eq(phoneNumbers.id, phoneNumberId), eq(phoneNumbers.provider, "sip")));
  return row ?? null;
}
