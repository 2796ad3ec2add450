/**
 * The Test Call panel's side of a call, over the `ws` WebSocket of WS /api/calls/live.
 * Binary frames are PCM16 LE 24 kHz mono both ways; text frames are the JSON control
 * messages of src/shared/calls.ts. A heartbeat ping finds browsers that vanished without a
 * close frame (sleeping laptop, dropped Wi-Fi).
 */
import WebSocket from "ws";
import { clientMessageSchema, type ServerMessage } from "../../../shared/calls.ts";
import type { FrameMetrics, Transport, TransportHandlers } from "../seams.ts";

export interface BrowserTransportOptions {
  /** Ping period; a missing pong by the next ping drops the connection. Spec §9: 30 s. */
  heartbeatMs?: number;
  /**
   * Assistant audio is not queued beyond this much unsent data: a client that stops reading
   * must not grow the server's memory. 8 MB is about 3 minutes of 24 kHz PCM16.
   */
  maxBufferedBytes?: number;
  /** Off by default: the bench passes a sink to time each caller frame through the server. */
  metrics?: Pick<FrameMetrics, "uplink">;
}

const CLOSE_REASON_MAX_BYTES = 123;

function toBuffer(data: WebSocket.RawData): Buffer {
  if (Buffer.isBuffer(data)) return data;
  if (Array.isArray(data)) return Buffer.concat(data);
  return Buffer.from(data);
}

function closeReason(reason: string): string {
  const bytes = Buffer.from(reason, "utf8");
  return bytes.length <= CLOSE_REASON_MAX_BYTES ? reason : bytes.subarray(0, CLOSE_REASON_MAX_BYTES).toString("utf8").replace(/\uFFFD+$/, "");
}

export class BrowserTransport implements Transport {
  readonly audioFormat = "audio/pcm" as const;
  private handlers: TransportHandlers | null = null;
  private currentItemId: string | null = null;
  private heartbeat: NodeJS.Timeout | null = null;
  private awaitingPong = false;
  private closed = false;
  private readonly heartbeatMs: number;
  private readonly maxBufferedBytes: number;
  private readonly metrics: Pick<FrameMetrics, "uplink"> | undefined;

  constructor(
    private readonly ws: WebSocket,
    options: BrowserTransportOptions = {},
  ) {
    this.heartbeatMs = options.heartbeatMs ?? 30_000;
    this.maxBufferedBytes = options.maxBufferedBytes ?? 8 * 1024 * 1024;
    this.metrics = options.metrics;
  }

  start(handlers: TransportHandlers): void {
    this.handlers = handlers;
    this.ws.on("message", this.onMessage);
    this.ws.on("close", this.onClose);
    this.ws.on("error", this.onError);
    this.ws.on("pong", this.onPong);
    if (this.heartbeatMs > 0) {
      this.heartbeat = setInterval(this.beat, this.heartbeatMs);
      this.heartbeat.unref();
    }
    // The browser may already be gone by the time the session attaches.
    if (this.ws.readyState === WebSocket.CLOSING || this.ws.readyState === WebSocket.CLOSED) this.onClose();
  }

  private readonly onMessage = (data: WebSocket.RawData, isBinary: boolean): void => {
    const handlers = this.handlers;
    if (!handlers || this.closed) return;
    if (isBinary) {
      const startedAt = this.metrics ? performance.now() : 0;
      const audio = toBuffer(data);
      if (audio.length > 0) handlers.audio(audio);
      this.metrics?.uplink(performance.now() - startedAt);
      return;
    }
    let json: unknown;
    try {
      json = JSON.parse(toBuffer(data).toString("utf8"));
    } catch {
      this.send({ type: "error", message: "Invalid message" });
      return;
    }
    const parsed = clientMessageSchema.safeParse(json);
    if (!parsed.success) {
      this.send({ type: "error", message: "Invalid message" });
      return;
    }
    const message = parsed.data;
    switch (message.type) {
      case "user_text":
        handlers.userText(message.text);
        break;
      case "end":
        handlers.end(message.reason ?? "User ended call");
        break;
      case "playback":
        handlers.playback(message.itemId, message.playedMs);
        break;
    }
  };

  private readonly onClose = (): void => {
    if (this.closed) return;
    const handlers = this.handlers;
    this.release();
    handlers?.disconnect();
  };

  // Socket errors are followed by a close event; that is where the session hears of it.
  private readonly onError = (): void => {};

  private readonly onPong = (): void => {
    this.awaitingPong = false;
  };

  private readonly beat = (): void => {
    if (this.ws.readyState !== WebSocket.OPEN) return;
    if (this.awaitingPong) {
      this.ws.terminate();
      return;
    }
    this.awaitingPong = true;
    this.ws.ping();
  };

  private get isOpen(): boolean {
    return !this.closed && this.ws.readyState === WebSocket.OPEN;
  }

  sendAudio(itemId: string, audio: Uint8Array): void {
    if (!this.isOpen || audio.length === 0) return;
    if (this.ws.bufferedAmount > this.maxBufferedBytes) return;
    if (itemId !== this.currentItemId) {
      this.currentItemId = itemId;
      this.send({ type: "audio_start", itemId });
    }
    this.ws.send(audio, { binary: true });
  }

  clearPlayback(): void {
    // After a flush the next audio always re-announces its item.
    this.currentItemId = null;
    this.send({ type: "clear" });
  }

  send(message: ServerMessage): void {
    if (this.isOpen) this.ws.send(JSON.stringify(message));
  }

  private release(): void {
    this.closed = true;
    if (this.heartbeat) clearInterval(this.heartbeat);
    this.heartbeat = null;
    this.ws.off("message", this.onMessage);
    this.ws.off("close", this.onClose);
    this.ws.off("pong", this.onPong);
    // onError stays attached: an 'error' emitted with no listener would crash the process.
    this.handlers = null;
  }

  close(code = 1000, reason = ""): void {
    if (this.closed) return;
    this.release();
    if (this.ws.readyState === WebSocket.OPEN || this.ws.readyState === WebSocket.CONNECTING) {
      this.ws.close(code, closeReason(reason));
    }
  }
}
