/**
 * What the stand-in voices share: each request recorded the same way, and its "speech" — a tone
 * of `msPerWord` per word, sent in `chunkMs` pieces every `chunkGapMs` (faster than real time, as
 * the services are) until it is all out or the client went away (a barge-in cutting it short).
 */
import type { IncomingMessage, ServerResponse } from "node:http";
import type { CallAudioFormat } from "../../src/server/voice/audio.ts";
import { tone } from "./realtime-audio.ts";

export interface SpeechRequestRecord {
  voice: string;
  outputFormat: string | null;
  text: string;
  modelId: string;
  audioMs: number;
  sentMs: number;
  cutOff: boolean;
}

export interface SpeechPace {
  msPerWord: number;
  chunkMs: number;
  chunkGapMs: number;
}

export const defaultPace = (): SpeechPace => ({ msPerWord: 100, chunkMs: 100, chunkGapMs: 50 });

/** A stand-in voice as a test holds it: where it listens, its key, its pace (a test may change it) and what it was asked to say. */
export interface FakeVoice<R extends SpeechRequestRecord = SpeechRequestRecord> {
  baseUrl: string;
  apiKey: string;
  options: SpeechPace;
  requests: R[];
  close(): Promise<void>;
}

/** A voice not listening yet: its start fills in `baseUrl` and `close`. */
export const unstartedVoice = <R extends SpeechRequestRecord>(apiKey: string): FakeVoice<R> => ({ baseUrl: "", apiKey, options: defaultPace(), requests: [], close: async () => {} });

export function speechRecord(pace: SpeechPace, fields: Omit<SpeechRequestRecord, "audioMs" | "sentMs" | "cutOff">): SpeechRequestRecord {
  return { ...fields, audioMs: fields.text.split(/\s+/).length * pace.msPerWord, sentMs: 0, cutOff: false };
}

/**
 * Sends the record's tone in `format` (`rate` Hz: 24 kHz PCM, or 8 kHz µ-law) through `write`,
 * then calls `end`; stops early, marking the record cut off, once `gone()` says the client left.
 */
export function streamTone(record: SpeechRequestRecord, pace: SpeechPace, format: CallAudioFormat, io: { write(bytes: Buffer): void; end(): void; gone(): boolean }): void {
  const rate = format === "audio/pcm" ? 24_000 : 8_000;
  const next = () => {
    if (io.gone()) {
      record.cutOff = record.sentMs < record.audioMs;
      return;
    }
    if (record.sentMs >= record.audioMs) return io.end();
    const ms = Math.min(pace.chunkMs, record.audioMs - record.sentMs);
    io.write(tone(format, ms, (record.sentMs * rate) / 1000));
    record.sentMs += ms;
    setTimeout(next, pace.chunkGapMs);
  };
  next();
}

/**
 * A speech request as the services take it: 401 with the service's `refusal` unless the key was
 * `accepted`, else the JSON body read whole and handed to `speak` with `gone()`, which turns true
 * once the client went away (a barge-in cutting the stream).
 */
export function takeSpeechRequest<B>(req: IncomingMessage, res: ServerResponse, auth: { accepted: boolean; refusal: unknown }, speak: (body: B, gone: () => boolean) => void): void {
  if (!auth.accepted) {
    res.writeHead(401, { "content-type": "application/json" });
    return void res.end(JSON.stringify(auth.refusal));
  }
  const chunks: Buffer[] = [];
  req.on("data", (c: Buffer) => chunks.push(c));
  let gone = false;
  res.on("close", () => (gone = true));
  req.on("end", () => speak(JSON.parse(Buffer.concat(chunks).toString()) as B, () => gone));
}
