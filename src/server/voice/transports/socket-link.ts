/**
 * The socket handling every caller transport shares (browser test calls, Twilio media
 * streams): listeners attached once and released once, one keep-alive heartbeat, the time
 * the caller was last heard from, a send that refuses rather than queues under backpressure,
 * and a bounded close reason. The transports keep only their wire codec and their playback
 * bookkeeping.
 *
 * Sends are coalesced: what one tick sends to a peer is framed here (server frames, RFC 6455
 * §5.2: final, unmasked) into one buffer and written once at the end of the tick, so a Twilio
 * `media` and its `mark` (and whatever else this tick produced for the same caller) leave in one
 * write — socket writes were the largest share of a phone call's CPU, and one buffer spares the
 * stream machinery a vector write of each frame's header and payload. Nothing waits: the write
 * happens before the event loop moves on. Control frames (ping, close) stay `ws`'s own.
 *
 * Keep-alive: a ping every `heartbeatMs`; a pong missing by the next ping drops the socket.
 * The caller is "last heard" at the last message or pong: a caller that vanished without a
 * close frame left at that moment, not when the heartbeat noticed (up to two periods later),
 * so the call is not billed for the silence after it.
 */
import type { Socket } from "node:net";
import WebSocket from "ws";

export interface SocketLinkOptions {
  /** Ping period (spec §9: 30 s); 0 turns the heartbeat off. */
  heartbeatMs: number;
  /**
   * Binary sends (audio) are dropped while more than this many bytes wait unsent in the socket;
   * a peer with more than twice this waiting is not reading at all and is cut off.
   */
  maxBufferedBytes: number;
}

export interface SocketLinkHandlers {
  message(data: Buffer, isBinary: boolean): void;
  /** The socket is gone (close frame, reset, or the heartbeat gave up); once. `lastHeardAt` is Unix ms. */
  gone(info: { lastHeardAt: number; timedOut: boolean }): void;
}

const CLOSE_REASON_MAX_BYTES = 123;
const OPCODE_TEXT = 0x1;
const OPCODE_BINARY = 0x2;

function frameHeaderBytes(length: number): number {
  return length < 126 ? 2 : length < 65_536 ? 4 : 10;
}

/** A final, unmasked frame's header (a server's) for a payload of `length` bytes at `at`; returns where the payload goes. */
function writeFrameHeader(out: Buffer, at: number, opcode: number, length: number): number {
  out[at] = 0x80 | opcode;
  if (length < 126) {
    out[at + 1] = length;
    return at + 2;
  }
  if (length < 65_536) {
    out[at + 1] = 126;
    out.writeUInt16BE(length, at + 2);
    return at + 4;
  }
  out[at + 1] = 127;
  out.writeUInt32BE(Math.floor(length / 2 ** 32), at + 2);
  out.writeUInt32BE(length >>> 0, at + 6);
  return at + 10;
}

function toBuffer(data: WebSocket.RawData): Buffer {
  if (Buffer.isBuffer(data)) return data;
  if (Array.isArray(data)) return Buffer.concat(data);
  return Buffer.from(data);
}

/** A close reason fits in 123 bytes of UTF-8; cut on a character boundary. */
export function closeReason(reason: string): string {
  const bytes = Buffer.from(reason, "utf8");
  return bytes.length <= CLOSE_REASON_MAX_BYTES ? reason : bytes.subarray(0, CLOSE_REASON_MAX_BYTES).toString("utf8").replace(/\uFFFD+$/, "");
}

export class SocketLink {
  private handlers: SocketLinkHandlers | null = null;
  private heartbeat: NodeJS.Timeout | null = null;
  private awaitingPong = false;
  private pingSentAt = 0;
  private timedOut = false;
  private released = false;
  /** Unix ms of the last message or pong (or of the attach). */
  lastHeardAt = Date.now();

  constructor(
    readonly ws: WebSocket,
    private readonly options: SocketLinkOptions,
  ) {}

  attach(handlers: SocketLinkHandlers): void {
    this.handlers = handlers;
    this.lastHeardAt = Date.now();
    this.ws.on("message", this.onMessage);
    this.ws.on("close", this.onClose);
    this.ws.on("error", this.onError);
    this.ws.on("pong", this.onPong);
    if (this.options.heartbeatMs > 0) {
      this.heartbeat = setInterval(this.beat, this.options.heartbeatMs);
      this.heartbeat.unref();
    }
    // The caller may already be gone by the time the session attaches.
    if (this.ws.readyState === WebSocket.CLOSING || this.ws.readyState === WebSocket.CLOSED) this.onClose();
  }

  get isOpen(): boolean {
    return !this.released && this.ws.readyState === WebSocket.OPEN;
  }

  /** Whether the socket can take more now (open and not backed up). */
  get canSend(): boolean {
    return this.isOpen && this.ws.bufferedAmount <= this.options.maxBufferedBytes;
  }

  /**
   * Sends when open and not backed up (in this tick's one write); returns false when nothing
   * was sent. Over the cap audio (binary) is dropped, never queued. Text (control messages, whose loss would leave the peer
   * wrong) still goes up to twice the cap; beyond that the peer has stopped reading and the
   * socket is dropped (`gone` reports it) rather than grow this process's memory.
   */
  send(data: string | Buffer | Uint8Array, binary = false): boolean {
    if (!this.isOpen) return false;
    const waiting = this.ws.bufferedAmount + this.queuedBytes;
    if (waiting > this.options.maxBufferedBytes) {
      if (binary) return false;
      if (waiting > 2 * this.options.maxBufferedBytes) {
        this.ws.terminate();
        return false;
      }
    }
    const length = typeof data === "string" ? Buffer.byteLength(data) : data.length;
    if (this.queued.length === 0) process.nextTick(this.flush);
    this.queued.push(data, binary ? OPCODE_BINARY : OPCODE_TEXT, length);
    this.queuedBytes += frameHeaderBytes(length) + length;
    return true;
  }

  /** This tick's messages, each followed by its opcode and byte length, written by `flush` at the end of the tick. */
  private queued: (string | Buffer | Uint8Array | number)[] = [];
  private queuedBytes = 0;

  private readonly flush = (): void => {
    const queued = this.queued;
    const size = this.queuedBytes;
    this.queued = [];
    this.queuedBytes = 0;
    // `ws` keeps its TCP socket on `_socket` (not typed). A socket closing meanwhile takes nothing more.
    const socket = (this.ws as unknown as { _socket?: Socket | null })._socket;
    if (queued.length === 0 || !socket || socket.destroyed || this.ws.readyState !== WebSocket.OPEN) return;
    const out = Buffer.allocUnsafe(size);
    let at = 0;
    for (let i = 0; i < queued.length; i += 3) {
      const data = queued[i] as string | Buffer | Uint8Array;
      const length = queued[i + 2] as number;
      at = writeFrameHeader(out, at, queued[i + 1] as number, length);
      if (typeof data === "string") out.write(data, at, length, "utf8");
      else out.set(data, at);
      at += length;
    }
    socket.write(out);
  };

  private readonly onMessage = (data: WebSocket.RawData, isBinary: boolean): void => {
    if (this.released) return;
    this.lastHeardAt = Date.now();
    this.handlers?.message(toBuffer(data), isBinary);
  };

  private readonly onClose = (): void => {
    if (this.released) return;
    const handlers = this.handlers;
    this.release();
    handlers?.gone({ lastHeardAt: this.lastHeardAt, timedOut: this.timedOut });
  };

  // Socket errors are followed by a close event; that is where the session hears of it.
  private readonly onError = (): void => {};

  private readonly onPong = (): void => {
    this.awaitingPong = false;
    this.lastHeardAt = Date.now();
  };

  private readonly beat = (): void => {
    if (this.ws.readyState !== WebSocket.OPEN) return;
    // Any message since the ping proves the peer alive as well as a pong does (Twilio streams
    // a frame every 20 ms; a pong stuck behind them must not end the call).
    if (this.awaitingPong && this.lastHeardAt < this.pingSentAt) {
      this.timedOut = true;
      this.ws.terminate();
      return;
    }
    this.awaitingPong = true;
    this.pingSentAt = Date.now();
    this.ws.ping();
  };

  private release(): void {
    this.released = true;
    if (this.heartbeat) clearInterval(this.heartbeat);
    this.heartbeat = null;
    this.ws.off("message", this.onMessage);
    this.ws.off("close", this.onClose);
    this.ws.off("pong", this.onPong);
    // onError stays attached: an 'error' emitted with no listener would crash the process.
    this.handlers = null;
  }

  /** Closes without reporting `gone` (the session asked). Idempotent. */
  close(code = 1000, reason = ""): void {
    if (this.released) return;
    // What this tick sent goes before the close frame (nothing may follow it).
    this.flush();
    this.release();
    if (this.ws.readyState === WebSocket.OPEN || this.ws.readyState === WebSocket.CONNECTING) {
      this.ws.close(code, closeReason(reason));
    }
  }
}
