/**
 * A provider session opened before its call starts. A phone call's voice webhook knows the call
 * a few hundred milliseconds before Twilio opens its media stream: the session is connected and
 * configured (`session.update`) meanwhile, so the call that takes it greets without waiting for
 * a connection and a round trip of its own (docs/decisions/049-calls-set-up-at-the-webhook.md).
 *
 * What the socket reports before the call attaches (`connect`) is kept and replayed to it in
 * order. The call's first `session.update` is then answered by the early one when it is the same
 * configuration (both are built by callSessionConfig from the same prepared call): nothing is
 * sent, and the early `session.updated` stands for it. A different one is sent, and the early
 * `session.updated` is withheld, so the call never goes live on a configuration it did not ask for.
 */
import type { WireAudio } from "../audio.ts";
import type { RealtimeProvider, RealtimeProviderHandlers } from "./openai-realtime.ts";
import type { ServiceUsage, TurnLatency } from "../../../shared/calls.ts";
import type { ProviderCost } from "../../../shared/call-records.ts";
import type { ConversationItem, RealtimeSessionConfig, RealtimeSessionUpdate, ResponseOptions } from "./realtime-protocol.ts";

type Report = (handlers: RealtimeProviderHandlers) => void;

export class PrimedProvider implements RealtimeProvider {
  private handlers: RealtimeProviderHandlers | null = null;
  private kept: Report[] = [];
  private readonly early: string;
  private callUpdated = false;
  /** The early `session.updated` has been passed on (or withheld). */
  private earlyAnswered = false;
  private withholdEarly = false;
  private closed = false;

  constructor(
    private readonly inner: RealtimeProvider,
    session: RealtimeSessionConfig,
  ) {
    this.early = JSON.stringify(session);
    inner.connect({
      open: () => {
        inner.updateSession(session);
        this.report((h) => h.open());
      },
      event: (event) =>
        this.report((h) => {
          if (event.type === "session.updated" && !this.earlyAnswered) {
            this.earlyAnswered = true;
            if (this.withholdEarly) return;
          }
          h.event(event);
        }),
      error: (message, beforeOpen) => this.report((h) => h.error(message, beforeOpen)),
      close: (code, reason) => {
        this.closed = true;
        this.report((h) => h.close(code, reason));
      },
    });
  }

  /** Not closed: a call can still take it (one that failed or lapsed is replaced by a new session). */
  get usable(): boolean {
    return !this.closed;
  }

  private report(report: Report): void {
    if (this.handlers) report(this.handlers);
    else this.kept.push(report);
  }

  connect(handlers: RealtimeProviderHandlers): void {
    if (this.handlers) throw new Error("already connected");
    this.handlers = handlers;
    const kept = this.kept;
    this.kept = [];
    for (const report of kept) report(handlers);
  }

  get hearsCallerWhileSilenced(): boolean | undefined {
    return this.inner.hearsCallerWhileSilenced;
  }

  get isOpen(): boolean {
    return this.inner.isOpen;
  }

  updateSession(session: RealtimeSessionConfig | RealtimeSessionUpdate): boolean {
    if (!this.callUpdated) {
      this.callUpdated = true;
      if (JSON.stringify(session) === this.early) return this.inner.isOpen;
      this.withholdEarly = true;
    }
    return this.inner.updateSession(session);
  }

  appendAudio(audio: WireAudio): boolean {
    return this.inner.appendAudio(audio);
  }

  createItem(item: ConversationItem): boolean {
    return this.inner.createItem(item);
  }

  createResponse(response?: ResponseOptions): boolean {
    return this.inner.createResponse(response);
  }

  cancelResponse(): boolean {
    return this.inner.cancelResponse();
  }

  truncate(itemId: string, audioEndMs: number): boolean {
    return this.inner.truncate(itemId, audioEndMs);
  }

  clientEventType(eventId: string): string | undefined {
    return this.inner.clientEventType(eventId);
  }

  audioSent(itemId: string): void {
    this.inner.audioSent?.(itemId);
  }

  turns(): TurnLatency[] {
    return this.inner.turns?.() ?? [];
  }

  serviceUsage(): ServiceUsage | null {
    return this.inner.serviceUsage?.() ?? null;
  }

  providerCost(): ProviderCost | null {
    return this.inner.providerCost?.() ?? null;
  }

  settled(): Promise<void> {
    return this.inner.settled?.() ?? Promise.resolve();
  }

  close(code?: number, reason?: string): void {
    this.inner.close(code, reason);
  }
}
