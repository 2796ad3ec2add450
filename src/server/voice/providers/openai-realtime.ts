/**
 * The model's side of a call: OpenAI Realtime GA over a WebSocket.
 *
 * URL: OPENAI_BASE_URL with http→ws / https→wss and `/realtime?model=…` appended; auth is the
 * `Authorization: Bearer` header on the upgrade (no OpenAI-Beta header: that selects the
 * refused beta shape). Server events are parsed at the edge (realtime-protocol.ts) and handed
 * to the session typed. One provider instance serves one call; its timers and listeners are
 * released by `close()`.
 */
import type { ServiceUsage, TurnLatency } from "../../../shared/calls.ts";
import type { ProviderCost } from "../../../shared/call-records.ts";
import WebSocket from "ws";
import type { IncomingMessage } from "node:http";
import { BASE64_TEXT, wireBase64, type WireAudio } from "../audio.ts";
import type { FrameMetrics } from "../seams.ts";
import {
  parseServerEvent,
  type ConversationItem,
  type RealtimeServerEvent,
  type RealtimeSessionConfig,
  type RealtimeSessionUpdate,
  type ResponseOptions,
} from "./realtime-protocol.ts";

export interface RealtimeProviderHandlers {
  /** The socket is open; the session should send `session.update`. */
  open(): void;
  event(event: RealtimeServerEvent): void;
  /** A transport failure (`beforeOpen`: the connection could not be established). */
  error(message: string, beforeOpen: boolean): void;
  /** The socket closed, for whatever reason, exactly once (also after `close()`). */
  close(code: number, reason: string): void;
}

/** The seam the CallSession talks to; tests may substitute it, the fake server replaces OpenAI. */
export interface RealtimeProvider {
  connect(handlers: RealtimeProviderHandlers): void;
  readonly isOpen: boolean;
  /** Each send returns false when the socket is not open (nothing was sent). */
  updateSession(session: RealtimeSessionConfig | RealtimeSessionUpdate): boolean;
  /** Caller audio in the session's input format; base64 text is sent as it is. */
  appendAudio(audio: WireAudio): boolean;
  createItem(item: ConversationItem): boolean;
  createResponse(response?: ResponseOptions): boolean;
  cancelResponse(): boolean;
  truncate(itemId: string, audioEndMs: number): boolean;
  /**
   * The type of a recent client event we sent, by its `event_id` (an `error` names the event
   * that caused it in `error.event_id`); undefined when unknown or long gone.
   */
  clientEventType(eventId: string): string | undefined;
  close(code?: number, reason?: string): void;
  /** False for an engine that hears silence in the caller's place while told not to answer (GPT-Live); else it hears the caller. */
  readonly hearsCallerWhileSilenced?: boolean;
  /** The caller got audio of the item `itemId` (engines that time their turns note the first). */
  audioSent?(itemId: string): void;
  /** Each caller turn's latencies so far (engines that time their turns). */
  turns?(): TurnLatency[];
  /** What the call used of each service so far (engines of several services). */
  serviceUsage?(): ServiceUsage | null;
  /** The call's cost per service, for engines that price their own usage (a pipeline); else the session's meter prices it. */
  providerCost?(): ProviderCost | null;
  /** After close(): settles once the engine's last usage figures are in (a transcriber's closing report); bounded. */
  settled?(): Promise<void>;
}

export interface ProviderLogger {
  debug?(obj: object, msg?: string): void;
  warn?(obj: object, msg?: string): void;
}

export interface OpenAIRealtimeOptions {
  /** OPENAI_BASE_URL, e.g. https://api.openai.com/v1 */
  baseUrl: string;
  apiKey: string;
  model: string;
  /** WebSocket ping period; a missing pong by the next ping ends the connection. */
  pingIntervalMs?: number;
  logger?: ProviderLogger;
  /** Off by default: the bench passes a sink to time each audio event through the server. */
  metrics?: Pick<FrameMetrics, "downlink">;
}

export function realtimeUrl(baseUrl: string, model: string): string {
  const url = new URL(baseUrl);
  if (url.protocol === "https:") url.protocol = "wss:";
  else if (url.protocol === "http:") url.protocol = "ws:";
  url.pathname = `${url.pathname.replace(/\/+$/, "")}/realtime`;
  url.searchParams.set("model", model);
  return url.toString();
}

const MAX_ERROR_BODY = 4096;
/** Control events remembered for error attribution (audio appends carry no event_id: they never fail alone). */
const RECENT_EVENTS = 64;
/**
 * Caller audio waiting in our socket's send buffer beyond this is dropped instead of queued
 * (about 2.5 s of 24 kHz PCM as base64 JSON): a stalled provider link must not grow memory
 * without bound, and audio that late is of no use to a live conversation anyway.
 */
export const MAX_BUFFERED_AUDIO_BYTES = 192 * 1024;

export class OpenAIRealtimeProvider implements RealtimeProvider {
  private ws: WebSocket | null = null;
  private handlers: RealtimeProviderHandlers | null = null;
  private opened = false;
  private closedNotified = false;
  private pingTimer: NodeJS.Timeout | null = null;
  private awaitingPong = false;
  /** Set once the refusal has been reported, so ws's own abort error is not reported again. */
  private handshakeRejected = false;
  private eventCounter = 0;
  private readonly recent = new Map<string, string>();
  /** Caller audio frames dropped because the provider socket was backed up. */
  droppedAudioFrames = 0;

  constructor(private readonly options: OpenAIRealtimeOptions) {}

  get isOpen(): boolean {
    return this.openSocket() !== null;
  }

  connect(handlers: RealtimeProviderHandlers): void {
    if (this.ws) throw new Error("already connected");
    this.handlers = handlers;
    const ws = new WebSocket(realtimeUrl(this.options.baseUrl, this.options.model), {
      headers: { Authorization: `Bearer ${this.options.apiKey}` },
      handshakeTimeout: 15_000,
      // Not offered (`ws` offers it by default): audio messages hardly compress, and zlib per
      // message cost two to three times the CPU and queued messages (docs/decisions/038-provider-socket-options.md).
      perMessageDeflate: false,
      // Every event is JSON text decoded with replacement characters; ws's UTF-8 check of each is skipped (ADR 038).
      skipUTF8Validation: true,
    });
    this.ws = ws;
    ws.on("open", () => {
      this.opened = true;
      this.startPing();
      handlers.open();
    });
    const metrics = this.options.metrics;
    ws.on("message", (data, isBinary) => {
      if (isBinary) return;
      const startedAt = metrics ? performance.now() : 0;
      const parsed = parseServerEvent(data.toString());
      if (parsed.kind === "event") handlers.event(parsed.event);
      else if (parsed.kind === "invalid") this.options.logger?.warn?.({ reason: parsed.reason }, "unparseable realtime event");
      if (metrics && parsed.kind === "event" && parsed.event.type === "response.output_audio.delta") metrics.downlink(performance.now() - startedAt, parsed.event.delta);
    });
    ws.on("pong", () => {
      this.awaitingPong = false;
    });
    ws.on("unexpected-response", (_req, res) => this.rejectHandshake(res));
    ws.on("error", (err) => {
      if (!this.handshakeRejected && !this.closedNotified) handlers.error(err.message, !this.opened);
    });
    ws.on("close", (code, reason) => this.notifyClose(code, reason.toString()));
  }

  /** Upgrade refused (401, 404, ...): report the status and the provider's message, then close. */
  private rejectHandshake(res: IncomingMessage): void {
    this.handshakeRejected = true;
    const chunks: Buffer[] = [];
    let size = 0;
    res.on("data", (chunk: Buffer) => {
      if (size < MAX_ERROR_BODY) chunks.push(chunk);
      size += chunk.length;
    });
    const finish = () => {
      const body = Buffer.concat(chunks).toString("utf8").slice(0, MAX_ERROR_BODY);
      let detail = "";
      try {
        const json = JSON.parse(body) as { error?: { message?: unknown } };
        if (typeof json.error?.message === "string") detail = `: ${json.error.message}`;
      } catch {
        // not JSON: the status code says enough
      }
      const message = `Unexpected server response: ${res.statusCode ?? 0}${detail}`;
      if (!this.closedNotified) this.handlers?.error(message, true);
      this.ws?.terminate();
      this.notifyClose(1006, message);
    };
    res.once("end", finish);
    res.once("error", finish);
  }

  private startPing(): void {
    const every = this.options.pingIntervalMs ?? 30_000;
    if (every <= 0) return;
    this.pingTimer = setInterval(() => {
      const ws = this.openSocket();
      if (!ws) return;
      if (this.awaitingPong) {
        ws.terminate();
        return;
      }
      this.awaitingPong = true;
      ws.ping();
    }, every);
    this.pingTimer.unref();
  }

  private notifyClose(code: number, reason: string): void {
    if (this.pingTimer) clearInterval(this.pingTimer);
    this.pingTimer = null;
    if (this.closedNotified) return;
    this.closedNotified = true;
    this.handlers?.close(code, reason);
  }

  /** The socket, when it is open to send on. */
  private openSocket(): WebSocket | null {
    return this.ws?.readyState === WebSocket.OPEN ? this.ws : null;
  }

  private send(event: Record<string, unknown> & { type: string }): boolean {
    const ws = this.openSocket();
    if (!ws) return false;
    this.eventCounter += 1;
    const eventId = `evt_sb_${this.eventCounter}`;
    this.recent.set(eventId, event.type);
    if (this.recent.size > RECENT_EVENTS) this.recent.delete(this.recent.keys().next().value!);
    ws.send(JSON.stringify({ event_id: eventId, ...event }));
    return true;
  }

  clientEventType(eventId: string): string | undefined {
    return this.recent.get(eventId);
  }

  /** Bytes queued in our socket, not yet handed to the network. */
  get bufferedAmount(): number {
    return this.ws?.bufferedAmount ?? 0;
  }

  updateSession(session: RealtimeSessionConfig | RealtimeSessionUpdate): boolean {
    return this.send({ type: "session.update", session });
  }

  appendAudio(audio: WireAudio): boolean {
    if (audio.length === 0) return true;
    if (this.bufferedAmount > MAX_BUFFERED_AUDIO_BYTES) {
      this.droppedAudioFrames += 1;
      if (this.droppedAudioFrames === 1) this.options.logger?.warn?.({ bufferedAmount: this.bufferedAmount }, "provider socket backed up: dropping caller audio");
      return false;
    }
    const ws = this.openSocket();
    if (!ws) return false;
    // 50 a second per call: written by hand, without an event_id (an append is never named by
    // an error we could attribute). Base64 needs no escaping and is ASCII, so latin1 makes its
    // bytes at a third of the cost; anything else is quoted by JSON.stringify. Handed to ws as
    // bytes it may not change, ws masks it into one buffer with its header: one write (a string
    // is masked in place and written as two).
    const base64 = wireBase64(audio);
    // Text came from a carrier and must be checked; base64 we made from bytes needs no quoting.
    const bytes = typeof audio !== "string" || BASE64_TEXT.test(base64)
      ? Buffer.from(`{"type":"input_audio_buffer.append","audio":"${base64}"}`, "latin1")
      : Buffer.from(`{"type":"input_audio_buffer.append","audio":${JSON.stringify(base64)}}`);
    ws.send(bytes, { binary: false });
    return true;
  }

  createItem(item: ConversationItem): boolean {
    return this.send({ type: "conversation.item.create", item });
  }

  createResponse(response?: ResponseOptions): boolean {
    return this.send(response ? { type: "response.create", response } : { type: "response.create" });
  }

  cancelResponse(): boolean {
    return this.send({ type: "response.cancel" });
  }

  truncate(itemId: string, audioEndMs: number): boolean {
    return this.send({
      type: "conversation.item.truncate",
      item_id: itemId,
      content_index: 0,
      audio_end_ms: Math.max(0, Math.floor(audioEndMs)),
    });
  }

  close(code = 1000, reason = "Call ended"): void {
    const ws = this.ws;
    if (!ws) {
      this.notifyClose(code, reason);
      return;
    }
    if (ws.readyState === WebSocket.OPEN) ws.close(code, reason);
    else if (ws.readyState === WebSocket.CONNECTING) ws.terminate();
    // The close handshake can stall on a dead peer: don't wait for it, the call is over.
    this.notifyClose(code, reason);
  }
}
