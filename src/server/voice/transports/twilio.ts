/**
 * A phone caller's side of a call: a Twilio bidirectional Media Stream (`<Connect><Stream>`)
 * on the shared socket handling (socket-link.ts) and the Twilio wire codec (twilio-codec.ts).
 *
 * - µ-law 8 kHz passes through untouched both ways (the provider speaks `audio/pcmu`).
 * - The socket is attached the moment it opens (before any await), so `connected`, `start`
 *   and the first media frames are never missed; caller audio that arrives before the session
 *   attaches is kept (bounded) and handed over first, and so are keypad keys.
 * - Outgoing `media` is followed by a `mark` naming the item and how much of it has been sent,
 *   once MARK_EVERY_MS of it went unmarked and when the item's audio is done; Twilio echoes the
 *   mark when that audio has played, so echoed marks are the truth of what the caller heard
 *   (protocols §1.9, Algorithm B). A `clear` makes Twilio echo every pending mark at once:
 *   those echoes are ignored (the mark table is emptied first).
 */
import type WebSocket from "ws";
import { PHONE_END_REASONS } from "../../../shared/calls.ts";
import { PCMU_SAMPLE_RATE, wireByteLength, type CallAudioFormat, type WireAudio } from "../audio.ts";
import { MAX_EARLY_KEYS } from "../builtins.ts";
import type { CallerLeft, FrameMetrics, Transport, TransportHandlers } from "../seams.ts";
import { decodeTwilioFrame, encodeClear, encodeMark, encodeMedia, streamSidJson, type StreamSidJson, type TwilioStart } from "./twilio-codec.ts";
import { SocketLink } from "./socket-link.ts";

const BYTES_PER_MS = PCMU_SAMPLE_RATE / 1000;
/**
 * A mark at most this much audio apart: what the caller heard is known to within it (plus the
 * echo's way back), inside the 50 ms a barge-in's truncation allows (playback.ts). Each mark is a
 * message both ways; at one per 20 ms delta they were a third of a call's messages.
 */
export const MARK_EVERY_MS = 40;

/** µ-law 8 kHz, as Twilio streams it both ways. */
export const TWILIO_AUDIO_FORMAT = "audio/pcmu" satisfies CallAudioFormat;

export interface TwilioTransportOptions {
  heartbeatMs?: number;
  /** Outgoing audio is refused (not queued) beyond this many unsent bytes: ~2 min of µ-law. */
  maxBufferedBytes?: number;
  /** Caller audio kept while the session is not attached yet: 10 s of µ-law by default. */
  maxEarlyAudioBytes?: number;
  /** How long to wait for `start` after the socket opens. */
  startTimeoutMs?: number;
  metrics?: Pick<FrameMetrics, "uplink">;
}

interface PendingMark {
  itemId: string;
  endMs: number;
}

export class TwilioTransport implements Transport {
  readonly audioFormat = TWILIO_AUDIO_FORMAT;
  private readonly link: SocketLink;
  private handlers: TransportHandlers | null = null;
  private streamSid: StreamSidJson | null = null;
  private readonly early: string[] = [];
  private earlyBytes = 0;
  private readonly earlyKeys: string[] = [];
  private left: CallerLeft | null = null;
  private released = false;
  /** Mark name → what it acknowledges; emptied on clear so late echoes are ignored. */
  private readonly marks = new Map<string, PendingMark>();
  /** Bytes sent per item (for the mark's cumulative ms). */
  private readonly sentBytes = new Map<string, number>();
  private markSeq = 0;
  /** The item whose latest audio went without a mark yet. */
  private unmarkedItem: string | null = null;
  /** The last mark sent: its item and that item's bytes sent by then. */
  private lastMark = { itemId: "", bytes: 0 };
  private generation = 0;
  private readonly maxEarlyAudioBytes: number;
  private readonly metrics: Pick<FrameMetrics, "uplink"> | undefined;
  private startTimer: NodeJS.Timeout | null;
  private resolveStart!: (start: TwilioStart | null) => void;
  /** The `start` message, or null when the socket went away (or stayed silent) before it. */
  readonly started: Promise<TwilioStart | null>;

  constructor(ws: WebSocket, options: TwilioTransportOptions = {}) {
    this.link = new SocketLink(ws, { heartbeatMs: options.heartbeatMs ?? 30_000, maxBufferedBytes: options.maxBufferedBytes ?? 1024 * 1024 });
    this.maxEarlyAudioBytes = options.maxEarlyAudioBytes ?? 10_000 * BYTES_PER_MS;
    this.metrics = options.metrics;
    this.started = new Promise((resolve) => (this.resolveStart = resolve));
    this.startTimer = setTimeout(() => this.resolveStart(null), options.startTimeoutMs ?? 10_000);
    this.startTimer.unref();
    this.link.attach({
      message: (data) => this.onFrame(data),
      gone: ({ lastHeardAt, timedOut }) =>
        this.callerLeft(timedOut ? { reason: PHONE_END_REASONS.connectionLost, lastHeardAt } : { reason: PHONE_END_REASONS.callerHungUp }),
    });
  }

  start(handlers: TransportHandlers): void {
    if (this.released) {
      handlers.disconnect(this.left ?? { reason: PHONE_END_REASONS.callerHungUp });
      return;
    }
    this.handlers = handlers;
    for (const chunk of this.early.splice(0)) handlers.audio(chunk);
    this.earlyBytes = 0;
    for (const digit of this.earlyKeys.splice(0)) handlers.keypad?.(digit);
  }

  private onFrame(data: Buffer): void {
    const startedAt = this.metrics ? performance.now() : 0;
    const message = decodeTwilioFrame(data);
    if (!message) return;
    switch (message.event) {
      case "media": {
        // Only the caller's track carries audio for us (inbound is all a <Connect> stream sends).
        if (message.media.track !== undefined && message.media.track !== "inbound") return;
        // The base64 text as it came: the provider takes it as it is (no decode, no copy).
        const audio = message.media.payload;
        if (audio.length === 0) return;
        if (this.handlers) {
          this.handlers.audio(audio);
          this.metrics?.uplink(performance.now() - startedAt, audio);
        } else {
          const bytes = wireByteLength(audio);
          if (this.earlyBytes + bytes > this.maxEarlyAudioBytes) return;
          this.early.push(audio);
          this.earlyBytes += bytes;
        }
        return;
      }
      case "mark": {
        const mark = this.marks.get(message.mark.name);
        if (!mark) return; // echoed after a clear, or not ours
        this.marks.delete(message.mark.name);
        this.handlers?.playback(mark.itemId, mark.endMs);
        return;
      }
      case "start":
        if (this.streamSid) return;
        this.streamSid = streamSidJson(message.start.streamSid);
        if (this.startTimer) clearTimeout(this.startTimer);
        this.startTimer = null;
        this.resolveStart(message.start);
        return;
      case "stop":
        this.callerLeft({ reason: PHONE_END_REASONS.callerHungUp });
        this.link.close(1000, "Stream stopped");
        return;
      case "dtmf":
        // Pressed while the stream's checks run: kept like early audio.
        if (this.handlers) this.handlers.keypad?.(message.dtmf.digit);
        else if (this.earlyKeys.length < MAX_EARLY_KEYS) this.earlyKeys.push(message.dtmf.digit);
        return;
      case "connected":
        return;
    }
  }

  private callerLeft(left: CallerLeft): void {
    if (this.released) return;
    this.left = left;
    const handlers = this.handlers;
    this.release();
    this.resolveStart(null);
    handlers?.disconnect(left);
  }

  sendAudio(itemId: string, audio: WireAudio): boolean {
    const streamSid = this.streamSid;
    if (!streamSid || audio.length === 0 || !this.link.canSend) return false;
    // Another item's audio begins: the last one's unmarked end gets its mark first.
    if (this.unmarkedItem !== null && this.unmarkedItem !== itemId) this.markEnd(this.unmarkedItem);
    const bytes = (this.sentBytes.get(itemId) ?? 0) + wireByteLength(audio);
    this.sentBytes.set(itemId, bytes);
    this.link.send(encodeMedia(streamSid, audio));
    const marked = this.lastMark.itemId === itemId ? this.lastMark.bytes : 0;
    if (bytes - marked >= MARK_EVERY_MS * BYTES_PER_MS) this.mark(streamSid, itemId, bytes);
    else this.unmarkedItem = itemId;
    return true;
  }

  audioDone(itemId: string): void {
    if (this.unmarkedItem === itemId) this.markEnd(itemId);
  }

  private markEnd(itemId: string): void {
    const streamSid = this.streamSid;
    if (streamSid && this.link.isOpen) this.mark(streamSid, itemId, this.sentBytes.get(itemId) ?? 0);
    this.unmarkedItem = null;
  }

  private mark(streamSid: StreamSidJson, itemId: string, bytes: number): void {
    this.markSeq += 1;
    const name = `${this.generation}.${this.markSeq}`;
    this.marks.set(name, { itemId, endMs: bytes / BYTES_PER_MS });
    this.link.send(encodeMark(streamSid, name));
    this.lastMark = { itemId, bytes };
    this.unmarkedItem = null;
  }

  clearPlayback(flushed: () => void): void {
    // Always sent, even when all audio was already sent: Twilio may still be playing it.
    if (this.streamSid) this.link.send(encodeClear(this.streamSid));
    this.generation += 1;
    this.marks.clear();
    this.unmarkedItem = null;
    // The marks echoed before the clear are all there is to know: no flush report to wait for.
    flushed();
  }

  /** A phone has no panel: status and transcript messages have nowhere to go. */
  send(): void {}

  private release(): void {
    this.released = true;
    this.handlers = null;
    this.early.length = 0;
    this.earlyKeys.length = 0;
    this.marks.clear();
    if (this.startTimer) clearTimeout(this.startTimer);
    this.startTimer = null;
  }

  close(code = 1000, reason = ""): void {
    if (!this.released) {
      this.release();
      this.resolveStart(null);
    }
    this.link.close(code, reason);
  }
}
