/**
 * What the three processes of `npm run bench:calls` share: the µ-law framing, the tag the fake
 * provider writes into each assistant audio chunk, and the IPC messages. Percentiles, the
 * send-time stamp and IPC helpers come from bench-voice-shared.ts.
 */
import { stampFrame, type Summary } from "./bench-voice-shared.ts";

/** Twilio's cadence: 20 ms of µ-law 8 kHz = 160 bytes, both ways. */
export const FRAME_MS = 20;
export const FRAME_BYTES = 160;
export const BYTES_PER_MS = 8;

/**
 * A caller frame's send stamp (bytes 0–7, for the provider), and again as 32 signed full-scale
 * samples (bit set: +32124, clear: −32124) of the microsecond clock's low 32 bits, twice: at
 * samples 16–47 and 96–127. bench:live reads it back from the supervisor's mixed audio: the
 * assistant's tone (±8000) never flips a sign, and its tagged chunk heads (20 samples, at most
 * one per 160) may spoil one copy, never both.
 */
export const STAMP_COPIES = [16, 96] as const;
const MULAW_HIGH = 0x80;
const MULAW_LOW = 0x00;

/** Low 32 bits of the monotonic clock in µs (wraps every ~71 minutes; ages are taken modulo). */
export function clockUs(): number {
  return Number((process.hrtime.bigint() / 1000n) & 0xffffffffn);
}

export function stampCallerFrame(frame: Buffer): void {
  stampFrame(frame);
  const us = clockUs();
  for (const at of STAMP_COPIES) for (let bit = 0; bit < 32; bit += 1) frame[at + bit] = (us >>> bit) & 1 ? MULAW_HIGH : MULAW_LOW;
}

/**
 * Bytes 0–7 of each assistant chunk: the send stamp (bench-voice-shared `stampFrame`);
 * 8–11: the fake's connection number; 12–15: the item's number; 16–19: the chunk's offset in
 * the item, ms. The caller reads them back to say which item it was hearing, and where, when
 * a clear arrived — the truth the server's truncation is compared with.
 */
export interface ChunkTag {
  connection: number;
  item: number;
  offsetMs: number;
}

/** The connection a chunk no caller's words led to (bench:pipeline's greeting) is tagged with. */
export const UNTAGGED = 0xffff;

export function writeTag(chunk: Buffer, tag: ChunkTag): void {
  chunk.writeUInt32LE(tag.connection, 8);
  chunk.writeUInt32LE(tag.item, 12);
  chunk.writeUInt32LE(tag.offsetMs, 16);
}

export function readTag(chunk: Buffer): ChunkTag | null {
  if (chunk.length < 20) return null;
  return { connection: chunk.readUInt32LE(8), item: chunk.readUInt32LE(12), offsetMs: chunk.readUInt32LE(16) };
}

/** What one side saw of an interruption: key `${connection}:${item}`, value ms. */
export type Cuts = Record<string, number>;

export type ProviderRequest = { type: "start"; seconds: number; bargeInEveryMs: number } | { type: "report"; from: string; to: string };
export type ProviderMessage =
  | { type: "listening"; baseUrl: string; apiKey: string }
  | { type: "report"; appendedFrames: number; deltas: number; uplinkE2e: Summary; providerDelay: Summary; truncations: Cuts; connections: number };

/** The provider and its embeddings child (bench-calls-embeddings.ts). */
export type EmbeddingsMessage = { type: "start"; apiKey: string } | { type: "listening"; origin: string };

/** The uploading client of `--ingest` (bench-calls-ingest.ts). */
export interface IngestResult {
  documents: number;
  ready: number;
  failed: number;
  passages: number;
  /** From the first upload to the last document settled (or to the end of the wait). */
  seconds: number;
}
export type IngestRequest = { type: "start"; origin: string; cookie: string; documents: number; pages: number } | { type: "go"; waitMs: number };
export type IngestMessage = { type: "ready" } | { type: "done"; result: IngestResult };

export type RelayRequest = { type: "start"; providerUrl: string; apiKey: string };
export type RelayMessage = { type: "listening"; origin: string };

export interface CallerTarget {
  origin: string;
  authToken: string;
  to: string;
}

/**
 * bench:pipeline's speaking callers: each says `clip` (µ-law 8 kHz, base64; real speech), then is
 * silent for `silenceMs`, over and over, from a random point of that cycle. Their frames carry no
 * stamp (it would be noise in the speech the voice activity detector hears).
 */
export interface CallerSpeech {
  clip: string;
  silenceMs: number;
}

/** A barge-in as a speaking caller saw it, ms from the send of its utterance's first frame (the clip's). */
export interface SpokenBargeIn {
  /** The `clear` arrived. */
  clearMs: number;
  /** The last audio of the interrupted answer arrived (the clear, if none came after it). */
  lastAudioMs: number;
  /** Where the clip starts in the call's audio, ms (the VAD's windows are counted from the call's first frame). */
  clipAtMs: number;
}

export type CallersRequest = { type: "start"; target: CallerTarget; calls: number; seconds: number; speech?: CallerSpeech } | { type: "end"; from: string; to: string };
export type CallersMessage =
  | { type: "streaming"; connected: number; failed: number; refused: number; firstFailure: string | null }
  | { type: "streamed" }
  | {
      type: "report";
      framesSent: number;
      framesReceived: number;
      marksEchoed: number;
      clears: number;
      downlinkE2e: Summary;
      webhookToFirstAudio: Summary;
      /** From the media stream's `start` to the first assistant audio: the part of the wait after Twilio's. */
      streamToFirstAudio: Summary;
      heard: Cuts;
      /** The age (ms) of each tagged item's first chunk, by `${connection}:${item}`. */
      itemStarts: Record<string, number>;
      /** When each clear arrived (monotonic ns), by the `${connection}:${item}` being heard. */
      clearedAt: Record<string, number>;
      /** Speaking callers only: each utterance's first clear, and the interrupted answer's last audio. */
      spokenBargeIns: SpokenBargeIn[];
      closedNormally: number;
    };

// bench:live's supervisors (bench-live-supervisors.ts)
export type SupervisorsRequest = { type: "start"; base: string; cookie: string; callIds: string[] } | { type: "end"; from: string; to: string };
export type SupervisorsMessage =
  | { type: "listening"; listeners: number; failed: number; firstFailure: string | null }
  | { type: "report"; frames: number; stamped: number; bytes: number; delay: Summary };
