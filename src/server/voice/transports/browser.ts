/**
 * The Test Call panel's side of a call, over the `ws` WebSocket of WS /api/calls/live: the
 * shared socket handling (socket-link.ts) plus the panel's wire codec (browser-codec.ts).
 *
 * Barge-in: the server sends `clear`; the panel drops its queue and reports what it had
 * played of the item (the flush report). Truncation waits for that report — the periodic
 * reports lag up to 0.4 s behind — or for `flushReportTimeoutMs` when none comes (nothing was
 * playing, or an old client).
 */
import type WebSocket from "ws";
import { wireBytes, type WireAudio } from "../audio.ts";
import type { FrameMetrics, Transport, TransportHandlers } from "../seams.ts";
import type { ServerMessage } from "../../../shared/calls.ts";
import { decodeBrowserFrame, encodeServerMessage, INVALID_MESSAGE } from "./browser-codec.ts";
import { SocketLink } from "./socket-link.ts";

export const BROWSER_DISCONNECTED = "Client disconnected";

export interface BrowserTransportOptions {
  /** Ping period; a missing pong by the next ping drops the connection. Spec §9: 30 s. */
  heartbeatMs?: number;
  /**
   * Assistant audio is not queued beyond this much unsent data: a client that stops reading
   * must not grow the server's memory. 8 MB is about 3 minutes of 24 kHz PCM16.
   */
  maxBufferedBytes?: number;
  /** How long a barge-in waits for the panel's flush report before truncating on what it has. */
  flushReportTimeoutMs?: number;
  /** Off by default: the bench passes a sink to time each caller frame through the server. */
  metrics?: Pick<FrameMetrics, "uplink">;
}

export class BrowserTransport implements Transport {
  readonly audioFormat = "audio/pcm" as const;
  private readonly link: SocketLink;
  private handlers: TransportHandlers | null = null;
  private currentItemId: string | null = null;
  private flushWaiter: { done: () => void; timer: NodeJS.Timeout } | null = null;
  private readonly flushTimeoutMs: number;
  private readonly metrics: Pick<FrameMetrics, "uplink"> | undefined;

  constructor(ws: WebSocket, options: BrowserTransportOptions = {}) {
    this.link = new SocketLink(ws, { heartbeatMs: options.heartbeatMs ?? 30_000, maxBufferedBytes: options.maxBufferedBytes ?? 8 * 1024 * 1024 });
    this.flushTimeoutMs = options.flushReportTimeoutMs ?? 300;
    this.metrics = options.metrics;
  }

  start(handlers: TransportHandlers): void {
    this.handlers = handlers;
    this.link.attach({
      message: (data, isBinary) => this.onFrame(data, isBinary),
      gone: ({ lastHeardAt, timedOut }) => {
        const current = this.handlers;
        this.release();
        current?.disconnect({ reason: BROWSER_DISCONNECTED, lastHeardAt: timedOut ? lastHeardAt : undefined });
      },
    });
  }

  private onFrame(data: Buffer, isBinary: boolean): void {
    const handlers = this.handlers;
    if (!handlers) return;
    const startedAt = this.metrics ? performance.now() : 0;
    const frame = decodeBrowserFrame(data, isBinary);
    switch (frame.kind) {
      case "audio":
        if (frame.audio.length > 0) handlers.audio(frame.audio);
        this.metrics?.uplink(performance.now() - startedAt);
        return;
      case "invalid":
        this.send(INVALID_MESSAGE);
        return;
    }
    const message = frame.message;
    switch (message.type) {
      case "user_text":
        handlers.userText(message.text);
        break;
      case "end":
        handlers.end(message.reason ?? "User ended call");
        break;
      case "playback":
        handlers.playback(message.itemId, message.playedMs);
        // The first report after a clear is the flush report: what was heard when it took effect.
        this.settleFlush();
        break;
    }
  }

  private settleFlush(): void {
    const waiter = this.flushWaiter;
    if (!waiter) return;
    this.flushWaiter = null;
    clearTimeout(waiter.timer);
    waiter.done();
  }

  sendAudio(itemId: string, audio: WireAudio): boolean {
    if (audio.length === 0 || !this.link.canSend) return false;
    if (itemId !== this.currentItemId) {
      this.currentItemId = itemId;
      this.send({ type: "audio_start", itemId });
    }
    return this.link.send(wireBytes(audio), true);
  }

  clearPlayback(flushed: () => void): void {
    // After a flush the next audio always re-announces its item.
    this.currentItemId = null;
    this.settleFlush();
    if (!this.link.send(encodeServerMessage({ type: "clear" }))) {
      flushed();
      return;
    }
    const timer = setTimeout(() => this.settleFlush(), this.flushTimeoutMs);
    timer.unref();
    this.flushWaiter = { done: flushed, timer };
  }

  send(message: ServerMessage): void {
    this.link.send(encodeServerMessage(message));
  }

  private release(): void {
    this.handlers = null;
    if (this.flushWaiter) clearTimeout(this.flushWaiter.timer);
    this.flushWaiter = null;
  }

  close(code = 1000, reason = ""): void {
    this.release();
    this.link.close(code, reason);
  }
}
