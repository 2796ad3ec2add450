/**
 * Deepgram live transcription (`wss://api.deepgram.com/v1/listen`), the pipeline's ears: the
 * caller's audio goes up as binary frames in the call's own encoding (µ-law 8 kHz for phones,
 * 16-bit PCM 24 kHz for the browser), `Results` come back with interim and final transcripts,
 * `speech_final` when endpointing hears a pause and `UtteranceEnd` after a longer gap.
 * Auth is `Authorization: Token <key>` on the upgrade. A `KeepAlive` every few seconds keeps a
 * silent line open (Deepgram closes after 10 s without audio); `CloseStream` ends it cleanly:
 * Deepgram answers what is left, then a `Metadata` whose `duration` is the audio it received (what
 * it bills), then closes the socket itself.
 */
import WebSocket from "ws";
import type { CallAudioFormat } from "../audio.ts";

export interface TranscriberHandlers {
  open(): void;
  /** Words heard (interim or final); `start` is seconds since the stream began. */
  words(transcript: string, final: boolean, start: number): void;
  /** Endpointing or the utterance-end gap: the caller has finished a turn. */
  turnEnd(): void;
  error(message: string, beforeOpen: boolean): void;
  close(code: number, reason: string): void;
}

export interface DeepgramOptions {
  baseUrl: string;
  apiKey: string;
  format: CallAudioFormat;
  model?: string | null;
  language?: string | null;
  /** Silence that ends a turn (ms). */
  endpointingMs?: number;
  keepAliveMs?: number;
  /** How long, after `CloseStream`, Deepgram is given to report and close before we close. */
  closeWaitMs?: number;
}

const DEFAULT_MODEL = "nova-3";

export function deepgramUrl(o: Pick<DeepgramOptions, "baseUrl" | "format" | "model" | "language" | "endpointingMs">): string {
  const url = new URL(o.baseUrl);
  url.protocol = url.protocol === "http:" ? "ws:" : "wss:";
  url.pathname = `${url.pathname.replace(/\/+$/, "")}/v1/listen`;
  const q = url.searchParams;
  q.set("model", o.model || DEFAULT_MODEL);
  if (o.format === "audio/pcmu") {
    q.set("encoding", "mulaw");
    q.set("sample_rate", "8000");
  } else {
    q.set("encoding", "linear16");
    q.set("sample_rate", "24000");
  }
  q.set("channels", "1");
  q.set("interim_results", "true");
  q.set("endpointing", String(o.endpointingMs ?? 300));
  // utterance_end_ms needs interim results; it catches turns endpointing missed in noise.
  q.set("utterance_end_ms", "1000");
  q.set("vad_events", "true");
  q.set("smart_format", "true");
  if (o.language) q.set("language", o.language);
  return url.toString();
}

/** `Metadata`, sent once the stream is closed: `duration` is the seconds of audio Deepgram received. */
interface MetadataMessage {
  type: "Metadata";
  duration?: number;
}

interface ResultsMessage {
  type: "Results";
  start?: number;
  is_final?: boolean;
  speech_final?: boolean;
  channel?: { alternatives?: Array<{ transcript?: string }> };
}

export class DeepgramTranscriber {
  private ws: WebSocket | null = null;
  private opened = false;
  private closed = false;
  private keepAlive: NodeJS.Timeout | null = null;
  private reported: number | null = null;
  private closeWait: NodeJS.Timeout | null = null;
  private closedOnce!: () => void;
  /** Settles once the socket has closed (after Deepgram's last word), or was never opened. */
  private readonly finished = new Promise<void>((resolve) => (this.closedOnce = resolve));

  constructor(private readonly o: DeepgramOptions) {}

  get isOpen(): boolean {
    return this.ws?.readyState === WebSocket.OPEN;
  }

  connect(h: TranscriberHandlers): void {
    const ws = new WebSocket(deepgramUrl(this.o), { headers: { Authorization: `Token ${this.o.apiKey}` }, handshakeTimeout: 15_000, perMessageDeflate: false });
    this.ws = ws;
    ws.on("open", () => {
      this.opened = true;
      this.keepAlive = setInterval(() => this.isOpen && ws.send(JSON.stringify({ type: "KeepAlive" })), this.o.keepAliveMs ?? 5000);
      this.keepAlive.unref();
      h.open();
    });
    ws.on("message", (data, isBinary) => {
      if (isBinary) return;
      let msg: { type?: string } & Partial<ResultsMessage> & Partial<MetadataMessage>;
      try {
        msg = JSON.parse(data.toString()) as typeof msg;
      } catch {
        return;
      }
      if (msg.type === "Results") {
        const text = msg.channel?.alternatives?.[0]?.transcript?.trim() ?? "";
        if (text) h.words(text, msg.is_final === true, msg.start ?? 0);
        if (msg.speech_final) h.turnEnd();
      } else if (msg.type === "UtteranceEnd") {
        h.turnEnd();
      } else if (msg.type === "Metadata" && typeof msg.duration === "number" && Number.isFinite(msg.duration)) {
        this.reported = msg.duration;
      }
    });
    ws.on("unexpected-response", (_req, res) => {
      const chunks: Buffer[] = [];
      res.on("data", (c: Buffer) => chunks.push(c));
      res.once("end", () => {
        const body = Buffer.concat(chunks).toString("utf8").slice(0, 500);
        h.error(`Deepgram refused the connection: ${res.statusCode ?? 0}${body ? ` ${body}` : ""}`, true);
        ws.terminate();
        this.notifyClose(h, 1006, `Deepgram refused the connection (${res.statusCode ?? 0})`);
      });
    });
    ws.on("error", (err) => {
      if (!this.closed) h.error(`Deepgram: ${err.message}`, !this.opened);
    });
    ws.on("close", (code, reason) => this.notifyClose(h, code, reason.toString()));
  }

  private notifyClose(h: TranscriberHandlers, code: number, reason: string): void {
    if (this.keepAlive) clearInterval(this.keepAlive);
    if (this.closeWait) clearTimeout(this.closeWait);
    this.keepAlive = null;
    this.closeWait = null;
    this.closedOnce();
    if (this.closed) return;
    this.closed = true;
    h.close(code, reason);
  }

  send(audio: Uint8Array): boolean {
    if (!this.isOpen) return false;
    this.ws!.send(audio, { binary: true });
    return true;
  }

  /** Seconds of audio Deepgram says it received (its closing `Metadata`); null until it has said. */
  reportedSeconds(): number | null {
    return this.reported;
  }

  /** Settles once Deepgram has closed the stream after `close()` (its `Metadata` in), or gave up waiting. */
  drained(): Promise<void> {
    return this.ws ? this.finished : Promise.resolve();
  }

  /** `CloseStream`, then Deepgram closes the socket once it has reported; we close it if it does not in time. */
  close(): void {
    const ws = this.ws;
    if (!ws) return;
    if (ws.readyState === WebSocket.OPEN) {
      if (this.closeWait) return;
      ws.send(JSON.stringify({ type: "CloseStream" }));
      this.closeWait = setTimeout(() => ws.close(1000, "Call ended"), this.o.closeWaitMs ?? 2000);
      this.closeWait.unref();
    } else if (ws.readyState === WebSocket.CONNECTING) ws.terminate();
  }
}
