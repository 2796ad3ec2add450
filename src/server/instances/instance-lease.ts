/**
 * Call ownership across instances (docs/decisions/027-call-ownership-leases.md).
 *
 * Each running instance has a row in `instances` whose lease it renews on a heartbeat; each live
 * call's record names the instance carrying it (`calls.instance_id`). On every tick an instance
 * also sweeps: calls whose owner's lease has lapsed — the process was killed, crashed or lost
 * the database for longer than a lease — are closed with ORPHANED_CALL_REASON, keeping whatever
 * transcript, tool calls and recording were saved as the call went. Calls of live instances are
 * never touched. A clean shutdown ends its own calls itself (LiveCalls.closeAll) and then lets
 * go of its lease.
 */
import { randomBytes } from "node:crypto";
import { hostname } from "node:os";
import { and, eq, inArray, isNull, lte, sql } from "drizzle-orm";
import type { Db } from "../db/client.ts";
import { callEntries, calls, instances } from "../db/schema.ts";
import { pendingAnalysisOnClose } from "../modules/analysis/analysis.repo.ts";
import { logsWithEntries } from "../modules/calls/calls.repo.ts";

export const ORPHANED_CALL_REASON = "Server handling the call stopped";

/** `<host>-<random>`: readable in logs, and unique per start so a restart never inherits a lease. */
export function newInstanceId(): string {
  const host = hostname().replace(/[^A-Za-z0-9.-]/g, "").slice(0, 40) || "instance";
  return `${host}-${randomBytes(4).toString("hex")}`;
}

const leaseEnd = (leaseMs: number) => sql`now() + ${Math.ceil(leaseMs)}::integer * interval '1 millisecond'`;

/** Takes or renews `id`'s lease. An upsert: a row removed by another instance's sweep comes back. */
export async function renewLease(db: Db, id: string, leaseMs: number): Promise<void> {
  await db
    .insert(instances)
    .values({ id, leaseExpiresAt: leaseEnd(leaseMs) })
    .onConflictDoUpdate({ target: instances.id, set: { leaseExpiresAt: leaseEnd(leaseMs) } });
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
async function closeCallsLeftBy(db: Db, id: string): Promise<string[]> {
  const rows = await db
    .update(calls)
    .set(closedOrphan)
    .where(and(isNull(calls.endTime), eq(calls.instanceId, id)))
    .returning({ id: calls.id });
  await dropEntries(db, rows);
  return rows.map((r) => r.id);
}

export interface LeaseLogger {
  info(obj: object, msg?: string): void;
  warn(obj: object, msg?: string): void;
  error(obj: object, msg?: string): void;
}

export interface InstanceLeaseOptions {
  db: Db;
  id: string;
  leaseMs: number;
  logger: LeaseLogger;
  /** Other periodic upkeep run on the same tick (e.g. pruning expired shared counters). */
  upkeep?: () => Promise<unknown>;
  /**
   * The calls a tick's sweep has just closed (each is closed by one sweep only: the update
   * re-checks that it is still open). Not called by `start`, which runs before the job queue
   * exists: its calls are in `closedAtStart`.
   */
  onCallsClosed?: (callIds: string[]) => Promise<void>;
}

/** The heartbeat and the sweep of one instance; `start` before taking calls, `stop` after its calls ended. */
export class InstanceLease {
  private timer: NodeJS.Timeout | null = null;
  private ticking: Promise<void> = Promise.resolve();
  /** The calls `start` closed, for whoever follows them up once the app is ready (their analysis). */
  closedAtStart: string[] = [];

  constructor(private readonly o: InstanceLeaseOptions) {}

  get id(): string {
    return this.o.id;
  }

  async start(): Promise<void> {
    const { db, id, leaseMs, logger } = this.o;
    const leftOver = await closeCallsLeftBy(db, id);
    await renewLease(db, id, leaseMs);
    const orphaned = await closeOrphanedCalls(db, { includeUnowned: true });
    this.closedAtStart = [...leftOver, ...orphaned];
    const closed = this.closedAtStart.length;
    if (closed > 0) logger.warn({ calls: this.closedAtStart }, `Closed ${closed} call(s) whose server stopped during the call`);
    // Renewed three times per lease, so one slow or failed beat never lets it lapse.
    this.timer = setInterval(() => {
      this.ticking = this.ticking.then(() => this.tick());
    }, Math.max(100, Math.floor(leaseMs / 3)));
    this.timer.unref();
  }

  private async tick(): Promise<void> {
    const { db, id, leaseMs, logger, upkeep, onCallsClosed } = this.o;
    try {
      await renewLease(db, id, leaseMs);
      const orphaned = await closeOrphanedCalls(db);
      if (orphaned.length > 0) {
        logger.warn({ calls: orphaned }, `Closed ${orphaned.length} call(s) of a server that stopped`);
        await onCallsClosed?.(orphaned);
      }
      await upkeep?.();
    } catch (err) {
      logger.error({ err }, "instance heartbeat failed");
    }
  }

  /** Stops the heartbeat and removes the lease row (call after this instance's calls are finalised). */
  async stop(): Promise<void> {
    if (this.timer) clearInterval(this.timer);
    this.timer = null;
    await this.ticking;
    try {
      await this.o.db.delete(instances).where(eq(instances.id, this.o.id));
    } catch (err) {
      this.o.logger.error({ err }, "releasing the instance lease failed");
    }
  }
}
