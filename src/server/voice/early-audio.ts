/**
 * Caller audio that arrives before the provider session is ready (socket opening, waiting for
 * `session.updated`): kept, bounded, and sent at once when the session is configured — a
 * caller who starts talking at once is heard from the first frame. Appending before `session.updated`
 * would be decoded in the provider's default format.
 */
import { wireByteLength, wireBytes, type WireAudio } from "./audio.ts";

export class EarlyAudio {
  private chunks: WireAudio[] = [];
  private bytes = 0;
  /** Frames dropped because the buffer was full (the provider took too long). */
  dropped = 0;

  constructor(private readonly maxBytes: number) {}

  push(chunk: WireAudio): void {
    const bytes = wireByteLength(chunk);
    if (this.bytes + bytes > this.maxBytes) {
      this.dropped += 1;
      return;
    }
    // Bytes are copied: socket buffers may be slices of a pooled allocation reused afterwards.
    this.chunks.push(typeof chunk === "string" ? chunk : Uint8Array.from(chunk));
    this.bytes += bytes;
  }

  /**
   * Everything kept, in order, as one piece (or null when nothing was): handed to the provider as
   * one append, one socket write, where a caller's first second was fifty.
   */
  take(): Uint8Array | null {
    const chunks = this.chunks;
    this.chunks = [];
    this.bytes = 0;
    if (chunks.length === 0) return null;
    return Buffer.concat(chunks.map(wireBytes));
  }
}
