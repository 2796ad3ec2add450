/**
 * A stand-in for OpenAI's Realtime transcription session (`wss://…/v1/realtime?intent=transcription`),
 * on a real local socket: the upgrade needs `Authorization: Bearer <key>` (else 401 with OpenAI's
 * error shape) and `intent=transcription` with no model. It greets with `session.created`
 * (`type: "transcription"`), answers `session.update` with `session.updated`, and takes the audio
 * as `input_audio_buffer.append` (base64, in the session's `audio.input.format`: `audio/pcmu`,
 * or `audio/pcm` at 24 kHz).
 *
 * It cannot recognise speech (scripted-hearing.ts): an utterance's start is answered by
 * `input_audio_buffer.speech_started` and a transcription `delta` of its first word; its end by
 * `speech_stopped`, `committed`, the rest as a `delta`, and `…input_audio_transcription.completed`.
 */
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import type { WebSocket } from "ws";
import { acceptKeyedUpgrades, answerKeyCheck, OPENAI_REFUSAL } from "./key-check-route.ts";
import { scriptedHearing, type HearingScript } from "./scripted-hearing.ts";

export interface TranscriptionConnection {
  query: Record<string, string>;
  /** The session as the last `session.update` set it. */
  session: { type?: string; audio?: { input?: { format?: { type?: string; rate?: number }; transcription?: { model?: string; language?: string }; turn_detection?: unknown } } } | null;
  audioBytes: number;
  socket: WebSocket;
}

export interface FakeOpenAITranscription {
  baseUrl: string;
  apiKey: string;
  script: HearingScript;
  connections: TranscriptionConnection[];
  close(): Promise<void>;
}

export async function startFakeOpenAITranscription(options: { apiKey: string }): Promise<FakeOpenAITranscription> {
  const fake: FakeOpenAITranscription = { baseUrl: "", apiKey: options.apiKey, script: {}, connections: [], close: async () => {} };
  const server: Server = createServer((req, res) => {
    if (!answerKeyCheck(req, res, { path: "/v1/models", accepted: req.headers.authorization === `Bearer ${fake.apiKey}`, refusal: OPENAI_REFUSAL })) res.writeHead(404).end();
  });
  const wss = acceptKeyedUpgrades(server, {
    matches: (url) => url.pathname === "/v1/realtime" && url.searchParams.get("intent") === "transcription",
    accepted: (req) => req.headers.authorization === `Bearer ${fake.apiKey}`,
    refusal: OPENAI_REFUSAL,
  }, serve);

  function serve(ws: WebSocket, query: Record<string, string>): void {
    const conn: TranscriptionConnection = { query, session: null, audioBytes: 0, socket: ws };
    fake.connections.push(conn);
    const hear = scriptedHearing(fake.script);
    let events = 0;
    let item = 0;
    const send = (msg: Record<string, unknown>) => ws.readyState === ws.OPEN && ws.send(JSON.stringify({ event_id: `event_${++events}`, ...msg }));
    send({ type: "session.created", session: { object: "realtime.session", type: "transcription", id: "sess_fake" } });
    ws.on("message", (data) => {
      const msg = JSON.parse(data.toString()) as { type?: string; session?: TranscriptionConnection["session"]; audio?: string };
      if (msg.type === "session.update") {
        conn.session = msg.session ?? null;
        return void send({ type: "session.updated", session: { object: "realtime.session", ...msg.session } });
      }
      if (msg.type !== "input_audio_buffer.append" || !msg.audio) return;
      const bytes = Buffer.from(msg.audio, "base64").length;
      conn.audioBytes += bytes;
      const format = conn.session?.audio?.input?.format;
      const ms = bytes / (format?.type === "audio/pcmu" ? 8 : ((format?.rate ?? 24_000) / 1000) * 2);
      const heard = hear(ms);
      const itemId = `item_${item}`;
      if (heard?.kind === "start") {
        item += 1;
        send({ type: "input_audio_buffer.speech_started", audio_start_ms: Math.round(heard.startMs), item_id: `item_${item}` });
        send({ type: "conversation.item.input_audio_transcription.delta", item_id: `item_${item}`, content_index: 0, delta: heard.text.split(" ")[0] });
      } else if (heard?.kind === "final") {
        send({ type: "input_audio_buffer.speech_stopped", audio_end_ms: Math.round(heard.endMs), item_id: itemId });
        send({ type: "input_audio_buffer.committed", previous_item_id: null, item_id: itemId });
        send({ type: "conversation.item.input_audio_transcription.delta", item_id: itemId, content_index: 0, delta: ` ${heard.text.split(" ").slice(1).join(" ")}` });
        send({
          type: "conversation.item.input_audio_transcription.completed",
          item_id: itemId,
          content_index: 0,
          transcript: heard.text,
          usage: { type: "duration", seconds: Math.round((heard.endMs - heard.startMs) / 100) / 10 },
        });
      }
    });
  }

  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  fake.baseUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}/v1`;
  fake.close = async () => {
    for (const c of fake.connections) c.socket.terminate();
    wss.close();
    await new Promise<void>((resolve) => server.close(() => resolve()));
  };
  return fake;
}
