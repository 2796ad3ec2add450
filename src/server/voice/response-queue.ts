/**
 * The one-response-at-a-time rule of the provider: a `response.create` sent while a response
 * is active fails with `conversation_already_has_active_response`. Requests made while one is
 * active are coalesced into ONE that goes out after that response's `response.done`.
 */
import type { ResponseOptions } from "./providers/realtime-protocol.ts";

export class ResponseQueue {
  /** A response is in progress (response.created seen, or counted from our send). */
  private active = false;
  /** Our response.create is out and its response.created has not come back yet. */
  private inFlight = false;
  private wanted: { options: ResponseOptions | undefined } | null = null;
  private lastSent: ResponseOptions | undefined;

  /** `send` returns false when nothing could be sent (socket closed). */
  constructor(private readonly send: (options: ResponseOptions | undefined) => boolean) {}

  get isActive(): boolean {
    return this.active;
  }

  request(options?: ResponseOptions): void {
    if (this.active) {
      this.wanted = { options };
      return;
    }
    if (this.send(options)) {
      // Counted as active from the moment it is sent, before response.created comes back.
      this.active = true;
      this.inFlight = true;
      this.lastSent = options;
    }
  }

  /** response.created — also for responses the server's VAD starts on its own. */
  created(): void {
    this.active = true;
    this.inFlight = false;
  }

  /** response.done: the slot is free; a queued request goes out now. */
  done(): void {
    this.active = false;
    this.inFlight = false;
    this.drain();
  }

  private drain(): void {
    const wanted = this.wanted;
    this.wanted = null;
    if (wanted) this.request(wanted.options);
  }

  /**
   * Our request was refused for another reason (bad options, rate limit, ...): no response will
   * come of it, so the slot is free again. A request queued meanwhile goes out now; the refused
   * one is not retried (it would be refused the same way).
   */
  refused(): void {
    if (!this.inFlight) return; // not ours, or already answered: the active response stands
    this.inFlight = false;
    this.active = false;
    this.drain();
  }

  /** A new provider session: nothing of the old one is in progress any more; a queued request goes to the new one. */
  reset(): void {
    this.active = false;
    this.inFlight = false;
    this.drain();
  }

  /**
   * Our request raced a response the server started itself (VAD): it was refused, and the
   * server's active response will end with a response.done — ask again then.
   */
  refusedAsActive(): void {
    this.wanted ??= { options: this.lastSent };
  }
}
