/** Audio the fakes speak and hear: a tone in either wire format, and silence. */
import { pcm16ToBytes, pcm16ToMulaw, type CallAudioFormat } from "../../src/server/voice/audio.ts";

export function bytesPerMsOf(format: CallAudioFormat): number {
  return format === "audio/pcm" ? 48 : 8;
}

/** A 440 Hz tone of `ms` milliseconds, starting at sample `offset` (so chunks join smoothly). */
export function tone(format: CallAudioFormat, ms: number, offset = 0): Buffer {
  const rate = format === "audio/pcm" ? 24_000 : 8_000;
  const count = Math.round((ms * rate) / 1000);
  const samples = new Int16Array(count);
  for (let i = 0; i < count; i += 1) samples[i] = Math.round(8000 * Math.sin((2 * Math.PI * 440 * (offset + i)) / rate));
  return format === "audio/pcm" ? pcm16ToBytes(samples) : Buffer.from(pcm16ToMulaw(samples));
}

export function silence(format: CallAudioFormat, ms: number): Buffer {
  const bytes = Math.round(ms * bytesPerMsOf(format));
  return Buffer.alloc(bytes, format === "audio/pcm" ? 0 : 0xff);
}
