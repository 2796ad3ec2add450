import { and, asc, eq, inArray, sql } from "drizzle-orm";
import type { Db } from "../../db/client.ts";
import { phoneNumbers, sipTrunks } from "../../db/schema.ts";
import { scopedRepo } from "../../db/scoped-repo.ts";

export type SipTrunkRow = typeof sipTrunks.$inferSelect;
export type SipTrunkValues = Omit<typeof sipTrunks.$inferInsert, "id" | "organizationId" | "createdAt" | "updatedAt">;
export type SipTrunkState = Partial<Pick<SipTrunkRow, "lastOptionsAt" | "registrationState" | "registrationStateAt" | "lastError" | "lastErrorAt">>;

/**
 * Every owner query here is scoped to `organizationId`. The runtime's lookups (`inboundCandidates`,
 * `trunksToRegister`, `recordState`) run across organisations: a SIP request names no account,
 * and what they return is checked against the request's source and credentials by the caller.
 */

const repo = scopedRepo<typeof sipTrunks, SipTrunkValues>(sipTrunks);
export const { list: listTrunks, page: pageTrunks, count: countTrunks, find: findTrunk, insert: insertTrunk, update: updateTrunk, remove: deleteTrunk } = repo;

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
