/**
 * One call's RTP (RFC 3550): our own 20 ms clock for what we send, a small reordering buffer for
 * what comes in, keypad digits from telephone-events, and RTCP sender reports. Symmetric RTP
 * (RFC 4961): once the far end's packets arrive, we send to where they come from, which is what
 * gets audio through a NAT in front of a phone. When the plan carries SRTP keys (SDES over TLS),
 * every packet out is protected and every packet in must authenticate before it counts (srtp.ts).
 */
import { randomBytes, randomInt } from "node:crypto";
import { createSocket, type Socket } from "node:dgram";
import { performance } from "node:perf_hooks";
import { SILENCE_BYTE } from "./g711.ts";
import { rtpClock, type ClockedStream } from "./rtp-clock.ts";
import { decodeRtp, decodeTelephoneEvent, digitOf, encodeRtp, encodeSenderReport, encodeTelephoneEvent, eventOf, RTP_HEADER_BYTES, writeRtpHeader, type RtpPacket } from "./rtp-packet.ts";
import { PTIME_MS, type MediaPlan } from "./sdp.ts";
import { SRTP_MASTER_BYTES, SrtpContext } from "./srtp.ts";

export const FRAME_BYTES = 160; // 20 ms of 8 kHz G.711
/** Frames sent at once to catch up after the event loop stalled; older ones are skipped. */
const MAX_BURST = 3;
/** A key we send lasts 100 ms, and its end packet goes three times (RFC 4733 §2.5.1.4). */
const DIGIT_FRAMES = 5;
const DIGIT_END_REPEATS = 3;
const DIGIT_VOLUME = 10;

export interface RtpPortRange {
  min: number;
  max: number;
}

export interface RtpHandlers {
  /** A frame of the far end's audio, in order, in the agreed codec. */
  audio?(payload: Buffer, packet?: RtpPacket): void;
  /** A keypad digit (RFC 4733), once per key press. */
  digit?(digit: string): void;
  /** `bytes` of the audio queued with `tag` went out on the clock just now. */
  played?(tag: string, bytes: number): void;
}

export interface RtpSessionOptions {
  host: string;
  ports: RtpPortRange;
  /** Packets held waiting for a missing one before it is given up (each 20 ms). */
  jitterFrames?: number;
  rtcpIntervalMs?: number;
  /**
   * With no packet from the far end for this long while it should be sending (not on hold),
   * `onSilent` is told once: a phone that lost its network sends no BYE, and its call would
   * otherwise stay up until a session timer, if there is one. 0 or absent: never.
   */
  inactivityMs?: number;
}

/** What a call does with its RTP, wherever the session runs (here, or on the media thread: rtp-thread.ts). */
export type RtpStream = Pick<RtpSession, "port" | "srtpKey" | "codec" | "queuedMs" | "on" | "onSilent" | "configure" | "play" | "sendDigit" | "clear" | "close">;

async function bind(socket: Socket, port: number, host: string): Promise<boolean> {
  return new Promise((resolve) => {
    const failed = () => resolve(false);
    socket.once("error", failed);
    socket.bind(port, host, () => (socket.off("error", failed), resolve(true)));
  });
}

// A socket whose bind failed is already closed by Node, and closing it again throws.
function closeQuietly(socket: Socket) {
  try {
    socket.close();
  } catch {
    // already closed
  }
}

export class RtpSession implements ClockedStream {
  readonly ssrc = randomBytes(4).readUInt32BE(0);
  /** Our SRTP master key and salt, given in our SDP when the call uses SRTP. */
  readonly srtpKey: Buffer = randomBytes(SRTP_MASTER_BYTES);
  /** Our key's context (what we send) and the far end's (what we receive), while SRTP is agreed. */
  private srtp: { send: SrtpContext; receive: SrtpContext; remoteKey: Buffer } | null = null;
  private readonly cname = `${randomBytes(6).toString("hex")}@switchboard`;
  private plan: MediaPlan | null = null;
  private remote: { address: string; port: number } | null = null;
  private rtcpRemote: { address: string; port: number } | null = null;
  private latched = false;
  private handlers: RtpHandlers = {};
  private queue: { data: Buffer; tag?: string }[] = [];
  private queuedBytes = 0;
  private sequence = randomInt(0, 0x10000);
  private timestamp = randomInt(0, 2 ** 32);
  /** The clock's tick our next frame belongs to; null until the media is agreed. */
  private nextTick: number | null = null;
  private rtcpTimer: NodeJS.Timeout | undefined;
  private marker = true;
  private packets = 0;
  private octets = 0;
  private readonly jitter: JitterBuffer;
  private lastEventTimestamp: number | null = null;
  private readonly digitsOut: number[] = [];
  /** The key being sent: its event, the timestamp all its packets carry, and the frames it has taken. */
  private digitOut: { event: number; timestamp: number; frames: number } | null = null;
  private closed = false;
  /** When the far end's last packet came (or the media was agreed), for `inactivityMs`. */
  private heardAt = 0;
  private silent: (() => void) | null = null;

  private constructor(
    private readonly rtp: Socket,
    private readonly rtcp: Socket,
    readonly port: number,
    private readonly options: RtpSessionOptions,
  ) {
    this.jitter = new JitterBuffer(options.jitterFrames ?? 3, (p) => this.handlers.audio?.(p.payload, p));
    rtp.on("message", (data, rinfo) => this.receive(data, rinfo.address, rinfo.port));
    rtcp.on("message", (data, rinfo) => {
      // Over SRTP only a report that authenticates may move where ours go.
      if (this.srtp && !this.srtp.receive.unprotectRtcp(data)) return;
      this.rtcpRemote = { address: rinfo.address, port: rinfo.port };
    });
    rtp.on("error", () => {});
    rtcp.on("error", () => {});
  }

  /** Binds an even RTP port and the RTCP port above it, somewhere in `ports` (§11). */
  static async open(options: RtpSessionOptions): Promise<RtpSession> {
    const type = options.host.includes(":") ? "udp6" : "udp4";
    const first = options.ports.min + (options.ports.min % 2);
    const pairs = Math.floor((options.ports.max - first + 1) / 2);
    if (pairs < 1) throw new Error("The RTP port range holds no even port with one above it");
    const start = randomInt(0, pairs);
    for (let i = 0; i < Math.min(pairs, 64); i += 1) {
      const port = first + ((start + i) % pairs) * 2;
      const rtp = createSocket(type);
      if (await bind(rtp, port, options.host)) {
        const rtcp = createSocket(type);
        if (await bind(rtcp, port + 1, options.host)) return new RtpSession(rtp, rtcp, port, options);
        closeQuietly(rtcp);
      }
      closeQuietly(rtp);
    }
    throw new Error("No free RTP port in the configured range");
  }

  on(handlers: RtpHandlers): void {
    this.handlers = handlers;
  }

  /** From now on, `handler` runs once when the far end has sent nothing for `inactivityMs` (the call's to end). */
  onSilent(handler: () => void): void {
    this.silent = handler;
    this.heardAt = performance.now();
  }

  /** The agreed media (again after a re-INVITE): where to send, which codec, which way. */
  configure(plan: MediaPlan): void {
    const moved = !this.plan || this.plan.remoteAddress !== plan.remoteAddress || this.plan.remotePort !== plan.remotePort;
    this.plan = plan;
    if (!plan.srtp) this.srtp = null;
    else if (!this.srtp?.remoteKey.equals(plan.srtp.remoteKey)) {
      // Our key stays the call's, so what we send keeps its rollover counter across a re-INVITE.
      this.srtp = { send: this.srtp?.send ?? new SrtpContext(this.srtpKey), receive: new SrtpContext(plan.srtp.remoteKey), remoteKey: plan.srtp.remoteKey };
    }
    // Agreed media (again): the far end's silence counts from now, whatever came before.
    this.heardAt = performance.now();
    if (moved) {
      this.remote = { address: plan.remoteAddress, port: plan.remotePort };
      this.rtcpRemote = { address: plan.remoteAddress, port: plan.remotePort + 1 };
      this.latched = false;
    }
    if (this.nextTick === null && !this.closed) this.startClock();
  }

  get codec() {
    return this.plan?.codec ?? "PCMU";
  }

  /**
   * Audio to play, in the agreed codec, any length: it goes out in 20 ms frames on the clock.
   * A `tag` has its progress reported to the `played` handler as frames go.
   */
  play(payload: Buffer, tag?: string): void {
    if (payload.length === 0) return;
    this.queue.push({ data: payload, tag });
    this.queuedBytes += payload.length;
  }

  /**
   * Sends a keypad key as RFC 4733 events, in place of the audio frames it takes; false when the
   * far end agreed no telephone-event (the key cannot be sent).
   */
  sendDigit(digit: string): boolean {
    const event = eventOf(digit);
    if (event === null || this.plan?.telephoneEvent === undefined) return false;
    this.digitsOut.push(event);
    return true;
  }

  /** Drops everything queued and not yet sent (barge-in). */
  clear(): void {
    this.queue = [];
    this.queuedBytes = 0;
  }

  /** How much queued audio is still to be sent, in ms. */
  get queuedMs(): number {
    return (this.queuedBytes / FRAME_BYTES) * PTIME_MS;
  }

  private startClock() {
    this.nextTick = rtpClock.join(this);
    const interval = this.options.rtcpIntervalMs ?? 5000;
    this.rtcpTimer = setInterval(() => this.sendReport(), interval);
  }

  /** A frame for each of the clock's ticks up to `last`; after a stall, only the last few (the rest's time has passed). */
  tick(last: number, now: number): void {
    if (this.closed || this.nextTick === null || last < this.nextTick) return;
    const due = last - this.nextTick + 1;
    if (due > MAX_BURST) {
      this.timestamp = (this.timestamp + (due - MAX_BURST) * FRAME_BYTES) >>> 0;
      this.marker = true;
    }
    for (let i = Math.min(due, MAX_BURST); i > 0; i -= 1) this.sendFrame();
    this.nextTick = last + 1;
    this.checkSilence(now);
  }

  private checkSilence(now: number) {
    const limit = this.options.inactivityMs;
    // On hold (we only send, or neither side does) the far end owes us no packets.
    const receiving = this.plan?.direction === "sendrecv" || this.plan?.direction === "recvonly";
    if (!limit || !receiving || !this.silent || now - this.heardAt < limit) return;
    const silent = this.silent;
    this.silent = null;
    silent();
  }

  /**
   * Fills `frame` (20 ms) from the queue, silence where the queue runs out. The caller hands in
   * the payload part of the packet it sends, so a frame costs one buffer from Node's pool.
   */
  private takeFrame(frame: Buffer): void {
    let filled = 0;
    while (filled < FRAME_BYTES && this.queue.length > 0) {
      const head = this.queue[0]!;
      const n = Math.min(FRAME_BYTES - filled, head.data.length);
      head.data.copy(frame, filled, 0, n);
      filled += n;
      if (n === head.data.length) this.queue.shift();
      else this.queue[0] = { data: head.data.subarray(n), tag: head.tag };
      if (head.tag !== undefined) this.handlers.played?.(head.tag, n);
    }
    if (filled < FRAME_BYTES) frame.fill(SILENCE_BYTE[this.codec], filled);
    this.queuedBytes -= filled;
  }

  private sendFrame() {
    const packet = Buffer.allocUnsafe(RTP_HEADER_BYTES + FRAME_BYTES);
    this.takeFrame(packet.subarray(RTP_HEADER_BYTES));
    const sending = this.plan && (this.plan.direction === "sendrecv" || this.plan.direction === "sendonly");
    if (!sending || !this.remote) {
      this.marker = true;
    } else if (!this.nextDigitPacket()) {
      // Silence is sent too: it keeps the far end's jitter buffer and any NAT binding alive.
      // (A key being sent takes the frame's place instead.)
      writeRtpHeader(packet, { payloadType: this.plan!.payloadType, marker: this.marker, sequence: this.sequence, timestamp: this.timestamp, ssrc: this.ssrc });
      this.rtp.send(this.protect(packet), this.remote.port, this.remote.address);
      this.sequence = (this.sequence + 1) & 0xffff;
      this.packets += 1;
      this.octets += FRAME_BYTES;
      this.marker = false;
    }
    this.timestamp = (this.timestamp + FRAME_BYTES) >>> 0;
  }

  /** Sends the next packet of the key being sent (starting one that waits), or says there is none. */
  private nextDigitPacket(): boolean {
    const pt = this.plan?.telephoneEvent;
    if (pt === undefined || (!this.digitOut && this.digitsOut.length === 0)) return false;
    const current = (this.digitOut ??= { event: this.digitsOut.shift()!, timestamp: this.timestamp, frames: 0 });
    current.frames += 1;
    const end = current.frames > DIGIT_FRAMES;
    const duration = Math.min(current.frames, DIGIT_FRAMES) * FRAME_BYTES;
    const payload = encodeTelephoneEvent({ event: current.event, end, volume: DIGIT_VOLUME, duration });
    const packet = encodeRtp({ payloadType: pt, marker: current.frames === 1, sequence: this.sequence, timestamp: current.timestamp, ssrc: this.ssrc, payload });
    this.rtp.send(this.protect(packet), this.remote!.port, this.remote!.address);
    this.sequence = (this.sequence + 1) & 0xffff;
    this.packets += 1;
    this.octets += payload.length;
    if (current.frames >= DIGIT_FRAMES + DIGIT_END_REPEATS) {
      this.digitOut = null;
      this.marker = true; // the audio after a key starts a new talkspurt
    }
    return true;
  }

  private sendReport() {
    if (!this.rtcpRemote || this.packets === 0) return;
    const report = encodeSenderReport({ ssrc: this.ssrc, wallMs: Date.now(), rtpTimestamp: this.timestamp, packets: this.packets, octets: this.octets, cname: this.cname });
    this.rtcp.send(this.srtp ? this.srtp.send.protectRtcp(report) : report, this.rtcpRemote.port, this.rtcpRemote.address);
  }

  private protect(packet: Buffer): Buffer {
    return this.srtp ? this.srtp.send.protectRtp(packet) : packet;
  }

  private receive(data: Buffer, address: string, port: number) {
    // SRTP: a packet that does not authenticate (forged, replayed, or plain RTP) is not there at all.
    const clear = this.srtp && data.length >= 12 ? this.srtp.receive.unprotectRtp(data) : data;
    if (!clear) return;
    const packet = decodeRtp(clear);
    if (!packet || !this.plan) return;
    const known = packet.payloadType === this.plan.payloadType || packet.payloadType === this.plan.telephoneEvent;
    if (!known) return;
    if (!this.latched) {
      this.latched = true;
      this.remote = { address, port };
    } else if (this.remote && (this.remote.address !== address || this.remote.port !== port)) {
      return; // Not the stream we latched onto: ignored rather than let anyone redirect our audio.
    }
    this.heardAt = performance.now();
    if (packet.payloadType === this.plan.telephoneEvent) return this.event(packet);
    this.jitter.push(packet);
  }

  /** A key press is one event timestamp, however many times its packets repeat (RFC 4733 §2.5.1). */
  private event(packet: RtpPacket) {
    const event = decodeTelephoneEvent(packet.payload);
    if (!event || packet.timestamp === this.lastEventTimestamp) return;
    this.lastEventTimestamp = packet.timestamp;
    const digit = digitOf(event.event);
    if (digit) this.handlers.digit?.(digit);
  }

  close(): void {
    if (this.closed) return;
    this.closed = true;
    rtpClock.leave(this);
    clearInterval(this.rtcpTimer);
    this.rtp.close();
    this.rtcp.close();
  }
}

/**
 * Puts packets back in sequence order. A missing packet is waited for while fewer than `depth`
 * later ones are held, then given up; late and duplicate packets are dropped.
 */
export class JitterBuffer {
  private next: number | null = null;
  private readonly held = new Map<number, RtpPacket>();

  constructor(
    private readonly depth: number,
    private readonly emit: (packet: RtpPacket) => void,
  ) {}

  push(packet: RtpPacket): void {
    if (this.next === null) this.next = packet.sequence;
    const ahead = (packet.sequence - this.next) & 0xffff;
    if (ahead >= 0x8000) return; // Behind what was already played out: too late.
    if (ahead > 500) {
      // A jump this large is a new stream (a re-INVITE, a restarted phone): start again from it.
      this.flush();
      this.next = packet.sequence;
    }
    this.held.set(packet.sequence, packet);
    this.drain();
    while (this.held.size > this.depth) {
      let nearest = Infinity;
      for (const seq of this.held.keys()) nearest = Math.min(nearest, (seq - this.next) & 0xffff);
      this.next = (this.next + nearest) & 0xffff;
      this.drain();
    }
  }

  private drain() {
    while (this.next !== null && this.held.has(this.next)) {
      const packet = this.held.get(this.next)!;
      this.held.delete(this.next);
      this.next = (this.next + 1) & 0xffff;
      this.emit(packet);
    }
  }

  private flush() {
    const order = [...this.held.values()].sort((a, b) => ((a.sequence - this.next!) & 0xffff) - ((b.sequence - this.next!) & 0xffff));
    this.held.clear();
    for (const p of order) this.emit(p);
  }
}
