/**
 * AudioWorklet processor: plays PCM16 audio from a queue, without gaps between chunks, and
 * accounts for what was actually played per item (a test call's server truncates the model's
 * item at that point on barge-in; the live board shows how much of a call it has played).
 *
 * - A short prebuffer absorbs network jitter before playback starts (or restarts after running
 *   dry); it grows each time an item runs dry in the middle.
 * - Starting and stopping ramp over a few milliseconds, so neither a flush nor an underrun clicks.
 * - `clear` drops everything queued at the next render quantum (after a 2.7 ms fade).
 * - A live stream (the board's Listen) caps the queue: audio that arrives in a burst after a
 *   network stall is dropped from the oldest end rather than heard ever later.
 *
 * Loaded as its own file through `?worker&url` (CSP script-src 'self'); it must import nothing.
 * The context runs at the audio's sample rate (24 kHz for a test call, 8 kHz for a phone call),
 * so samples are played one for one.
 */

// The AudioWorkletGlobalScope is not in TypeScript's DOM lib; the few names used here.
declare const sampleRate: number;
declare class AudioWorkletProcessor {
  readonly port: MessagePort;
}
declare function registerProcessor(name: string, processor: new (options?: { processorOptions?: PlaybackOptions }) => AudioWorkletProcessor): void;

const SAMPLES_PER_MS = sampleRate / 1000;
/**
 * Wait for this much audio (or this long) before starting from silence. Audio usually arrives
 * faster than it plays; when it does not (the queue ran dry inside an item), the wait grows, as
 * in any adaptive jitter buffer, trading a little latency for no more gaps.
 */
const PREBUFFER_START = 60 * SAMPLES_PER_MS;
const PREBUFFER_STEP = 40 * SAMPLES_PER_MS;
const PREBUFFER_MAX = 300 * SAMPLES_PER_MS;
const RAMP_SAMPLES = 64;
/** Progress reports while playing: about every 100 ms. */
const REPORT_EVERY_SAMPLES = 100 * SAMPLES_PER_MS;

export interface PlaybackOptions {
  /** Live streams: never hold more than this much audio (the oldest is dropped). */
  maxQueuedMs?: number;
}

export type PlaybackWorkletMessage = { type: "push"; itemId: string; pcm: ArrayBuffer } | { type: "clear" };
/** Played milliseconds of an item, and the output level for the speaking indicator. */
export type PlaybackReport = { type: "played"; itemId: string; playedMs: number; level: number; playing: boolean };

interface Chunk {
  itemId: string;
  samples: Int16Array;
  offset: number;
}

class PlaybackProcessor extends AudioWorkletProcessor {
  private readonly queue: Chunk[] = [];
  private queued = 0;
  private playing = false;
  /** Render quanta spent waiting for the prebuffer to fill. */
  private waited = 0;
  private clearing = false;
  private itemId: string | null = null;
  private itemPlayed = 0;
  private sinceReport = 0;
  private sumSquares = 0;
  private gain = 0;
  private prebuffer = PREBUFFER_START;
  /** The item whose audio ran out last; more audio for it means the queue ran dry too early. */
  private drainedItem: string | null = null;
  private readonly maxQueued: number;

  constructor(options?: { processorOptions?: PlaybackOptions }) {
    super();
    const maxMs = options?.processorOptions?.maxQueuedMs;
    this.maxQueued = maxMs ? Math.round(maxMs * SAMPLES_PER_MS) : Number.POSITIVE_INFINITY;
    this.port.onmessage = (event: MessageEvent<PlaybackWorkletMessage>) => {
      const message = event.data;
      if (message.type === "clear") {
        this.clearing = true;
        return;
      }
      // PCM16 little-endian; every platform a browser runs on is little-endian too.
      const samples = new Int16Array(message.pcm, 0, message.pcm.byteLength >> 1);
      if (samples.length === 0) return;
      if (message.itemId === this.drainedItem && !this.playing) this.prebuffer = Math.min(PREBUFFER_MAX, this.prebuffer + PREBUFFER_STEP);
      this.drainedItem = null;
      this.queue.push({ itemId: message.itemId, samples, offset: 0 });
      this.queued += samples.length;
      this.trim();
    };
  }

  /** Drops the oldest queued audio beyond the cap (live streams only). */
  private trim(): void {
    while (this.queued > this.maxQueued) {
      const chunk = this.queue[0]!;
      const drop = Math.min(this.queued - this.maxQueued, chunk.samples.length - chunk.offset);
      chunk.offset += drop;
      this.queued -= drop;
      if (chunk.offset >= chunk.samples.length) this.queue.shift();
    }
  }

  private report(): void {
    if (this.itemId === null) return;
    const level = this.sinceReport > 0 ? Math.sqrt(this.sumSquares / this.sinceReport) : 0;
    const message: PlaybackReport = { type: "played", itemId: this.itemId, playedMs: this.itemPlayed / SAMPLES_PER_MS, level, playing: this.playing };
    this.port.postMessage(message);
    this.sinceReport = 0;
    this.sumSquares = 0;
  }

  /** The next queued sample, moving the per-item accounting along. */
  private next(): number {
    const chunk = this.queue[0];
    if (!chunk) return 0;
    if (chunk.itemId !== this.itemId) {
      // The previous item has played all it will: report its final figure first.
      this.report();
      this.itemId = chunk.itemId;
      this.itemPlayed = 0;
    }
    const value = (chunk.samples[chunk.offset] ?? 0) / 0x8000;
    chunk.offset += 1;
    this.queued -= 1;
    this.itemPlayed += 1;
    if (chunk.offset >= chunk.samples.length) this.queue.shift();
    return value;
  }

  process(_inputs: Float32Array[][], outputs: Float32Array[][]): boolean {
    const out = outputs[0]?.[0];
    if (!out) return true;
    const n = out.length;

    if (this.clearing) {
      this.clearing = false;
      if (this.playing) {
        // Fade what is left of this quantum to silence, then drop the rest of the queue.
        for (let i = 0; i < n; i += 1) {
          const fade = Math.max(0, 1 - i / Math.min(RAMP_SAMPLES, n));
          out[i] = this.queued > 0 ? this.next() * this.gain * fade : 0;
        }
      } else out.fill(0);
      this.queue.length = 0;
      this.queued = 0;
      this.playing = false;
      this.gain = 0;
      this.waited = 0;
      this.report();
      return true;
    }

    if (!this.playing) {
      if (this.queued === 0) {
        out.fill(0);
        return true;
      }
      this.waited += 1;
      // The prebuffer's worth of audio, or as long waiting for it: whichever comes first.
      if (this.queued < this.prebuffer && this.waited * n < this.prebuffer) {
        out.fill(0);
        return true;
      }
      this.playing = true;
      this.waited = 0;
    }

    const available = this.queued;
    for (let i = 0; i < n; i += 1) {
      // Ramp down over the last samples before running dry, up again when restarting.
      const remaining = available - i;
      const target = remaining > RAMP_SAMPLES ? 1 : Math.max(0, remaining / RAMP_SAMPLES);
      this.gain = target < this.gain ? target : Math.min(target, this.gain + 1 / RAMP_SAMPLES);
      const sample = i < available ? this.next() * this.gain : 0;
      out[i] = sample;
      this.sumSquares += sample * sample;
    }
    const played = Math.min(n, available);
    this.sinceReport += played;
    if (this.queued === 0) {
      this.playing = false;
      this.gain = 0;
      this.drainedItem = this.itemId;
      this.report();
    } else if (this.sinceReport >= REPORT_EVERY_SAMPLES) this.report();
    return true;
  }
}

registerProcessor("playback-processor", PlaybackProcessor);
