/**
 * A call longer than a provider session. The provider ends every Realtime session at 60
 * minutes (`session_expired`, then a close); a contact-centre call may last longer, and a
 * session may also end early (the cap reached sooner, an unexpected close).
 *
 * - Planned: `session.created` carries `expires_at`. `renewBeforeMs` before it, a new session is
 *   opened with the same configuration; once it answers `session.updated` and the call is
 *   between turns (no response in progress, no tool call waiting, the caller not mid-sentence),
 *   the conversation so far goes in as context items and the call switches to it. The caller
 *   hears nothing of it.
 * - Forced: when the current session ends anyway, the same happens at once (a prepared session
 *   is used as soon as it is ready). The caller loses at most the turn in progress.
 *
 * Either way the first message is not spoken again (only the first session greets), and the
 * call keeps its one record. A replacement that cannot be set up (refused, not ready within
 * the connect timeout, or a third forced recovery without a response in between) ends the call
 * with that reason, as the first session's failure would.
 */
import type { RealtimeProvider, RealtimeProviderHandlers } from "./providers/openai-realtime.ts";
import type { ConversationItem, RealtimeServerEvent, RealtimeSessionConfig } from "./providers/realtime-protocol.ts";
import type { SessionLogger } from "./seams.ts";

export const RENEW_BEFORE_EXPIRY_MS = 5 * 60_000;
const MAX_FORCED_IN_A_ROW = 3;

export interface RenewalHost {
  /** The session the call uses now. */
  current(): RealtimeProvider;
  newProvider: () => RealtimeProvider;
  /** The session's handlers for a provider (they ignore it unless it is the current one). */
  handlersFor(provider: RealtimeProvider): RealtimeProviderHandlers;
  sessionConfig(): RealtimeSessionConfig;
  /** The conversation so far, as it fits in a new session. */
  context(): ConversationItem[];
  /** No response in progress and no tool output awaited. */
  quiet(): boolean;
  /** Make `provider` the call's session (the old one is closed by the renewal afterwards). */
  swap(provider: RealtimeProvider): void;
  /** The call cannot go on: end it with this reason. */
  fail(reason: string): void;
  /** A timer owned by the call (released when it ends). */
  after(ms: number, fn: () => void): () => void;
  connectTimeoutMs: number;
  renewBeforeMs: number;
  logger: SessionLogger;
}

interface Pending {
  provider: RealtimeProvider;
  ready: boolean;
  /** The current session is gone: switch as soon as this one is ready. */
  forced: boolean;
  expiresAt?: number;
  cancelTimeout: () => void;
}

export class SessionRenewal {
  private next: Pending | null = null;
  private cancelPlanned: (() => void) | null = null;
  private forcedInARow = 0;
  private callerSpeaking = false;
  private stopped = false;

  constructor(private readonly host: RenewalHost) {}

  /** Every event of the current session, after the call has handled it. */
  observe(event: RealtimeServerEvent): void {
    switch (event.type) {
      case "session.created":
        this.plan(event.session.expires_at);
        break;
      case "input_audio_buffer.speech_started":
        this.callerSpeaking = true;
        break;
      case "input_audio_buffer.speech_stopped":
        this.callerSpeaking = false;
        break;
      case "response.done":
        this.forcedInARow = 0;
        break;
    }
    this.switchIfReady();
  }

  /** Tool outputs were sent, a queued request went out, ...: a moment to switch may have come. */
  switchIfReady(): void {
    const next = this.next;
    if (next?.ready && (next.forced || (!this.callerSpeaking && this.host.quiet()))) this.switchTo(next);
  }

  /**
   * The current session ended or is ending (session_expired, close). True when a replacement
   * takes over; false when the call should end (no way to renew, or too many in a row).
   */
  recover(reason: string): boolean {
    if (this.stopped) return false;
    if (this.next) {
      this.next.forced = true;
      this.switchIfReady();
      return true;
    }
    if (this.forcedInARow >= MAX_FORCED_IN_A_ROW) return false;
    this.forcedInARow += 1;
    this.host.logger.warn({ reason }, "provider session ended during the call: opening a new one");
    this.prepare(true);
    return true;
  }

  /** The call ended: drop any session being prepared. */
  stop(): void {
    this.stopped = true;
    this.cancelPlanned?.();
    const next = this.next;
    this.next = null;
    if (next) {
      next.cancelTimeout();
      next.provider.close(1000, "Call ended");
    }
  }

  private plan(expiresAtSeconds: number | undefined): void {
    this.cancelPlanned?.();
    this.cancelPlanned = null;
    if (expiresAtSeconds === undefined || this.stopped) return;
    const inMs = expiresAtSeconds * 1000 - this.host.renewBeforeMs - Date.now();
    this.cancelPlanned = this.host.after(Math.max(0, inMs), () => {
      this.cancelPlanned = null;
      if (!this.next && !this.stopped) this.prepare(false);
    });
  }

  private prepare(forced: boolean): void {
    const provider = this.host.newProvider();
    const next: Pending = {
      provider,
      ready: false,
      forced,
      cancelTimeout: this.host.after(this.host.connectTimeoutMs, () => {
        if (this.next === next && !next.ready) this.abandon(next, "Connection timed out");
      }),
    };
    this.next = next;
    const live = this.host.handlersFor(provider);
    const mine = () => this.host.current() === provider;
    provider.connect({
      open: () => {
        if (this.next === next) provider.updateSession(this.host.sessionConfig());
      },
      event: (event) => {
        if (mine()) return live.event(event);
        if (this.next !== next) return;
        if (event.type === "session.created") next.expiresAt = event.session.expires_at;
        else if (event.type === "session.updated") {
          next.ready = true;
          next.cancelTimeout();
          this.switchIfReady();
        } else if (event.type === "error") {
          const cause = event.error.event_id ? provider.clientEventType(event.error.event_id) : undefined;
          if (cause === "session.update") this.abandon(next, `Failed to initialize session: ${event.error.message}`);
        }
      },
      error: (message, beforeOpen) => {
        if (mine()) return live.error(message, beforeOpen);
        if (this.next === next && beforeOpen) this.abandon(next, message);
      },
      close: (code, reason) => {
        if (mine()) return live.close(code, reason);
        if (this.next === next) this.abandon(next, reason || `Disconnected (${code})`);
      },
    });
  }

  private switchTo(next: Pending): void {
    this.next = null;
    const old = this.host.current();
    // Context first: the socket keeps order, so anything the call sends next comes after it.
    for (const item of this.host.context()) next.provider.createItem(item);
    this.host.swap(next.provider);
    old.close(1000, "Session renewed");
    this.callerSpeaking = false;
    this.host.logger.info({ forced: next.forced }, "switched the call to a new provider session");
    this.plan(next.expiresAt);
  }

  private abandon(next: Pending, reason: string): void {
    if (this.next !== next) return;
    this.next = null;
    next.cancelTimeout();
    next.provider.close(1000, "Renewal failed");
    if (next.forced) this.host.fail(reason);
    // A planned renewal that failed: the current session carries on; its end forces another try.
    else this.host.logger.warn({ reason }, "could not prepare a new provider session");
  }
}
