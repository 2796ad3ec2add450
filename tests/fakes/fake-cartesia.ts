/**
 * A stand-in for Cartesia's WebSocket speech (`wss://api.cartesia.ai/tts/websocket`), on a real
 * local socket: the upgrade needs `Authorization: Bearer <key>` and a `Cartesia-Version` (else
 * 401 / 400 with a JSON message). Each text frame with a `transcript` starts a generation of its
 * `context_id`: `chunk` messages (`data`: base64 audio in the requested `output_format` —
 * `pcm_mulaw` or `pcm_s16le`, raw), then `{ type: "done", done: true }`. `{ context_id, cancel: true }`
 * stops that generation (recorded as cut off). An unknown encoding answers a `type: "error"`.
 */
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { WebSocketServer, type WebSocket } from "ws";
import { answerKeyCheck } from "./key-check-route.ts";
import { speechRecord, streamTone, unstartedVoice, type FakeVoice, type SpeechRequestRecord } from "./speech-tones.ts";

export interface CartesiaRecord extends SpeechRequestRecord {
  contextId: string;
  sampleRate: number;
}

export interface FakeCartesia extends FakeVoice<CartesiaRecord> {
  /** Sockets opened (a call keeps one for all its sentences). */
  connections: number;
}

interface Generation {
  model_id?: string;
  transcript?: string;
  voice?: { mode?: string; id?: string };
  output_format?: { container?: string; encoding?: string; sample_rate?: number };
  context_id?: string;
  cancel?: boolean;
}

export async function startFakeCartesia(options: { apiKey: string }): Promise<FakeCartesia> {
  const fake: FakeCartesia = { ...unstartedVoice<CartesiaRecord>(options.apiKey), connections: 0 };
  const server: Server = createServer((req, res) => {
    const accepted = req.headers.authorization === `Bearer ${fake.apiKey}` && Boolean(req.headers["cartesia-version"]);
    if (!answerKeyCheck(req, res, { path: "/voices", accepted, refusal: { error: "Invalid API key", message: "Invalid API key" } })) res.writeHead(404).end();
  });
  const wss = new WebSocketServer({ noServer: true });
  const sockets = new Set<WebSocket>();
  const refuse = (socket: import("node:stream").Duplex, status: string, message: string) => {
    const body = JSON.stringify({ error: message, message });
    socket.end(`HTTP/1.1 ${status}\r\nContent-Type: application/json\r\nContent-Length: ${Buffer.byteLength(body)}\r\n\r\n${body}`);
  };

  server.on("upgrade", (req, socket, head) => {
    if (new URL(req.url ?? "/", "http://x").pathname !== "/tts/websocket") return refuse(socket, "404 Not Found", "Not found");
    if (req.headers.authorization !== `Bearer ${fake.apiKey}`) return refuse(socket, "401 Unauthorized", "Invalid API key");
    if (!req.headers["cartesia-version"]) return refuse(socket, "400 Bad Request", "Cartesia-Version header is required");
    wss.handleUpgrade(req, socket, head, (ws) => serve(ws));
  });

  function serve(ws: WebSocket): void {
    fake.connections += 1;
    sockets.add(ws);
    const cancelled = new Set<string>();
    ws.on("close", () => sockets.delete(ws));
    ws.on("message", (data) => {
      const msg = JSON.parse(data.toString()) as Generation;
      const contextId = msg.context_id ?? "";
      if (msg.cancel) return void cancelled.add(contextId);
      const encoding = msg.output_format?.encoding;
      const send = (m: Record<string, unknown>) => ws.readyState === ws.OPEN && ws.send(JSON.stringify(m));
      if (encoding !== "pcm_mulaw" && encoding !== "pcm_s16le") {
        return send({ type: "error", done: true, status_code: 400, context_id: contextId, title: "Invalid output format", message: `Unsupported encoding ${encoding}`, error_code: "invalid_output_format" });
      }
      const record: CartesiaRecord = {
        ...speechRecord(fake.options, { voice: msg.voice?.id ?? "", outputFormat: encoding, text: msg.transcript ?? "", modelId: msg.model_id ?? "" }),
        contextId,
        sampleRate: msg.output_format?.sample_rate ?? 0,
      };
      fake.requests.push(record);
      streamTone(record, fake.options, encoding === "pcm_mulaw" ? "audio/pcmu" : "audio/pcm", {
        write: (b) => send({ type: "chunk", data: b.toString("base64"), done: false, status_code: 206, step_time: 10, context_id: contextId }),
        end: () => send({ type: "done", done: true, status_code: 206, context_id: contextId }),
        gone: () => cancelled.has(contextId) || ws.readyState !== ws.OPEN,
      });
    });
  }

  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  fake.baseUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  fake.close = async () => {
    for (const ws of sockets) ws.terminate();
    wss.close();
    await new Promise<void>((resolve) => server.close(() => resolve()));
  };
  return fake;
}
