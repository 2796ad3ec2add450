/**
 * The database side of outbound calls: the account's call settings, the record of a call from
 * the moment it is dialled (before Twilio connects it; the call session adopts it when the
 * callee answers), and what Twilio's callbacks write into it. Owner-scoped where a user asks;
 * the telephony callbacks name the record by id and are checked against its owner's token.
 */
import { and, count, eq, inArray, isNull, sql } from "drizzle-orm";
import { DEFAULT_MAX_CONCURRENT_CALLS, neverConnected, UNANSWERED_STATUSES, type TwilioCallStatus } from "../../../shared/outbound.ts";
import type { Carrier } from "../../../shared/sip-trunks.ts";
import type { Db } from "../../db/client.ts";
import { assistants, calls, callSettings } from "../../db/schema.ts";

export async function readMaxConcurrentCalls(db: Db, organizationId: string): Promise<number> {
  const [row] = await db.select({ max: callSettings.maxConcurrentCalls }).from(callSettings).where(eq(callSettings.organizationId, organizationId));
  return row?.max ?? DEFAULT_MAX_CONCURRENT_CALLS;
}

export async function saveMaxConcurrentCalls(db: Db, organizationId: string, max: number): Promise<void> {
  await db
    .insert(callSettings)
    .values({ organizationId, maxConcurrentCalls: max })
    .onConflictDoUpdate({ target: callSettings.organizationId, set: { maxConcurrentCalls: max, updatedAt: new Date() } });
}

export async function readDialAllowList(db: Db, organizationId: string): Promise<string[]> {
  const [row] = await db.select({ allowed: callSettings.dialAllowList }).from(callSettings).where(eq(callSettings.organizationId, organizationId));
  return row?.allowed ?? [];
}

export async function saveDialAllowList(db: Db, organizationId: string, allowed: string[]): Promise<void> {
  await db
    .insert(callSettings)
    .values({ organizationId, maxConcurrentCalls: DEFAULT_MAX_CONCURRENT_CALLS, dialAllowList: allowed })
    .onConflictDoUpdate({ target: callSettings.organizationId, set: { dialAllowList: allowed, updatedAt: new Date() } });
}

export interface NewOutboundRecord {
  organizationId: string;
  assistantId: string;
  phoneNumberId: string;
  from: string;
  to: string;
  variables: Record<string, string>;
  campaignId?: string;
  carrier?: Carrier;
}

/** The owner's open outbound calls (dialled, ringing or talking). */
const openOutbound = (organizationId: string) => and(eq(calls.organizationId, organizationId), eq(calls.direction, "outbound"), isNull(calls.endTime));

/**
 * Inserts the record of a call about to be dialled, unless the owner already has `max` open
 * outbound calls: counted and inserted under a per-owner transaction lock, so two requests (on
 * any instance) can never both take the last slot. Returns the id, or null at the limit.
 */
export async function insertWithinLimit(db: Db, record: NewOutboundRecord, max: number): Promise<string | null> {
  return db.transaction(async (tx) => {
    await tx.execute(sql`SELECT pg_advisory_xact_lock(hashtext(${`outbound:${record.organizationId}`}))`);
    const [open] = await tx.select({ n: count() }).from(calls).where(openOutbound(record.organizationId));
    if ((open?.n ?? 0) >= max) return null;
    const [assistant] = await tx.select({ name: assistants.name }).from(assistants).where(eq(assistants.id, record.assistantId));
    const [row] = await tx
      .insert(calls)
      .values({
        organizationId: record.organizationId,
        assistantId: record.assistantId,
        assistantName: assistant?.name ?? null,
        direction: "outbound",
        carrier: record.carrier ?? "twilio",
        providerStatus: "queued",
        callerNumber: record.from,
        calledNumber: record.to,
        phoneNumberId: record.phoneNumberId,
        variables: record.variables,
        campaignId: record.campaignId ?? null,
        logs: { isTest: false, transcript: [], toolsUsed: [] },
      })
      .returning({ id: calls.id });
    return row!.id;
  });
}

export async function setCallSid(db: Db, id: string, callSid: string): Promise<void> {
  await db.update(calls).set({ providerCallSid: callSid }).where(eq(calls.id, id));
}

/** The carrier's id of the call just placed: Twilio's CallSid, or the SIP Call-ID. */
export async function setCarrierCallId(db: Db, id: string, carrier: Carrier, callId: string): Promise<void> {
  await db
    .update(calls)
    .set(carrier === "sip" ? { sipCallId: callId } : { providerCallSid: callId })
    .where(eq(calls.id, id));
}

/** The carrier refused the call: nothing was dialled, so nothing is kept. */
export async function deleteUndialled(db: Db, id: string): Promise<void> {
  await db.delete(calls).where(and(eq(calls.id, id), isNull(calls.providerCallSid), isNull(calls.sipCallId)));
}

export interface OutboundRecord {
  id: string;
  organizationId: string;
  assistantId: string | null;
  phoneNumberId: string | null;
  callerNumber: string | null;
  calledNumber: string | null;
  providerCallSid: string | null;
  providerStatus: TwilioCallStatus | null;
  variables: Record<string, string> | null;
  campaignId: string | null;
  ended: boolean;
}

/** An outbound call's record by id (the callbacks' `call` parameter); null for anything else. */
export async function findOutbound(db: Db, id: string): Promise<OutboundRecord | null> {
  const [row] = await db
    .select({
      id: calls.id,
      organizationId: calls.organizationId,
      assistantId: calls.assistantId,
      phoneNumberId: calls.phoneNumberId,
      callerNumber: calls.callerNumber,
      calledNumber: calls.calledNumber,
      providerCallSid: calls.providerCallSid,
      providerStatus: calls.providerStatus,
      variables: calls.variables,
      campaignId: calls.campaignId,
      endTime: calls.endTime,
    })
    .from(calls)
    .where(and(eq(calls.id, id), eq(calls.direction, "outbound")));
  if (!row) return null;
  const { endTime, ...rest } = row;
  return { ...rest, ended: endTime !== null };
}

/** Twilio's progress (initiated, ringing, in-progress) on a call still open. */
export async function setProviderStatus(db: Db, id: string, status: TwilioCallStatus): Promise<void> {
  await db.update(calls).set({ providerStatus: status }).where(and(eq(calls.id, id), isNull(calls.endTime)));
}

/** Twilio's last word on a call (completed, busy, ...), closed or not. */
export async function setFinalStatus(db: Db, id: string, status: TwilioCallStatus): Promise<void> {
  await db.update(calls).set({ providerStatus: status }).where(eq(calls.id, id));
}

export async function setAnsweredBy(db: Db, id: string, answeredBy: string): Promise<void> {
  await db.update(calls).set({ answeredBy }).where(eq(calls.id, id));
}

/**
 * A call that never reached the assistant (busy, no answer, failed, cancelled, or a machine
 * hung up on): closed with its reason, cost 0. A record already closed is left alone. One that
 * never connected at all ends where it started: it had no talk time, so the stats, roll-ups
 * and exports that sum end − start count none for it, however long it rang.
 */
export async function endUnanswered(db: Db, id: string, status: TwilioCallStatus, endedReason: string): Promise<boolean> {
  const rows = await db
    .update(calls)
    .set({ providerStatus: status, endTime: neverConnected(status) ? sql`${calls.startTime}` : sql`now()`, endedReason, cost: 0 })
    .where(and(eq(calls.id, id), isNull(calls.endTime)))
    .returning({ id: calls.id });
  return rows.length > 0;
}

/**
 * A cancelled call: closed like any unanswered one, but only while it is still queued or
 * ringing — a callee who answered in the meantime keeps the call (and the session its record).
 */
export async function endCancelled(db: Db, id: string, endedReason: string): Promise<boolean> {
  const rows = await db
    .update(calls)
    .set({ providerStatus: "canceled", endTime: sql`${calls.startTime}`, endedReason, cost: 0 })
    .where(and(eq(calls.id, id), isNull(calls.endTime), inArray(calls.providerStatus, [...UNANSWERED_STATUSES])))
    .returning({ id: calls.id });
  return rows.length > 0;
}

/** An outbound call of the organisation, for cancelling it (another organisation's: null). */
export async function findOwnOutbound(db: Db, organizationId: string, id: string) {
  const [row] = await db
    .select({
      id: calls.id,
      organizationId: calls.organizationId,
      direction: calls.direction,
      carrier: calls.carrier,
      assistantId: calls.assistantId,
      phoneNumberId: calls.phoneNumberId,
      callerNumber: calls.callerNumber,
      calledNumber: calls.calledNumber,
      providerCallSid: calls.providerCallSid,
      sipCallId: calls.sipCallId,
      providerStatus: calls.providerStatus,
      campaignId: calls.campaignId,
      variables: calls.variables,
      endTime: calls.endTime,
    })
    .from(calls)
    .where(and(eq(calls.organizationId, organizationId), eq(calls.id, id)));
  return row ?? null;
}
