/**
 * The live board across instances (docs/decisions/047-live-board-across-instances.md): every
 * instance publishes its calls' summary changes on the database bus (db/bus.ts), and keeps the
 * others' calls, by instance, from what they publish. Changes are gathered for CHANGES_EVERY_MS and
 * published together (a call's summary changes a few times a second; a NOTIFY each, for every call,
 * was the largest share of a phone call's database traffic). Each instance also publishes all of its
 * calls every REFRESH_MS (and at once when another starts and says hello), so a restarted
 * instance or one that missed a message converges; an instance not heard of for three of its refreshes
 * (it died) has its calls taken off the board — their records are closed by the lease sweep.
 */
import type { FastifyBaseLogger } from "fastify";
import type { LiveCallSummary } from "../../../shared/live.ts";
import type { Bus } from "../../db/bus.ts";
import type { LiveCalls } from "../calls/live-calls.ts";

export const BOARD_CHANNEL = "switchboard_live_board";
export const REFRESH_MS = 5000;
/** How long an instance gathers its calls' changes before publishing them in one message. */
const CHANGES_EVERY_MS = 250;

interface Carried {
  org: string;
  call: LiveCallSummary;
}

type BoardBusMessage =
  /** The calls changed and removed since the last message, the latest summary of each. */
  | { t: "c"; from: string; updated: Carried[]; removed: Array<{ org: string; callId: string }> }
  | { t: "all"; from: string; calls: Carried[] }
  | { t: "hello"; from: string }
  | { t: "bye"; from: string };

/** Changes of the other instances' calls, for this instance's board sockets. */
export interface RemoteBoardListener {
  updated(organizationId: string, call: LiveCallSummary): void;
  removed(organizationId: string, callId: string): void;
}

export class LivePeers {
  /** Other instances' calls, by instance id, with when each instance was last heard of. */
  private readonly remote = new Map<string, { heardAt: number; calls: Map<string, Carried> }>();
  private readonly listeners = new Set<RemoteBoardListener>();
  private readonly stops: Array<() => void> = [];
  private timer: NodeJS.Timeout | null = null;
  /** Changes not published yet, by call id: the latest summary, or null when the call left. */
  private readonly pending = new Map<string, { org: string; call: LiveCallSummary | null }>();
  private pendingTimer: NodeJS.Timeout | null = null;

  constructor(
    private readonly bus: Bus,
    readonly instanceId: string,
    private readonly liveCalls: Pick<LiveCalls, "watchBoard" | "supervised" | "carriedOnBoard">,
    private readonly log: FastifyBaseLogger,
    private readonly refreshMs = REFRESH_MS,
  ) {}

  async start(): Promise<void> {
    this.stops.push(await this.bus.subscribe(BOARD_CHANNEL, (payload) => this.heard(JSON.parse(payload) as BoardBusMessage)));
    this.stops.push(
      this.liveCalls.watchBoard({
        changed: (supervision, call) => this.changed(call.callId, supervision.organizationId, call),
        removed: (supervision) => {
          if (supervision.callId) this.changed(supervision.callId, supervision.organizationId, null);
        },
      }),
    );
    this.publish({ t: "hello", from: this.instanceId });
    this.publishAll();
    this.timer = setInterval(() => {
      this.publishAll();
      this.expire();
    }, this.refreshMs);
    this.timer.unref();
  }

  async stop(): Promise<void> {
    if (this.timer) clearInterval(this.timer);
    this.timer = null;
    for (const stop of this.stops.splice(0)) stop();
    this.publishChanges();
    this.publish({ t: "bye", from: this.instanceId });
  }

  watch(listener: RemoteBoardListener): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  /** The other instances' live calls of `organizationId`. */
  remoteCalls(organizationId: string): LiveCallSummary[] {
    const found: LiveCallSummary[] = [];
    for (const { calls } of this.remote.values()) for (const carried of calls.values()) if (carried.org === organizationId) found.push(carried.call);
    return found;
  }

  /** The instance carrying `callId` of `organizationId` as last heard, or null (another account's: null too). */
  carrierOf(organizationId: string, callId: string): string | null {
    for (const [instanceId, { calls }] of this.remote) if (calls.get(callId)?.org === organizationId) return instanceId;
    return null;
  }

  private publish(message: BoardBusMessage): void {
    this.bus.publish(BOARD_CHANNEL, JSON.stringify(message)).catch((err: unknown) => this.log.warn({ err }, "publishing a live board change failed"));
  }

  private changed(callId: string, org: string, call: LiveCallSummary | null): void {
    this.pending.set(callId, { org, call });
    if (this.pendingTimer) return;
    this.pendingTimer = setTimeout(() => this.publishChanges(), CHANGES_EVERY_MS);
    this.pendingTimer.unref();
  }

  private publishChanges(): void {
    if (this.pendingTimer) clearTimeout(this.pendingTimer);
    this.pendingTimer = null;
    if (this.pending.size === 0) return;
    const message: BoardBusMessage = { t: "c", from: this.instanceId, updated: [], removed: [] };
    for (const [callId, { org, call }] of this.pending) {
      if (call) message.updated.push({ org, call });
      else message.removed.push({ org, callId });
    }
    this.pending.clear();
    this.publish(message);
  }

  private publishAll(): void {
    // The snapshot holds every pending change: nothing older may follow it.
    this.pending.clear();
    const calls = [
      ...this.liveCalls.supervised().map((supervision) => ({ org: supervision.organizationId, call: supervision.summary() })),
      ...this.liveCalls.carriedOnBoard().map((c) => ({ org: c.organizationId, call: c.summary })),
    ];
    this.publish({ t: "all", from: this.instanceId, calls });
  }

  private heard(message: BoardBusMessage): void {
    if (message.from === this.instanceId) return;
    if (message.t === "hello") {
      this.publishAll();
      return;
    }
    if (message.t === "bye") {
      this.forget(message.from);
      return;
    }
    let instance = this.remote.get(message.from);
    if (!instance) this.remote.set(message.from, (instance = { heardAt: Date.now(), calls: new Map() }));
    instance.heardAt = Date.now();
    switch (message.t) {
      case "c":
        for (const { org, call } of message.updated) {
          instance.calls.set(call.callId, { org, call });
          for (const listener of this.listeners) listener.updated(org, call);
        }
        for (const { org, callId } of message.removed) {
          if (!instance.calls.delete(callId)) continue;
          for (const listener of this.listeners) listener.removed(org, callId);
        }
        return;
      case "all": {
        const now = new Map(message.calls.map((carried) => [carried.call.callId, carried]));
        for (const [callId, carried] of instance.calls) {
          if (now.has(callId)) continue;
          for (const listener of this.listeners) listener.removed(carried.org, callId);
        }
        for (const [callId, carried] of now) {
          const before = instance.calls.get(callId);
          if (before && JSON.stringify(before.call) === JSON.stringify(carried.call)) continue;
          for (const listener of this.listeners) listener.updated(carried.org, carried.call);
        }
        instance.calls = now;
        return;
      }
    }
  }

  private forget(instanceId: string): void {
    const instance = this.remote.get(instanceId);
    if (!instance) return;
    this.remote.delete(instanceId);
    for (const [callId, carried] of instance.calls) for (const listener of this.listeners) listener.removed(carried.org, callId);
  }

  private expire(): void {
    const before = Date.now() - 3 * this.refreshMs;
    for (const [instanceId, { heardAt }] of this.remote) if (heardAt < before) this.forget(instanceId);
  }
}
