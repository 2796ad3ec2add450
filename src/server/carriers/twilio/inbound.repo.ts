/**
 * What an inbound phone call needs of the database: the number Twilio called (by its E.164
 * form — the webhook carries no user, the number names its owner) and the call record a
 * status callback finalises (by Twilio's CallSid). The phone-numbers module owns the rows;
 * this file only reads them.
 */
import { and, desc, eq, isNull, sql } from "drizzle-orm";
import type { Db } from "../../db/client.ts";
import { calls, phoneNumbers } from "../../db/schema.ts";
import { endedReasonUnlessVoicemail } from "../../modules/calls/calls.repo.ts";

export interface InboundNumber {
  id: string;
  organizationId: string;
  phoneNumber: string;
  status: string;
  assistantId: string | null;
  /** The version pinned on the number; null runs the latest published one. */
  assistantVersion: number | null;
}

const numberColumns = {
  id: phoneNumbers.id,
  organizationId: phoneNumbers.organizationId,
  phoneNumber: phoneNumbers.phoneNumber,
  status: phoneNumbers.status,
  assistantId: phoneNumbers.assistantId,
  assistantVersion: phoneNumbers.assistantVersion,
};

/** The number Twilio was called on; the newest row when a number was released and bought again. */
export async function findNumberByE164(db: Db, e164: string): Promise<InboundNumber | null> {
  const [row] = await db.select(numberColumns).from(phoneNumbers).where(eq(phoneNumbers.phoneNumber, e164)).orderBy(desc(phoneNumbers.createdAt)).limit(1);
  return row ?? null;
}

export async function findNumberById(db: Db, id: string): Promise<InboundNumber | null> {
  const [row] = await db.select(numberColumns).from(phoneNumbers).where(eq(phoneNumbers.id, id));
  return row ?? null;
}

export interface PhoneCallRecord {
  id: string;
  organizationId: string;
  phoneNumberId: string | null;
  calledNumber: string | null;
}

export async function findCallBySid(db: Db, callSid: string): Promise<PhoneCallRecord | null> {
  const [row] = await db
    .select({ id: calls.id, organizationId: calls.organizationId, phoneNumberId: calls.phoneNumberId, calledNumber: calls.calledNumber })
    .from(calls)
    .where(eq(calls.providerCallSid, callSid))
    .orderBy(desc(calls.startTime))
    .limit(1);
  return row ?? null;
}

/**
 * Finalises a record the media stream left without figures (the server stopped mid-call, the
 * stream never ended cleanly) from Twilio's duration. A record that already has a cost was
 * finalised by its call session — or by an earlier callback: left alone, so duplicates are no-ops.
 * Returns whether it wrote.
 */
export async function finishFromTwilio(
  db: Db,
  id: string,
  figures: { durationMs: number; cost: number; endedReason: string },
): Promise<boolean> {
  const rows = await db
    .update(calls)
    .set({
      endTime: sql`${calls.startTime} + make_interval(secs => ${figures.durationMs / 1000})`,
      cost: figures.cost,
      endedReason: sql`coalesce(${calls.endedReason}, ${endedReasonUnlessVoicemail(figures.endedReason)})`,
    })
    .where(and(eq(calls.id, id), isNull(calls.cost)))
    .returning({ id: calls.id });
  return rows.length > 0;
}

/** The record of Twilio's call `callSid` whose ended reason is still `was` now says `reason` (a transfer's outcome). */
export async function replaceEndedReason(db: Db, callSid: string, was: string, reason: string): Promise<void> {
  await db
    .update(calls)
    .set({ endedReason: reason })
    .where(and(eq(calls.providerCallSid, callSid), eq(calls.endedReason, was)));
}

/** What the price job needs of a phone call's record: whose it is, Twilio's CallSid, and whether it has its price. */
export async function findCallForPricing(db: Db, id: string) {
  const [row] = await db
    .select({ organizationId: calls.organizationId, callSid: calls.providerCallSid, telephonyCost: calls.telephonyCost })
    .from(calls)
    .where(eq(calls.id, id));
  return row ?? null;
}

/** Twilio's price for the call (USD, positive); the first one stored stays (a repeated job changes nothing). */
export async function storeTelephonyCost(db: Db, id: string, usd: number): Promise<boolean> {
  const rows = await db
    .update(calls)
    .set({ telephonyCost: usd })
    .where(and(eq(calls.id, id), isNull(calls.telephonyCost)))
    .returning({ id: calls.id });
  return rows.length > 0;
}
