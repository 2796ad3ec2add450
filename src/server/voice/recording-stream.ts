/**
 * Streams a call's recording to storage while the call runs, so memory per call stays flat
 * whatever its length: every few seconds, the part of the timeline that can no longer change
 * (older than SETTLE_MS) is taken from the recorder and appended to the object; the end of the
 * call writes the rest and patches the WAV header with the final sizes.
 *
 * One write at a time: while a write is outstanding (slow storage), audio stays in the
 * recorder and goes out with the next one, so the file never has gaps or reordered slices.
 */
import { WAV_HEADER_BYTES, stereoWavHeader } from "./audio.ts";
import type { CallRecorder } from "./recorder.ts";
import type { OpenRecording, RecordingWriter, SessionLogger } from "./seams.ts";

/**
 * Each write costs the event loop about the same whatever its size (a file write through the
 * thread pool and its promise): every 5 s rather than every second was a fifth of that cost at
 * 200 phone calls, for 4 s more audio held per call (64 KB of µ-law).
 */
const FLUSH_EVERY_MS = 5_000;
/**
 * Audio younger than this may still change: a barge-in cuts the assistant channel at what the
 * caller's side reports played, which lags the timeline by up to a few hundred milliseconds.
 * Several times that, and no more: every call keeps this much audio in memory (at 10 s, about a
 * third of a megabyte per phone call).
 */
const SETTLE_MS = 3_000;
/** The rest is written at the end in slices of this many seconds (bounded peak memory). */
const FINAL_SLICE_MS = 10_000;

export class RecordingStream {
  private writer: RecordingWriter | null = null;
  private opening: Promise<void> | null = null;
  private writing: Promise<void> | null = null;
  private timer: NodeJS.Timeout | null = null;
  private failed = false;
  private finished = false;
  private key: string | null = null;

  constructor(
    private readonly recorder: CallRecorder,
    /** Milliseconds since the call started. */
    private readonly elapsed: () => number,
    private readonly logger: SessionLogger,
    private readonly timing: { flushEveryMs?: number; settleMs?: number } = {},
  ) {}

  /** The call record exists: open the object under `key` and start streaming. */
  open(openRecording: OpenRecording, key: string): void {
    if (this.opening || this.finished) return;
    this.opening = (async () => {
      try {
        const writer = await openRecording(key);
        // Room for the header, written when the sizes are known.
        await writer.append(new Uint8Array(WAV_HEADER_BYTES));
        this.writer = writer;
        this.key = key;
      } catch (err) {
        this.failed = true;
        this.logger.error({ err, key }, "opening the recording failed");
        return;
      }
      if (this.finished) return;
      // Calls that start together (a burst, a campaign) would all write in the same tick, a
      // pause every caller hears: each call's writes start at an offset of its own.
      const every = this.timing.flushEveryMs ?? FLUSH_EVERY_MS;
      this.timer = setTimeout(() => {
        this.timer = setInterval(() => this.flush(), every).unref();
        this.flush();
      }, Math.random() * every).unref();
    })();
  }

  /** Writes out what has settled (run every FLUSH_EVERY_MS; tests call it directly). */
  flush(): void {
    if (!this.writer || this.failed || this.writing) return;
    const part = this.recorder.take(this.recorder.positionOf(this.elapsed() - (this.timing.settleMs ?? SETTLE_MS)));
    if (part) this.write(part);
  }

  /** Resolves when the object is open and no write is outstanding. */
  async idle(): Promise<void> {
    await this.opening;
    await this.writing;
  }

  private write(part: Buffer): void {
    const writer = this.writer!;
    this.writing = writer
      .append(part)
      .catch((err: unknown) => {
        this.failed = true;
        this.logger.error({ err, key: this.key }, "writing the recording failed");
      })
      .finally(() => {
        this.writing = null;
      });
  }

  /** The call ended (assistant audio already trimmed): writes the rest; the key, or null when nothing was stored. */
  async finish(): Promise<string | null> {
    this.finished = true;
    if (this.timer) clearInterval(this.timer);
    this.timer = null;
    await this.opening;
    await this.writing;
    const writer = this.writer;
    if (!writer) return null;
    try {
      if (this.failed || this.recorder.isEmpty) throw null;
      const step = this.recorder.positionOf(FINAL_SLICE_MS);
      const end = this.recorder.frames;
      while (this.recorder.taken < end) {
        const part = this.recorder.take(Math.min(end, this.recorder.taken + step));
        if (!part) break;
        await writer.append(part);
      }
      await writer.finish({ head: stereoWavHeader(this.recorder.taken, this.recorder.sampleRate) });
      return this.key;
    } catch (err) {
      if (err !== null) this.logger.error({ err, key: this.key }, "finishing the recording failed");
      await writer.abort().catch(() => {});
      return null;
    }
  }
}
