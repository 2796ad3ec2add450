/**
 * The calls this app instance is carrying right now. One registry per app (created in
 * buildApp, never module state), so shutdown can end every call with its reason and a
 * finalised record before the process lets go of its sockets and its database.
 *
 * It also keeps the instance within MAX_CALLS: a phone call takes its place at the voice
 * webhook (before Twilio opens the stream), so every call told to stream finds room when its
 * stream arrives; a place the stream never claims is given back after PLACE_HOLD_MS.
 */
import { LIVE_CALL_TEXTS } from "../../../shared/calls.ts";
import type { LiveCallSummary } from "../../../shared/live.ts";
import type { CallOutcome } from "../../voice/call-session.ts";
import type { FrameMetrics } from "../../voice/seams.ts";
import type { CallSupervision, SupervisionListener } from "../../voice/supervision.ts";

const SHUTDOWN_REASON = LIVE_CALL_TEXTS.shuttingDown;
/** Longer than Twilio takes to open a stream it was told to open (and the stream's own start wait). */
export const PLACE_HOLD_MS = 15_000;
/** A place its holder always gives back (a SIP call's, freed as its set-up ends however it ends): it never lapses. */
export const UNTIL_RELEASED = Number.POSITIVE_INFINITY;

/** What the registry needs of a call (a CallSession). */
export interface LiveCall {
  close(reason: string): Promise<CallOutcome>;
  readonly closed: Promise<CallOutcome>;
  /** The live board's hold on the call (owner, summary, supervisors). */
  readonly supervision: CallSupervision;
}

/** A call carried without a session, as the live board shows it. */
export interface CarriedCall {
  organizationId: string;
  summary: LiveCallSummary;
}

export class LiveCalls {
  private readonly calls = new Set<LiveCall>();
  /** The live board (modules/live): told of every summary change and every end, of every call. */
  private readonly boards = new Set<SupervisionListener>();
  private closingAll: Promise<void> | null = null;
  /** Places taken at the voice webhook, by CallSid: when each lapses (Unix ms). */
  private readonly held = new Map<string, number>();
  /** Calls carried here without a session (a SIP transfer's bridged calls), each until it ends; with its board line once shown. */
  private readonly carried = new Map<object, CarriedCall | null>();

  /**
   * @param metrics per-frame timing sink for `npm run bench:voice`; undefined (off) in production.
   * @param maxCalls the most calls this instance carries at once (MAX_CALLS).
   */
  constructor(
    readonly metrics?: FrameMetrics,
    readonly maxCalls = Number.POSITIVE_INFINITY,
    private readonly now: () => number = Date.now,
  ) {}

  get size(): number {
    return this.calls.size;
  }

  /** Live calls, places held for streams on their way, and calls carried without a session. */
  get taken(): number {
    this.dropLapsed();
    return this.calls.size + this.held.size + this.carried.size;
  }

  /**
   * A call this instance carries once its session has ended — two SIP calls a transfer bridged here,
   * whose audio still passes through — takes a place until `ended` settles: MAX_CALLS is about
   * what the instance carries, and such a call costs sockets and a relay as a session's does.
   */
  carry(ended: Promise<unknown>, board?: CarriedCall): void {
    const place = {};
    this.carried.set(place, null);
    const free = () => {
      const shown = this.carried.get(place);
      this.carried.delete(place);
      if (shown) for (const listener of this.boards) listener.removed({ organizationId: shown.organizationId, callId: shown.summary.callId });
    };
    ended.then(free, free);
    if (!board) return;
    // The line goes up once the session it continues has left the board (it sends its removal as
    // it starts to finalise, before `closed`), so the board is not told "removed" after it.
    const show = () => {
      if (!this.carried.has(place)) return;
      this.carried.set(place, board);
      for (const listener of this.boards) listener.changed({ organizationId: board.organizationId, callId: board.summary.callId }, board.summary);
    };
    const session = [...this.calls].find((call) => call.supervision.callId === board.summary.callId);
    if (session) void session.closed.then(show, show);
    else show();
  }

  /** The board lines of calls carried without a session, of every account. */
  carriedOnBoard(): CarriedCall[] {
    return [...this.carried.values()].filter((c): c is CarriedCall => c !== null);
  }

  get hasRoom(): boolean {
    return this.taken < this.maxCalls;
  }

  /**
   * Holds a place for the phone call `callSid` being set up (its stream on its way, or a SIP call
   * ringing for as long as it rings); false when full. The place lapses after `lapseMs`.
   */
  hold(callSid: string, lapseMs = PLACE_HOLD_MS): boolean {
    if (this.held.has(callSid)) return true;
    if (!this.hasRoom) return false;
    this.held.set(callSid, this.now() + lapseMs);
    return true;
  }

  /** The stream of `callSid` arrived (its call now counts itself) or was refused; false when no place was held here. */
  unhold(callSid: string): boolean {
    return this.held.delete(callSid);
  }

  private dropLapsed(): void {
    const now = this.now();
    for (const [sid, until] of this.held) if (until <= now) this.held.delete(sid);
  }

  get isClosing(): boolean {
    return this.closingAll !== null;
  }

  /** Resolves once no call is live (at once when none is). For draining before shutdown. */
  async idle(): Promise<void> {
    while (this.calls.size > 0) await Promise.allSettled([...this.calls].map((call) => call.closed));
  }

  /** Tracks the call until it ends. A call that arrives during shutdown is ended at once. */
  add(call: LiveCall): void {
    if (this.closingAll) {
      // A call's close settles (CallSession.end never rejects); the catch keeps it so for any LiveCall.
      call.close(SHUTDOWN_REASON).catch(() => undefined);
      return;
    }
    this.calls.add(call);
    call.supervision.subscribe({
      changed: (supervision, summary) => {
        for (const board of this.boards) board.changed(supervision, summary);
      },
      removed: (supervision) => {
        for (const board of this.boards) board.removed(supervision);
      },
    });
    const forget = () => void this.calls.delete(call);
    void call.closed.then(forget, forget);
  }

  /** Every account's calls on the board (with a record, not ended). This instance's only. */
  supervised(): CallSupervision[] {
    const found: CallSupervision[] = [];
    for (const call of this.calls) if (call.supervision.isLive) found.push(call.supervision);
    return found;
  }

  /** The calls of `organizationId` on the board. This instance's only (modules/live/live-peers.ts has the others'). */
  supervisedBy(organizationId: string): CallSupervision[] {
    return this.supervised().filter((supervision) => supervision.organizationId === organizationId);
  }

  /** One live call of `organizationId`, or null (another account's, finished, unknown: all the same). */
  findSupervised(organizationId: string, callId: string): CallSupervision | null {
    return this.supervisedBy(organizationId).find((supervision) => supervision.callId === callId) ?? null;
  }

  /** Follow every call's board changes; returns the unsubscribe. */
  watchBoard(listener: SupervisionListener): () => void {
    this.boards.add(listener);
    return () => this.boards.delete(listener);
  }

  /** Ends every live call and waits until each record is finalised. Idempotent. */
  closeAll(reason = SHUTDOWN_REASON): Promise<void> {
    this.closingAll ??= Promise.all([...this.calls].map((call) => call.close(reason))).then(() => undefined);
    return this.closingAll;
  }
}
