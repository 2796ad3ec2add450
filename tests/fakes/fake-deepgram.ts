/**
 * A stand-in for Deepgram's live transcription (`wss://api.deepgram.com/v1/listen`), speaking
 * its documented protocol on a real local socket:
 *
 * - the upgrade must carry `Authorization: Token <key>` (else 401 with a JSON `err_msg`); the
 *   query says the encoding (`mulaw` / `linear16`), `sample_rate`, `interim_results`, `endpointing`;
 * - audio arrives as binary frames; JSON text frames are `KeepAlive`, `Finalize`, `CloseStream`;
 * - it answers `Results` (`is_final`, `speech_final`, `start`, `duration`,
 *   `channel.alternatives[0].transcript`) and `UtteranceEnd`, and on `CloseStream` a `Metadata`
 *   (`duration`: the seconds of audio it received, what Deepgram bills) then it closes the socket
 *   itself, normally.
 *
 * It cannot recognise speech (scripted-hearing.ts): an utterance's start is answered by an interim
 * result (its first word), its end by the final result with `speech_final`, then `UtteranceEnd`.
 */
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import type { WebSocket } from "ws";
import { acceptKeyedUpgrades, answerKeyCheck } from "./key-check-route.ts";
import { scriptedHearing, type HearingScript } from "./scripted-hearing.ts";

export type DeepgramScript = HearingScript;

export interface DeepgramConnection {
  query: Record<string, string>;
  audioBytes: number;
  keepAlives: number;
  closeStream: boolean;
  sent: Array<Record<string, unknown>>;
  socket: WebSocket;
}

export interface FakeDeepgram {
  baseUrl: string;
  apiKey: string;
  script: DeepgramScript;
  /**
   * The seconds the next closing `Metadata` reports instead of the audio's own length (Deepgram
   * counts what it decoded, which a caller's count of bytes sent need not match); null: the length.
   */
  reportSeconds: number | null;
  connections: DeepgramConnection[];
  close(): Promise<void>;
}

export async function startFakeDeepgram(options: { apiKey: string }): Promise<FakeDeepgram> {
  const fake: FakeDeepgram = { baseUrl: "", apiKey: options.apiKey, script: {}, reportSeconds: null, connections: [], close: async () => {} };
  const refusal = { err_code: "INVALID_AUTH", err_msg: "Invalid credentials.", request_id: "fake" };
  const server: Server = createServer((req, res) => {
    if (!answerKeyCheck(req, res, { path: "/v1/projects", accepted: req.headers.authorization === `Token ${fake.apiKey}`, refusal })) res.writeHead(404).end();
  });
  const wss = acceptKeyedUpgrades(server, {
    matches: (url) => url.pathname === "/v1/listen",
    accepted: (req) => req.headers.authorization === `Token ${fake.apiKey}`,
    refusal,
  }, serve);

  function serve(ws: WebSocket, query: Record<string, string>): void {
    const conn: DeepgramConnection = { query, audioBytes: 0, keepAlives: 0, closeStream: false, sent: [], socket: ws };
    fake.connections.push(conn);
    const bytesPerMs = query["encoding"] === "mulaw" ? Number(query["sample_rate"] ?? 8000) / 1000 : (Number(query["sample_rate"] ?? 16000) / 1000) * 2;
    const hear = scriptedHearing(fake.script);
    let totalMs = 0;
    const send = (msg: Record<string, unknown>) => {
      conn.sent.push(msg);
      ws.send(JSON.stringify(msg));
    };
    const results = (text: string, start: number, duration: number, isFinal: boolean, speechFinal: boolean) =>
      send({
        type: "Results",
        channel_index: [0, 1],
        duration,
        start,
        is_final: isFinal,
        speech_final: speechFinal,
        channel: { alternatives: [{ transcript: text, confidence: 0.98, words: [] }] },
        metadata: { request_id: "fake", model_info: { name: query["model"] ?? "nova-3" } },
        from_finalize: false,
      });
    ws.on("message", (data, isBinary) => {
      if (!isBinary) {
        const msg = JSON.parse(data.toString()) as { type?: string };
        if (msg.type === "KeepAlive") conn.keepAlives += 1;
        if (msg.type === "CloseStream") {
          conn.closeStream = true;
          const duration = fake.reportSeconds ?? totalMs / 1000;
          fake.reportSeconds = null;
          send({ type: "Metadata", transaction_key: "deprecated", request_id: "fake", sha256: "0".repeat(64), created: new Date().toISOString(), duration, channels: 1, models: ["fake-model"], model_info: { "fake-model": { name: query["model"] ?? "nova-3", version: "fake", arch: "nova-3" } } });
          ws.close(1000);
        }
        return;
      }
      const ms = (data as Buffer).length / bytesPerMs;
      conn.audioBytes += (data as Buffer).length;
      totalMs += ms;
      const heard = hear(ms);
      if (heard?.kind === "start") results(heard.text.split(" ")[0]!, heard.startMs / 1000, heard.heardMs / 1000, false, false);
      else if (heard?.kind === "final") {
        results(heard.text, heard.startMs / 1000, (heard.endMs - heard.startMs) / 1000, true, true);
        send({ type: "UtteranceEnd", channel: [0, 1], last_word_end: heard.endMs / 1000 });
      }
    });
  }

  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  fake.baseUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  fake.close = async () => {
    for (const c of fake.connections) c.socket.terminate();
    wss.close();
    await new Promise<void>((resolve) => server.close(() => resolve()));
  };
  return fake;
}
