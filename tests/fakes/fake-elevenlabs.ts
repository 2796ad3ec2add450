/**
 * A stand-in for ElevenLabs' streaming speech (`POST /v1/text-to-speech/{voice_id}/stream`), on a
 * real local port: `xi-api-key` header (else 401 with `{ detail: { status, message } }`), a JSON
 * body `{ text, model_id }`, `output_format` in the query (`ulaw_8000` raw µ-law, `pcm_24000` raw
 * 16-bit PCM), and the audio streamed back as a chunked body.
 *
 * The audio is a tone (speech-tones.ts). Requests are recorded, with whether the client went away
 * before the end (a barge-in cutting the stream), and TCP connections counted (keep-alive reuse).
 */
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { answerKeyCheck } from "./key-check-route.ts";
import { speechRecord, streamTone, takeSpeechRequest, unstartedVoice, type FakeVoice } from "./speech-tones.ts";

export type { SpeechRequestRecord } from "./speech-tones.ts";

export interface FakeElevenLabs extends FakeVoice {
  /** TCP connections clients opened. */
  connections: number;
}

export async function startFakeElevenLabs(options: { apiKey: string }): Promise<FakeElevenLabs> {
  const fake: FakeElevenLabs = { ...unstartedVoice(options.apiKey), connections: 0 };
  const refusal = { detail: { status: "invalid_api_key", message: "Invalid API key" } };
  const server: Server = createServer((req, res) => {
    if (answerKeyCheck(req, res, { path: "/v1/models", accepted: req.headers["xi-api-key"] === fake.apiKey, refusal })) return;
    const url = new URL(req.url ?? "/", "http://x");
    const match = /^\/v1\/text-to-speech\/([^/]+)\/stream$/.exec(url.pathname);
    if (req.method !== "POST" || !match) return void res.writeHead(404).end();
    takeSpeechRequest<{ text: string; model_id?: string }>(req, res, { accepted: req.headers["xi-api-key"] === fake.apiKey, refusal }, (body, gone) => {
      const outputFormat = url.searchParams.get("output_format");
      const format = outputFormat === "pcm_24000" ? "audio/pcm" : "audio/pcmu";
      const record = speechRecord(fake.options, { voice: decodeURIComponent(match[1]!), outputFormat, text: body.text, modelId: body.model_id ?? "" });
      fake.requests.push(record);
      res.writeHead(200, { "content-type": format === "audio/pcm" ? "audio/pcm" : "audio/basic", "transfer-encoding": "chunked" });
      streamTone(record, fake.options, format, { write: (b) => res.write(b), end: () => res.end(), gone });
    });
  });
  server.on("connection", () => (fake.connections += 1));
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  fake.baseUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  fake.close = () =>
    new Promise<void>((resolve) => {
      server.closeAllConnections();
      server.close(() => resolve());
    });
  return fake;
}
