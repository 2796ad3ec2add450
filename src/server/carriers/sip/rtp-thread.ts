/**
 * Every call's RTP on one media thread of its own (rtp-worker.ts runs the RtpSessions: sockets,
 * the 20 ms clock, reordering, SRTP), so what we send keeps its 20 ms pace while the main event
 * loop is busy — a database statement, a garbage collection, a burst of calls starting. Here each
 * session is a stand-in with the same surface (`RtpStream`): commands go to the thread as they
 * come; what the thread hears (audio, digits, played audio, a far end gone silent) comes back
 * after each pass of its 20 ms clock, in one message for all calls.
 *
 * If the thread dies, every call on it is told its far end went silent (the call hangs up, as for
 * a lost network), and the next call starts a new thread.
 */
import { performance } from "node:perf_hooks";
import type { Worker } from "node:worker_threads";
import { startWorkerThread } from "../../worker-thread.ts";
import type { ClockPasses } from "./rtp-clock.ts";
import { FRAME_BYTES, type RtpHandlers, type RtpSessionOptions, type RtpStream } from "./rtp-session.ts";
import { PTIME_MS, type MediaPlan } from "./sdp.ts";
import { eventOf } from "./rtp-packet.ts";

/**
 * To the media thread: a loop turn's commands, and the audio they play in one buffer (a buffer per
 * frame cost an allocation each side and the clone of each).
 */
export type ToMediaThread = { commands: MediaCommand[]; audio: Uint8Array };

/** A command; a `play`'s audio is `bytes` from `at` in its message's buffer. */
export type MediaCommand =
  | { op: "open"; id: number; options: RtpSessionOptions }
  | { op: "configure"; id: number; plan: MediaPlan }
  | { op: "play"; id: number; at: number; bytes: number; tag?: string }
  | { op: "digit"; id: number; digit: string }
  | { op: "clear"; id: number }
  | { op: "watch"; id: number }
  | { op: "close"; id: number }
  | { op: "clock" };

/** One thing a session heard or did, as the thread reports it (audio: `bytes` from `at` in its message's buffer). */
export type MediaEvent = [id: number, kind: "audio", at: number, bytes: number] | [id: number, kind: "digit", digit: string] | [id: number, kind: "played", tag: string, bytes: number] | [id: number, kind: "silent"];

/** From the media thread. */
export type FromMediaThread =
  | { op: "opened"; id: number; port: number; srtpKey: Uint8Array }
  | { op: "failed"; id: number; message: string }
  | { op: "events"; events: MediaEvent[]; audio: Uint8Array }
  | { op: "clock"; passes: ClockPasses };

/** Audio parts, in order, as one buffer of their own (not Node's shared pool: it is transferred). */
export function packAudio(parts: Uint8Array[]): Uint8Array<ArrayBuffer> {
  const audio = new Uint8Array(parts.reduce((n, part) => n + part.length, 0));
  let offset = 0;
  for (const part of parts) {
    audio.set(part, offset);
    offset += part.length;
  }
  return audio;
}

class MediaThread {
  private readonly worker: Worker;
  private readonly sessions = new Map<number, ThreadRtpSession>();
  private readonly opening = new Map<number, { resolve(s: ThreadRtpSession): void; reject(e: Error): void }>();
  private readonly clockAsked: ((passes: ClockPasses) => void)[] = [];
  private nextId = 1;
  private outbox: MediaCommand[] = [];
  private outAudio: Uint8Array[] = [];
  private outAudioBytes = 0;
  private dead = false;

  constructor() {
    this.worker = startWorkerThread(import.meta.url, "rtp-worker");
    // An idle thread does not keep the process from exiting; a call's session does (see open()).
    this.worker.unref();
    this.worker.on("message", (message: FromMediaThread) => this.receive(message));
    const died = (err: unknown) => this.died(err instanceof Error ? err : new Error(`media thread exited with code ${String(err)}`));
    this.worker.on("error", died).on("exit", died);
  }

  open(options: RtpSessionOptions): Promise<ThreadRtpSession> {
    const id = this.nextId++;
    return new Promise((resolve, reject) => {
      this.opening.set(id, { resolve, reject });
      this.post({ op: "open", id, options });
    });
  }

  clock(): Promise<ClockPasses> {
    if (this.dead) return Promise.resolve({ total: 0, times: [] });
    return new Promise((resolve) => {
      this.clockAsked.push(resolve);
      this.post({ op: "clock" });
    });
  }

  /** Commands go in order, a loop turn's worth in one message (a message each cost more than the audio in it). */
  post(command: MediaCommand): void {
    if (this.dead) return;
    if (this.outbox.length === 0) setImmediate(this.flush);
    this.outbox.push(command);
  }

  /** Plays `audio` (copied into the turn's one buffer when its commands go: not to be changed before). */
  play(id: number, audio: Uint8Array, tag?: string): void {
    if (this.dead) return;
    this.post({ op: "play", id, at: this.outAudioBytes, bytes: audio.length, tag });
    this.outAudio.push(audio);
    this.outAudioBytes += audio.length;
  }

  private flush = () => {
    const commands = this.outbox;
    const audio = packAudio(this.outAudio);
    this.outbox = [];
    this.outAudio = [];
    this.outAudioBytes = 0;
    if (!this.dead) this.worker.postMessage({ commands, audio } satisfies ToMediaThread, [audio.buffer]);
  };

  forget(id: number): void {
    this.sessions.delete(id);
    if (this.sessions.size === 0 && this.opening.size === 0) this.worker.unref();
  }

  private receive(message: FromMediaThread) {
    if (message.op === "events") {
      const audio = Buffer.from(message.audio.buffer, message.audio.byteOffset, message.audio.byteLength);
      for (const event of message.events) this.sessions.get(event[0])?.heard(event, audio);
      return;
    }
    if (message.op === "clock") return this.clockAsked.shift()?.(message.passes);
    const waiting = this.opening.get(message.id);
    this.opening.delete(message.id);
    if (!waiting) return;
    if (message.op === "failed") return waiting.reject(new Error(message.message));
    const session = new ThreadRtpSession(this, message.id, message.port, Buffer.from(message.srtpKey));
    this.sessions.set(message.id, session);
    // While a call has media, the thread is what keeps it going.
    this.worker.ref();
    waiting.resolve(session);
  }

  private died(err: Error) {
    if (this.dead) return;
    this.dead = true;
    if (thread === this) thread = null;
    for (const waiting of this.opening.values()) waiting.reject(err);
    this.opening.clear();
    // A question about the clock gets no passes rather than no answer (bench:sip waits on it).
    for (const asked of this.clockAsked.splice(0)) asked({ total: 0, times: [] });
    for (const session of this.sessions.values()) session.heard([0, "silent"]);
    this.sessions.clear();
  }
}

let thread: MediaThread | null = null;

/** A call's RTP session on the media thread (started with the first). */
export function openRtpOnThread(options: RtpSessionOptions): Promise<RtpStream> {
  thread ??= new MediaThread();
  return thread.open(options);
}

/** The media thread's recent clock passes (none before its first call). */
export function mediaClockPasses(): Promise<ClockPasses> {
  return thread ? thread.clock() : Promise.resolve({ total: 0, times: [] });
}

export class ThreadRtpSession implements RtpStream {
  private handlers: RtpHandlers = {};
  private silent: (() => void) | null = null;
  private plan: MediaPlan | null = null;
  private closed = false;
  /** Audio queued on the thread, as of `at` (it drains at the clock's pace once the media is agreed). */
  private queued = { ms: 0, at: 0 };

  constructor(
    private readonly thread: MediaThread,
    private readonly id: number,
    readonly port: number,
    readonly srtpKey: Buffer,
  ) {}

  on(handlers: RtpHandlers): void {
    this.handlers = handlers;
  }

  onSilent(handler: () => void): void {
    this.silent = handler;
    this.thread.post({ op: "watch", id: this.id });
  }

  configure(plan: MediaPlan): void {
    this.queued = { ms: this.queuedMs, at: performance.now() };
    this.plan = plan;
    this.thread.post({ op: "configure", id: this.id, plan });
  }

  get codec() {
    return this.plan?.codec ?? "PCMU";
  }

  play(payload: Buffer, tag?: string): void {
    if (payload.length === 0 || this.closed) return;
    this.queued = { ms: this.queuedMs + (payload.length / FRAME_BYTES) * PTIME_MS, at: performance.now() };
    this.thread.play(this.id, payload, tag);
  }

  sendDigit(digit: string): boolean {
    if (eventOf(digit) === null || this.plan?.telephoneEvent === undefined || this.closed) return false;
    this.thread.post({ op: "digit", id: this.id, digit });
    return true;
  }

  clear(): void {
    this.queued = { ms: 0, at: performance.now() };
    this.thread.post({ op: "clear", id: this.id });
  }

  get queuedMs(): number {
    if (!this.plan) return this.queued.ms;
    return Math.max(0, this.queued.ms - (performance.now() - this.queued.at));
  }

  close(): void {
    if (this.closed) return;
    this.closed = true;
    this.thread.post({ op: "close", id: this.id });
    this.thread.forget(this.id);
  }

  /** What the thread reported for this session (`audio`: the buffer its audio events point into). */
  heard(event: MediaEvent, audio?: Buffer): void {
    if (this.closed) return;
    switch (event[1]) {
      case "audio":
        return this.handlers.audio?.(audio!.subarray(event[2], event[2] + event[3]));
      case "digit":
        return this.handlers.digit?.(event[2]);
      case "played":
        return this.handlers.played?.(event[2], event[3]);
      case "silent": {
        const silent = this.silent;
        this.silent = null;
        return silent?.();
      }
    }
  }
}
