/**
 * The calls this app instance is carrying right now. One registry per app (created in
 * buildApp, never module state), so shutdown can end every call with its reason and a
 * finalised record before the process lets go of its sockets and its database.
 */
import { LIVE_CALL_TEXTS } from "../../../shared/calls.ts";
import type { CallOutcome } from "../../voice/call-session.ts";
import type { FrameMetrics } from "../../voice/seams.ts";

const SHUTDOWN_REASON = LIVE_CALL_TEXTS.shuttingDown;

/** What the registry needs of a call (a CallSession). */
export interface LiveCall {
  close(reason: string): Promise<CallOutcome>;
  readonly closed: Promise<CallOutcome>;
}

export class LiveCalls {
  private readonly calls = new Set<LiveCall>();
  private closingAll: Promise<void> | null = null;

  /** Per-frame timing sink for `npm run bench:voice`; undefined (off) in production. */
  constructor(readonly metrics?: FrameMetrics) {}

  get size(): number {
    return this.calls.size;
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
      void call.close(SHUTDOWN_REASON);
      return;
    }
    this.calls.add(call);
    void call.closed.then(() => this.calls.delete(call));
  }

  /** Ends every live call and waits until each record is finalised. Idempotent. */
  closeAll(reason = SHUTDOWN_REASON): Promise<void> {
    this.closingAll ??= Promise.all([...this.calls].map((call) => call.close(reason))).then(() => undefined);
    return this.closingAll;
  }
}
