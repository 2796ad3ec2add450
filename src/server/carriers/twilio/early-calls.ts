/**
 * Phone calls set up while their stream is on its way. The voice webhook knows the call (its
 * number, its assistant) a few hundred milliseconds before Twilio opens the media stream: the
 * call's configuration is loaded and its provider session opened and configured meanwhile
 * (primed-provider.ts), and the stream takes both ready (docs/decisions/049-calls-set-up-at-the-webhook.md).
 *
 * Kept by stream token: the stream that redeems the token takes its set-up, once. One no stream
 * takes (it reached another instance, the caller hung up first) is closed after PLACE_HOLD_MS,
 * like the place held for it.
 */
import { PLACE_HOLD_MS } from "../../modules/calls/live-calls.ts";
import type { PrepareResult } from "../../modules/calls/calls.service.ts";
import type { PrimedProvider } from "../../voice/providers/primed-provider.ts";

export interface EarlyCall {
  prepared: PrepareResult;
  /** Open or opening; null when the call could not be prepared. */
  provider: PrimedProvider | null;
}

interface Entry {
  callSid: string;
  ready: Promise<EarlyCall | null>;
  lapse: NodeJS.Timeout;
}

export class EarlyCalls {
  private readonly entries = new Map<string, Entry>();

  constructor(
    private readonly prime: (prepared: Extract<PrepareResult, { ok: true }>, callSid: string) => PrimedProvider,
    private readonly keepMs = PLACE_HOLD_MS,
  ) {}

  /** Loads the call of stream token `token` now and opens its provider session. */
  begin(token: string, callSid: string, load: () => Promise<PrepareResult>): void {
    // A failed load (or priming) is done again when the stream comes, and fails there with its
    // reason; `ready` itself never rejects, since `discard` does not await it.
    const ready = load()
      .then((prepared) => ({ prepared, provider: prepared.ok ? this.prime(prepared, callSid) : null }))
      .catch(() => null);
    const lapse = setTimeout(() => this.discard(token), this.keepMs);
    lapse.unref();
    this.entries.set(token, { callSid, ready, lapse });
  }

  /** The set-up begun for `token`, now the stream's (null when none was, or it lapsed, failed or closed). */
  async take(token: string): Promise<EarlyCall | null> {
    const entry = this.remove(token);
    if (!entry) return null;
    const early = await entry.ready;
    if (!early?.provider || early.provider.usable) return early;
    // Its session closed before the stream came: the call opens a new one.
    return { prepared: early.prepared, provider: null };
  }

  /** The stream of `callSid` reached another instance: its set-up here is of no use. */
  dropCall(callSid: string): void {
    for (const [token, entry] of this.entries) if (entry.callSid === callSid) this.discard(token);
  }

  /** Closes the set-up of `token` unless a stream took it. */
  discard(token: string): void {
    const entry = this.remove(token);
    void entry?.ready.then((early) => early?.provider?.close(1000, "Call not taken"));
  }

  /** Closes every session no stream took (the app is closing). */
  closeAll(): void {
    for (const token of this.entries.keys()) this.discard(token);
  }

  private remove(token: string): Entry | undefined {
    const entry = this.entries.get(token);
    if (!entry) return undefined;
    this.entries.delete(token);
    clearTimeout(entry.lapse);
    return entry;
  }
}
