/**
 * An answered SIP call as the call engine's caller side (voice/seams.ts `Transport`): µ-law 8 kHz
 * both ways, as the provider speaks it (A-law calls are converted byte by byte), keypad digits
 * from RFC 4733 and SIP INFO, and what the caller heard taken from our own RTP clock: an item's audio counts as
 * played once its frames went out, reported every 40 ms of it, as Twilio's marks are.
 *
 * A transfer that calls the destination itself borrows the call's audio while it rings
 * (`suspend`, then `resume` when nobody answers) and keeps the call once it is bridged (`release`:
 * the session's end then leaves the call up).
 */
import { PHONE_END_REASONS, type ServerMessage } from "../../../shared/calls.ts";
import { PCMU_SAMPLE_RATE, type WireAudio } from "../../voice/audio.ts";
import { MAX_EARLY_KEYS } from "../../voice/builtins.ts";
import type { CallerLeft, Transport, TransportHandlers } from "../../voice/seams.ts";
import type { SipCall } from "./call.ts";
import { alawToMulaw, mulawToAlaw } from "./g711.ts";

const BYTES_PER_MS = PCMU_SAMPLE_RATE / 1000;
const REPORT_EVERY_BYTES = 40 * BYTES_PER_MS;
/** Caller audio kept until the session attaches (10 s), and assistant audio queued at most (2 min). */
const MAX_EARLY_BYTES = 10_000 * BYTES_PER_MS;
/**
 * Caller audio goes on to the session 40 ms at a time, not per 20 ms packet: each hand-off
 * becomes a message on the provider's socket (a system call), the largest cost of a call, and the
 * provider hears the caller at most 20 ms later.
 */
const HAND_OFF_BYTES = 40 * BYTES_PER_MS;
const MAX_QUEUED_MS = 120_000;

interface ItemPlayback {
  queued: number;
  played: number;
  reported: number;
  done: boolean;
}

export class SipCallTransport implements Transport {
  readonly audioFormat = "audio/pcmu" as const;
  private handlers: TransportHandlers | null = null;
  private readonly early: Buffer[] = [];
  private earlyBytes = 0;
  private readonly earlyKeys: string[] = [];
  private readonly items = new Map<string, ItemPlayback>();
  private left: CallerLeft | null = null;
  private closed = false;
  private suspended = false;
  private released = false;
  private readonly taps = new Set<(mulaw: Buffer) => void>();
  /** Caller audio heard since the last hand-off. */
  private pending: Buffer[] = [];
  private pendingBytes = 0;

  constructor(private readonly call: SipCall) {
    if (!call.rtp || call.state === "ended") throw new Error("Only an answered SIP call carries audio");
    this.listen();
    // SIP INFO digits come through the call, not its RTP: listened to once, suspended or not.
    call.on("digit", (digit) => this.keyed(digit));
    call.once("ended", (reason) => this.callerLeft({ reason: reason === "timeout" ? PHONE_END_REASONS.connectionLost : PHONE_END_REASONS.callerHungUp }));
  }

  private listen() {
    const call = this.call;
    call.rtp?.on({
      audio: (payload) => this.heard(call.plan?.codec === "PCMA" ? alawToMulaw(payload) : payload),
      digit: (digit) => this.keyed(digit),
      played: (itemId, bytes) => this.played(itemId, bytes),
    });
  }

  /** The session neither hears nor speaks until `resume`: the call's RTP is someone else's meanwhile. */
  suspend(): void {
    this.clearPlayback(() => undefined);
    this.pending = [];
    this.pendingBytes = 0;
    this.suspended = true;
  }

  /** Back to the session: what the caller says reaches it again, and it may speak. */
  resume(): void {
    if (!this.suspended || this.released) return;
    this.suspended = false;
    this.listen();
  }

  /** The call now belongs elsewhere (a bridge): the session's end no longer hangs it up. */
  release(): void {
    this.suspended = true;
    this.released = true;
  }

  start(handlers: TransportHandlers): void {
    if (this.left) return handlers.disconnect(this.left);
    this.handlers = handlers;
    for (const chunk of this.early.splice(0)) handlers.audio(chunk);
    this.earlyBytes = 0;
    for (const digit of this.earlyKeys.splice(0)) handlers.keypad?.(digit);
  }

  /** A keypad digit, by RFC 4733 or SIP INFO alike. */
  private keyed(digit: string) {
    if (this.suspended) return; // bridged: the keys are the far end's to hear
    if (this.handlers) this.handlers.keypad?.(digit);
    else if (this.earlyKeys.length < MAX_EARLY_KEYS) this.earlyKeys.push(digit);
  }

  /** Also hands `listener` what the far end says (µ-law), suspended or not; returns the way to stop. */
  tap(listener: (mulaw: Buffer) => void): () => void {
    this.taps.add(listener);
    return () => void this.taps.delete(listener);
  }

  private heard(audio: Buffer) {
    for (const listener of this.taps) listener(audio);
    if (this.suspended) return;
    this.pending.push(audio);
    this.pendingBytes += audio.length;
    if (this.pendingBytes >= HAND_OFF_BYTES) this.handOff();
  }

  private handOff() {
    if (this.pendingBytes === 0) return;
    const audio = this.pending.length === 1 ? this.pending[0]! : Buffer.concat(this.pending, this.pendingBytes);
    this.pending = [];
    this.pendingBytes = 0;
    if (this.handlers) return this.handlers.audio(audio);
    if (this.earlyBytes + audio.length > MAX_EARLY_BYTES) return;
    this.early.push(audio);
    this.earlyBytes += audio.length;
  }

  sendAudio(itemId: string, audio: WireAudio): boolean {
    const rtp = this.call.rtp;
    if (this.closed || this.left || this.suspended || !rtp || rtp.queuedMs > MAX_QUEUED_MS) return false;
    // base64 decodes into a new buffer already; bytes handed in are copied, as the queue keeps them.
    const mulaw = typeof audio === "string" ? Buffer.from(audio, "base64") : Buffer.from(audio);
    rtp.play(this.call.plan?.codec === "PCMA" ? mulawToAlaw(mulaw) : mulaw, itemId);
    const item = this.items.get(itemId) ?? { queued: 0, played: 0, reported: 0, done: false };
    item.queued += mulaw.length;
    this.items.set(itemId, item);
    return true;
  }

  audioDone(itemId: string): void {
    const item = this.items.get(itemId);
    if (!item) return;
    item.done = true;
    this.report(itemId, item);
  }

  private played(itemId: string, bytes: number) {
    const item = this.items.get(itemId);
    if (!item) return;
    item.played += bytes;
    this.report(itemId, item);
  }

  private report(itemId: string, item: ItemPlayback) {
    const finished = item.done && item.played >= item.queued;
    if (item.played - item.reported < REPORT_EVERY_BYTES && !(finished && item.played > item.reported)) return;
    item.reported = item.played;
    this.handlers?.playback(itemId, item.played / BYTES_PER_MS);
    if (finished) this.items.delete(itemId);
  }

  /** Barge-in: what is queued is dropped; what went out is what the caller heard, known at once. */
  clearPlayback(flushed: () => void): void {
    if (!this.suspended) this.call.rtp?.clear();
    for (const [itemId, item] of this.items) if (item.played > item.reported) this.handlers?.playback(itemId, item.played / BYTES_PER_MS);
    this.items.clear();
    flushed();
  }

  send(_message: ServerMessage): void {
    // A phone has no screen: status and transcript messages are for the browser only.
  }

  private callerLeft(left: CallerLeft) {
    if (this.left || this.closed) return;
    if (!this.suspended) this.handOff(); // the caller's last words
    this.left = left;
    this.handlers?.disconnect(left);
  }

  close(): void {
    if (this.closed) return;
    this.closed = true;
    if (!this.released) this.call.hangup();
  }
}
