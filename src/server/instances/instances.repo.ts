/**
 * The `instances` table and the sweep of calls whose instance is gone (the SQL side of
 * instance-lease.ts; docs/decisions/027-call-ownership-leases.md). Not scoped by organisation:
 * instances and their leases belong to the deployment, and the sweep closes any account's
 * calls whose carrier died.
 */
import { and, desc, eq, inArray, isNull, lte, ne, sql } from "drizzle-orm";
import type { Db } from "../db/client.ts";
import { callEntries, calls, instances } from "../db/schema.ts";
import { pendingAnalysisOnClose } from "../modules/analysis/analysis.repo.ts";
import { logsWithEntries } from "../modules/calls/calls.repo.ts";

export const ORPHANED_CALL_REASON = "Server handling the call stopped";

/** Resolves when the database answers a trivial query (the health route's readiness). */
export async function databaseAnswers(db: Db): Promise<void> {
  await db.execute(sql`select 1`);
}

/** What an instance says of itself on each heartbeat, for the others to steer calls by. */
export interface InstanceLoad {
  /** Where Twilio reaches it; null when it should not be sent calls directly. */
  publicUrl: string | null;
  calls: number;
  maxCalls: number;
  draining: boolean;
}

const leaseEnd = (leaseMs: number) => sql`now() + ${Math.ceil(leaseMs)}::integer * interval '1 millisecond'`;

/** Takes or renews `id`'s lease with its load. An upsert: a row removed by another instance's sweep comes back. */
const NO_LOAD: InstanceLoad = { publicUrl: null, calls: 0, maxCalls: 0, draining: false };

export async function renewLease(db: Db, id: string, leaseMs: number, load: InstanceLoad = NO_LOAD): Promise<void> {
  const values = { leaseExpiresAt: leaseEnd(leaseMs), publicUrl: load.publicUrl, calls: load.calls, maxCalls: load.maxCalls, draining: load.draining };
  await db
    .insert(instances)
    .values({ id, ...values })
    .onConflictDoUpdate({ target: instances.id, set: values });
}

export async function releaseLease(db: Db, id: string): Promise<void> {
  await db.delete(instances).where(eq(instances.id, id));
}

export interface InstanceWithRoom {
  id: string;
  publicUrl: string;
  room: number;
}

/** The other live instances with room for a call and an address, the roomiest first (as of their heartbeats). */
export async function instancesWithRoom(db: Db, exceptId: string): Promise<InstanceWithRoom[]> {
  const room = sql<number>`${instances.maxCalls} - ${instances.calls}`;
  const rows = await db
    .select({ id: instances.id, publicUrl: instances.publicUrl, room })
    .from(instances)
    .where(and(ne(instances.id, exceptId), sql`${instances.leaseExpiresAt} > now()`, eq(instances.draining, false), sql`${room} > 0`, sql`${instances.publicUrl} IS NOT NULL`))
    .orderBy(desc(room))
    .limit(20);
  return rows.map((r) => ({ id: r.id, publicUrl: r.publicUrl!, room: Number(r.room) }));
}

/** A record nobody carries any more, closed with what its engine saved as it went (calls.repo.ts). */
const closedOrphan = { endTime: sql`now()`, endedReason: ORPHANED_CALL_REASON, logs: logsWithEntries, analysis: pendingAnalysisOnClose };

async function dropEntries(db: Db, rows: Array<{ id: string }>): Promise<void> {
  if (rows.length > 0) await db.delete(callEntries).where(inArray(callEntries.callId, rows.map((r) => r.id)));
}

/**
 * Closes the calls no live instance carries: their owner's lease has lapsed (or the owner row is
 * gone). With `includeUnowned`, also records from before call ownership existed (no instance).
 * Returns the ids closed.
 */
export async function closeOrphanedCalls(db: Db, options: { includeUnowned?: boolean } = {}): Promise<string[]> {
  const ownerAlive = sql`EXISTS (SELECT 1 FROM ${instances} WHERE ${instances.id} = ${calls.instanceId} AND ${instances.leaseExpiresAt} > now())`;
  const orphaned = options.includeUnowned
    ? sql`(${calls.instanceId} IS NULL OR NOT ${ownerAlive})`
    : sql`(${calls.instanceId} IS NOT NULL AND NOT ${ownerAlive})`;
  // An outbound call Twilio has not connected yet is carried by no instance: its status callback
  // ends it (any instance takes it). Only one Twilio forgot about for an hour is swept.
  const awaitingTwilio = sql`(${calls.direction} = 'outbound' AND ${calls.providerStatus} IN ('queued', 'initiated', 'ringing') AND ${calls.startTime} > now() - interval '1 hour')`;
  const rows = await db
    .update(calls)
    .set(closedOrphan)
    .where(and(isNull(calls.endTime), orphaned, sql`NOT ${awaitingTwilio}`))
    .returning({ id: calls.id });
  await dropEntries(db, rows);
  // Lapsed instances have nothing left to own; their rows would only grow the table.
  await db.delete(instances).where(lte(instances.leaseExpiresAt, sql`now()`));
  return rows.map((r) => r.id);
}

/** Calls recorded under `id` by an earlier process with the same INSTANCE_ID: nobody carries them now. */
export async function closeCallsLeftBy(db: Db, id: string): Promise<string[]> {
  const rows = await db
    .update(calls)
    .set(closedOrphan)
    .where(and(isNull(calls.endTime), eq(calls.instanceId, id)))
    .returning({ id: calls.id });
  await dropEntries(db, rows);
  return rows.map((r) => r.id);
}
