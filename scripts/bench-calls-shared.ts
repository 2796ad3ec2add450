/**
 * What the three processes of `npm run bench:calls` share: the µ-law framing, the tag the fake
 * provider writes into each assistant audio chunk, and the IPC messages. Percentiles, the
 * send-time stamp and IPC helpers come from bench-voice-shared.ts.
 */
import type { Summary } from "./bench-voice-shared.ts";

/** Twilio's cadence: 20 ms of µ-law 8 kHz = 160 bytes, both ways. */
export const FRAME_MS = 20;
export const FRAME_BYTES = 160;
export const BYTES_PER_MS = 8;

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

export interface CallerTarget {
  origin: string;
  authToken: string;
  to: string;
}

export type CallersRequest = { type: "start"; target: CallerTarget; calls: number; seconds: number } | { type: "end"; from: string; to: string };
export type CallersMessage =
  | { type: "streaming"; connected: number; failed: number; firstFailure: string | null }
  | { type: "streamed" }
  | {
      type: "report";
      framesSent: number;
      framesReceived: number;
      marksEchoed: number;
      clears: number;
      downlinkE2e: Summary;
      webhookToFirstAudio: Summary;
      heard: Cuts;
      closedNormally: number;
    };
