/**
 * Cartesia's WebSocket speech (`wss://api.cartesia.ai/tts/websocket`, `Authorization: Bearer`,
 * `Cartesia-Version`). One socket per call, opened with the first sentence and kept: each sentence
 * is a generation of its own `context_id` (`{ model_id, transcript, voice: { mode: "id", id },
 * output_format, context_id, continue: false }`), answered by `chunk` messages (base64 audio in
 * `data`) and a `done`; a barge-in sends `{ context_id, cancel: true }`. The output format is the
 * call's own — raw `pcm_mulaw` at 8 kHz for phones, `pcm_s16le` at 24 kHz for the browser — so
 * the audio goes to the caller as it comes.
 */
import { randomUUID } from "node:crypto";
import WebSocket from "ws";
import type { CallAudioFormat } from "../audio.ts";
import { frameAligner, SpeechError } from "./speech-stream.ts";

export const CARTESIA_VERSION = "2025-04-16";
const DEFAULT_MODEL = "sonic-3";

export interface CartesiaOptions {
  baseUrl: string;
  apiKey: string;
  voice: string;
  model: string | null;
  format: CallAudioFormat;
}

interface Generation {
  onAudio(bytes: Uint8Array): void;
  whole(chunk: Uint8Array): Uint8Array;
  resolve(): void;
  reject(err: Error): void;
}

interface CartesiaMessage {
  type?: string;
  context_id?: string;
  data?: string;
  done?: boolean;
  status_code?: number;
  error?: string;
  title?: string;
  message?: string;
}

export function cartesiaUrl(baseUrl: string): string {
  const url = new URL(baseUrl);
  url.protocol = url.protocol === "http:" ? "ws:" : "wss:";
  url.pathname = `${url.pathname.replace(/\/+$/, "")}/tts/websocket`;
  return url.toString();
}

export class CartesiaVoice {
  private socket: Promise<WebSocket> | null = null;
  private readonly generations = new Map<string, Generation>();
  private closed = false;

  constructor(private readonly o: CartesiaOptions) {}

  /** The call's socket, opened on first use and again after it dropped. */
  private open(): Promise<WebSocket> {
    if (this.socket) return this.socket;
    const ws = new WebSocket(cartesiaUrl(this.o.baseUrl), {
      headers: { Authorization: `Bearer ${this.o.apiKey}`, "Cartesia-Version": CARTESIA_VERSION },
      handshakeTimeout: 15_000,
      perMessageDeflate: false,
    });
    const opening = new Promise<WebSocket>((resolve, reject) => {
      ws.once("open", () => resolve(ws));
      ws.once("unexpected-response", (_req, res) => {
        const chunks: Buffer[] = [];
        res.on("data", (c: Buffer) => chunks.push(c));
        res.once("end", () => {
          const body = Buffer.concat(chunks).toString("utf8").slice(0, 300);
          let detail = body;
          try {
            const parsed = JSON.parse(body) as CartesiaMessage;
            detail = parsed.message ?? parsed.error ?? body;
          } catch {
            // not JSON: the body as it came
          }
          ws.terminate();
          reject(new SpeechError(`Cartesia refused the connection: ${res.statusCode ?? 0}${detail ? ` ${detail}` : ""}`, res.statusCode ?? 0, detail));
        });
      });
      ws.once("error", (err) => reject(new SpeechError(`Cartesia: ${err.message}`)));
    });
    ws.on("message", (data, isBinary) => !isBinary && this.onMessage(data.toString()));
    ws.on("close", () => {
      this.socket = null;
      for (const g of this.generations.values()) g.reject(new SpeechError("Cartesia closed the connection"));
      this.generations.clear();
    });
    this.socket = opening;
    opening.catch(() => (this.socket = null));
    return opening;
  }

  private onMessage(text: string): void {
    let msg: CartesiaMessage;
    try {
      msg = JSON.parse(text) as CartesiaMessage;
    } catch {
      return;
    }
    const g = msg.context_id ? this.generations.get(msg.context_id) : undefined;
    if (!g) return;
    if (msg.type === "chunk" && msg.data) {
      const bytes = g.whole(Buffer.from(msg.data, "base64"));
      if (bytes.length > 0) g.onAudio(bytes);
    } else if (msg.type === "error") {
      this.generations.delete(msg.context_id!);
      const detail = msg.message ?? msg.error ?? msg.title ?? "error";
      g.reject(new SpeechError(`the voice answered ${msg.status_code ?? 400}: ${detail}`, msg.status_code ?? 400, detail));
    } else if (msg.done) {
      this.generations.delete(msg.context_id!);
      g.resolve();
    }
  }

  async speak(text: string, signal: AbortSignal, onAudio: (bytes: Uint8Array) => void): Promise<void> {
    if (this.closed) throw new SpeechError("the voice is closed");
    const ws = await this.open();
    signal.throwIfAborted();
    const contextId = randomUUID();
    const outputFormat = this.o.format === "audio/pcmu" ? { container: "raw", encoding: "pcm_mulaw", sample_rate: 8000 } : { container: "raw", encoding: "pcm_s16le", sample_rate: 24_000 };
    await new Promise<void>((resolve, reject) => {
      const stop = () => {
        // Cut short by a barge-in: the service stops this generation, the caller hears no more of it.
        if (!this.generations.delete(contextId)) return;
        if (ws.readyState === WebSocket.OPEN) ws.send(JSON.stringify({ context_id: contextId, cancel: true }));
        reject(signal.reason instanceof Error ? signal.reason : new Error("cancelled"));
      };
      const settle = (fn: () => void) => () => {
        signal.removeEventListener("abort", stop);
        fn();
      };
      this.generations.set(contextId, { onAudio, whole: frameAligner(this.o.format === "audio/pcm" ? 2 : 1), resolve: settle(resolve), reject: (err) => settle(() => reject(err))() });
      signal.addEventListener("abort", stop, { once: true });
      ws.send(JSON.stringify({ model_id: this.o.model || DEFAULT_MODEL, transcript: text, voice: { mode: "id", id: this.o.voice }, output_format: outputFormat, context_id: contextId, continue: false }));
    });
  }

  close(): void {
    this.closed = true;
    const socket = this.socket;
    this.socket = null;
    void socket?.then((ws) => ws.close(1000, "Call ended")).catch(() => {});
  }
}
