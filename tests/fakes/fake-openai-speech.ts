/**
 * A stand-in for an OpenAI-compatible speech endpoint (`POST /v1/audio/speech`), on a real local
 * port: `Authorization: Bearer <key>` (else 401 with OpenAI's error shape), a JSON body `{ model,
 * input, voice, response_format }`, and with `response_format: "pcm"` the audio streamed back as
 * a chunked body of raw 16-bit little-endian PCM at 24 kHz, whatever the caller's line is.
 */
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { answerKeyCheck, OPENAI_REFUSAL } from "./key-check-route.ts";
import { speechRecord, streamTone, takeSpeechRequest, unstartedVoice, type FakeVoice } from "./speech-tones.ts";

export type FakeOpenAISpeech = FakeVoice;

export async function startFakeOpenAISpeech(options: { apiKey: string }): Promise<FakeOpenAISpeech> {
  const fake: FakeOpenAISpeech = unstartedVoice(options.apiKey);
  const server: Server = createServer((req, res) => {
    if (answerKeyCheck(req, res, { path: "/v1/models", accepted: req.headers.authorization === `Bearer ${fake.apiKey}`, refusal: OPENAI_REFUSAL })) return;
    if (req.method !== "POST" || req.url !== "/v1/audio/speech") return void res.writeHead(404).end();
    const accepted = req.headers.authorization === `Bearer ${fake.apiKey}`;
    takeSpeechRequest<{ model: string; input: string; voice: string; response_format?: string }>(req, res, { accepted, refusal: OPENAI_REFUSAL }, (body, gone) => {
      if (body.response_format !== "pcm") {
        res.writeHead(400, { "content-type": "application/json" });
        return void res.end(JSON.stringify({ error: { message: "This stand-in streams only response_format pcm", type: "invalid_request_error" } }));
      }
      const record = speechRecord(fake.options, { voice: body.voice, outputFormat: body.response_format, text: body.input, modelId: body.model });
      fake.requests.push(record);
      res.writeHead(200, { "content-type": "audio/pcm", "transfer-encoding": "chunked" });
      streamTone(record, fake.options, "audio/pcm", { write: (b) => res.write(b), end: () => res.end(), gone });
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  fake.baseUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}/v1`;
  fake.close = () =>
    new Promise<void>((resolve) => {
      server.closeAllConnections();
      server.close(() => resolve());
    });
  return fake;
}
