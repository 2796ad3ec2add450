/**
 * OpenAI streaming transcription: a Realtime transcription session
 * (`wss://api.openai.com/v1/realtime?intent=transcription`, `Authorization: Bearer <key>`, no
 * model in the URL). Once open, one `session.update` with `session.type: "transcription"` says
 * the call's format (`audio/pcmu`, or `audio/pcm` at 24 kHz), the model and language, and server
 * VAD; the caller's audio goes up as `input_audio_buffer.append`. Down come
 * `conversation.item.input_audio_transcription.delta` (words as they are heard) and `.completed`
 * (the turn's final text, after the VAD committed it), which end the turn.
 */
import WebSocket from "ws";
import type { CallAudioFormat } from "../audio.ts";
import type { TranscriberHandlers } from "./deepgram.ts";

export interface OpenAITranscriptionOptions {
  baseUrl: string;
  apiKey: string;
  format: CallAudioFormat;
  model?: string | null;
  language?: string | null;
  /** Silence that ends a turn (ms). */
  silenceMs?: number;
}

const DEFAULT_MODEL = "gpt-4o-mini-transcribe";

export function openAITranscriptionUrl(baseUrl: string): string {
  const url = new URL(baseUrl);
  url.protocol = url.protocol === "http:" ? "ws:" : "wss:";
  url.pathname = `${url.pathname.replace(/\/+$/, "")}/realtime`;
  url.searchParams.set("intent", "transcription");
  return url.toString();
}

interface ServerEvent {
  type?: string;
  audio_start_ms?: number;
  delta?: string;
  transcript?: string;
  error?: { message?: string };
}

export class OpenAITranscriber {
  private ws: WebSocket | null = null;
  private opened = false;
  private closed = false;
  /** When the caller's current turn began, by the service's VAD (seconds). */
  private turnStart = 0;

  constructor(private readonly o: OpenAITranscriptionOptions) {}

  get isOpen(): boolean {
    return this.ws?.readyState === WebSocket.OPEN;
  }

  connect(h: TranscriberHandlers): void {
    const ws = new WebSocket(openAITranscriptionUrl(this.o.baseUrl), { headers: { Authorization: `Bearer ${this.o.apiKey}` }, handshakeTimeout: 15_000, perMessageDeflate: false });
    this.ws = ws;
    ws.on("open", () => {
      this.opened = true;
      const format = this.o.format === "audio/pcmu" ? { type: "audio/pcmu" } : { type: "audio/pcm", rate: 24_000 };
      const transcription = { model: this.o.model || DEFAULT_MODEL, ...(this.o.language ? { language: this.o.language } : {}) };
      const turnDetection = { type: "server_vad", threshold: 0.5, prefix_padding_ms: 300, silence_duration_ms: this.o.silenceMs ?? 500 };
      ws.send(JSON.stringify({ type: "session.update", session: { type: "transcription", audio: { input: { format, transcription, turn_detection: turnDetection } } } }));
      h.open();
    });
    ws.on("message", (data, isBinary) => {
      if (isBinary) return;
      let msg: ServerEvent;
      try {
        msg = JSON.parse(data.toString()) as ServerEvent;
      } catch {
        return;
      }
      if (msg.type === "input_audio_buffer.speech_started") this.turnStart = (msg.audio_start_ms ?? 0) / 1000;
      else if (msg.type === "conversation.item.input_audio_transcription.delta" && msg.delta?.trim()) h.words(msg.delta.trim(), false, this.turnStart);
      else if (msg.type === "conversation.item.input_audio_transcription.completed") {
        const text = msg.transcript?.trim() ?? "";
        if (text) h.words(text, true, this.turnStart);
        h.turnEnd();
      } else if (msg.type === "error") h.error(`OpenAI transcription: ${msg.error?.message ?? "error"}`, false);
    });
    ws.on("unexpected-response", (_req, res) => {
      const chunks: Buffer[] = [];
      res.on("data", (c: Buffer) => chunks.push(c));
      res.once("end", () => {
        const body = Buffer.concat(chunks).toString("utf8");
        let detail = body.slice(0, 500);
        try {
          detail = (JSON.parse(body) as ServerEvent).error?.message ?? detail;
        } catch {
          // not JSON: the body as it came
        }
        h.error(`OpenAI transcription refused the connection: ${res.statusCode ?? 0}${detail ? ` ${detail}` : ""}`, true);
        ws.terminate();
        this.notifyClose(h, 1006, `OpenAI transcription refused the connection (${res.statusCode ?? 0})`);
      });
    });
    ws.on("error", (err) => {
      if (!this.closed) h.error(`OpenAI transcription: ${err.message}`, !this.opened);
    });
    ws.on("close", (code, reason) => this.notifyClose(h, code, reason.toString()));
  }

  private notifyClose(h: TranscriberHandlers, code: number, reason: string): void {
    if (this.closed) return;
    this.closed = true;
    h.close(code, reason);
  }

  send(audio: Uint8Array): boolean {
    if (!this.isOpen) return false;
    this.ws!.send(JSON.stringify({ type: "input_audio_buffer.append", audio: Buffer.from(audio).toString("base64") }));
    return true;
  }

  close(): void {
    const ws = this.ws;
    if (!ws) return;
    if (ws.readyState === WebSocket.OPEN) ws.close(1000, "Call ended");
    else if (ws.readyState === WebSocket.CONNECTING) ws.terminate();
  }
}
