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
 *
 * The heartbeat also carries the instance's load (calls, MAX_CALLS, draining, its address), and
 * each tick reads which others have room: a full instance sends a phone call there without
 * asking the database while Twilio waits.
 */
import { randomBytes } from "node:crypto";
import { hostname } from "node:os";
import type { Db } from "../db/client.ts";
import { closeCallsLeftBy, closeOrphanedCalls, instancesWithRoom, releaseLease, renewLease, type InstanceLoad, type InstanceWithRoom } from "./instances.repo.ts";

export { closeOrphanedCalls, ORPHANED_CALL_REASON, renewLease } from "./instances.repo.ts";

/** `<host>-<random>`: readable in logs, and unique per start so a restart never inherits a lease. */
export function newInstanceId(): string {
  const host = hostname().replace(/[^A-Za-z0-9.-]/g, "").slice(0, 40) || "instance";
  return `${host}-${randomBytes(4).toString("hex")}`;
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
  /** This instance's load as of now, written with every heartbeat. */
  load?: () => InstanceLoad;
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
  private others: InstanceWithRoom[] = [];
  private refreshing: Promise<void> | null = null;
  /** The calls `start` closed, for whoever follows them up once the app is ready (their analysis). */
  closedAtStart: string[] = [];

  constructor(private readonly o: InstanceLeaseOptions) {}

  get id(): string {
    return this.o.id;
  }

  async start(): Promise<void> {
    const { db, id, leaseMs, logger } = this.o;
    const leftOver = await closeCallsLeftBy(db, id);
    await renewLease(db, id, leaseMs, this.o.load?.());
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
      await renewLease(db, id, leaseMs, this.o.load?.());
      await this.refreshOthers();
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

  /** Reads which other instances have room (one query at a time; callers may not wait for it). */
  refreshOthers(): Promise<void> {
    this.refreshing ??= instancesWithRoom(this.o.db, this.o.id)
      .then((rows) => void (this.others = rows))
      .catch((err: unknown) => this.o.logger.warn({ err }, "reading the other instances' room failed"))
      .finally(() => (this.refreshing = null));
    return this.refreshing;
  }

  /**
   * The address of another instance with room, as last read, or null. Each answer counts one
   * place taken there, so a burst of calls is spread rather than all sent to one instance.
   */
  placeElsewhere(): string | null {
    const best = this.others.reduce<InstanceWithRoom | null>((a, b) => (b.room > (a?.room ?? 0) ? b : a), null);
    if (!best) return null;
    best.room -= 1;
    return best.publicUrl;
  }

  /** Stops the heartbeat and removes the lease row (call after this instance's calls are finalised). */
  async stop(): Promise<void> {
    if (this.timer) clearInterval(this.timer);
    this.timer = null;
    await this.ticking;
    try {
      await releaseLease(this.o.db, this.o.id);
    } catch (err) {
      this.o.logger.error({ err }, "releasing the instance lease failed");
    }
  }
}
