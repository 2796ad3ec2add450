/**
 * OpenAI's speech endpoint, as the SIP transfer's briefing and voicemail use it (`POST {base}/audio/speech`) on the fake Realtime server's port (its
 * `rest` hook; other paths go on to whatever answered them before): `Authorization: Bearer <key>`
 * (else 401 with OpenAI's error body), a JSON body with `model`, `input` (at most 4096
 * characters) and `voice` (else 400), and the audio in `response_format` — only `pcm` is made
 * here: raw 16-bit little-endian samples at 24 kHz, no header, as OpenAI sends it.
 *
 * The speech is a tone of `hz`, `msPerWord` for each word of the input, so a test can tell the
 * briefing from every other sound on the line.
 */
import type { IncomingMessage, ServerResponse } from "node:http";
import { pcm16ToBytes } from "../../src/server/voice/audio.ts";
import type { FakeRealtime } from "./fake-realtime.ts";

export const SPEECH_TONE_HZ = 660;

export interface SpeechCall {
  model: string;
  voice: string;
  input: string;
  responseFormat: string;
}

export function serveSpeech(fake: FakeRealtime, options: { msPerWord?: number; hz?: number } = {}) {
  const requests: SpeechCall[] = [];
  const before = fake.rest;
  const state = { failWith: null as null | { status: number; message: string } };
  fake.rest = (req: IncomingMessage, res: ServerResponse) => {
    if (req.method !== "POST" || new URL(req.url ?? "/", "http://x").pathname !== "/v1/audio/speech") {
      if (before) return before(req, res);
      return error(res, 404, "Not found", null);
    }
    if (req.headers.authorization !== `Bearer ${fake.apiKey}`) return error(res, 401, "Incorrect API key provided.", "invalid_api_key");
    const chunks: Buffer[] = [];
    req.on("data", (c: Buffer) => chunks.push(c));
    req.on("end", () => {
      let body: Record<string, unknown>;
      try {
        body = JSON.parse(Buffer.concat(chunks).toString("utf8")) as Record<string, unknown>;
      } catch {
        return error(res, 400, "We could not parse the JSON body of your request.", null);
      }
      for (const field of ["model", "input", "voice"]) {
        if (typeof body[field] !== "string" || body[field] === "") return error(res, 400, `Missing required parameter: '${field}'.`, "missing_required_parameter");
      }
      const input = body["input"] as string;
      if (input.length > 4096) return error(res, 400, "String too long: 'input' may be at most 4096 characters.", "string_above_max_length");
      const responseFormat = typeof body["response_format"] === "string" ? body["response_format"] : "mp3";
      requests.push({ model: body["model"] as string, voice: body["voice"] as string, input, responseFormat });
      if (state.failWith) return error(res, state.failWith.status, state.failWith.message, null);
      if (responseFormat !== "pcm") return error(res, 400, "This fake makes only response_format pcm.", null);
      const ms = input.trim().split(/\s+/).length * (options.msPerWord ?? 250);
      const samples = new Int16Array(Math.round((ms * 24_000) / 1000));
      for (let i = 0; i < samples.length; i += 1) samples[i] = Math.round(9000 * Math.sin((2 * Math.PI * (options.hz ?? SPEECH_TONE_HZ) * i) / 24_000));
      res.writeHead(200, { "content-type": "audio/pcm", "transfer-encoding": "chunked" });
      res.end(pcm16ToBytes(samples));
    });
  };
  return { requests, state };
}

function error(res: ServerResponse, status: number, message: string, code: string | null) {
  res.writeHead(status, { "content-type": "application/json" });
  res.end(JSON.stringify({ error: { message, type: "invalid_request_error", param: null, code } }));
}
