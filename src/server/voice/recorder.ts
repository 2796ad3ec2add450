/**
 * The call recording: caller on the left channel, assistant on the right, on one timeline
 * counted in samples from the start of the call.
 *
 * - Caller audio is placed as received: at its arrival time minus its own duration (it was
 *   captured over that span). Arrival jitter below `CALLER_JITTER_MS` is absorbed by placing
 *   the chunk right after the previous one, so the channel does not drift; longer silences
 *   (muted microphone, stalled network) stay silent.
 * - Assistant audio is placed when it is played. Both transports play it back to back in
 *   the order sent, starting as soon as it arrives, so a chunk starts at the later of its send
 *   time and the end of the previous chunk. What the caller never heard is cut away: on
 *   barge-in (`cutAssistantItem`, at the milliseconds the transport reports played) and at
 *   hang-up (`trimAssistant`, audio still queued when the call ended).
 *
 * The recorder keeps samples in memory (24 kHz: about 5.8 MB per stereo minute; 8 kHz:
 * about 1.9 MB) and renders the WAV once, when the call ends — a slice at a time, yielding in
 * between, because that runs on the thread carrying every other call's audio.
 */
import { silentStereoWav, writeWavChannel } from "./audio.ts";

const CALLER_JITTER_MS = 250;
/** The provider caps a session at 60 minutes; keep a margin, then stop growing. */
const MAX_RECORDING_MS = 65 * 60_000;
/** Samples written between two yields when rendering the WAV (a few milliseconds of work). */
const WAV_SLICE_SAMPLES = 1 << 18;

const yieldToEventLoop = () => new Promise<void>((resolve) => setImmediate(resolve));

interface Segment {
  start: number;
  samples: Int16Array;
  tag: string | undefined;
}

class Track {
  readonly segments: Segment[] = [];
  cursor = 0;

  place(samples: Int16Array, start: number, tag?: string): void {
    this.segments.push({ start, samples, tag });
    this.cursor = start + samples.length;
  }

  /** Drop every sample at or after `position`. */
  cutAt(position: number): void {
    const at = Math.max(0, Math.floor(position));
    while (this.segments.length > 0) {
      const last = this.segments[this.segments.length - 1]!;
      if (last.start >= at) {
        this.segments.pop();
        continue;
      }
      if (last.start + last.samples.length > at) last.samples = last.samples.subarray(0, at - last.start);
      break;
    }
    this.cursor = Math.min(this.cursor, at);
  }

  get end(): number {
    const last = this.segments[this.segments.length - 1];
    return last ? last.start + last.samples.length : 0;
  }

}

export class CallRecorder {
  private readonly caller = new Track();
  private readonly assistant = new Track();
  private readonly maxSamples: number;

  constructor(readonly sampleRate: number) {
    this.maxSamples = Math.round((MAX_RECORDING_MS * sampleRate) / 1000);
  }

  private toSamples(ms: number): number {
    return Math.max(0, Math.round((ms * this.sampleRate) / 1000));
  }

  /** Caller audio that arrived `receivedAtMs` after the call started. */
  addCaller(samples: Int16Array, receivedAtMs: number): void {
    if (samples.length === 0) return;
    const capturedAt = this.toSamples(receivedAtMs) - samples.length;
    const gap = capturedAt - this.caller.cursor;
    const start = gap > this.toSamples(CALLER_JITTER_MS) ? capturedAt : this.caller.cursor;
    if (start + samples.length > this.maxSamples) return;
    this.caller.place(samples, start);
  }

  /** Assistant audio of provider item `itemId`, sent to the caller `sentAtMs` after the start. */
  addAssistant(samples: Int16Array, sentAtMs: number, itemId: string): void {
    if (samples.length === 0) return;
    const start = Math.max(this.assistant.cursor, this.toSamples(sentAtMs));
    if (start + samples.length > this.maxSamples) return;
    this.assistant.place(samples, start, itemId);
  }

  /**
   * Barge-in: the caller heard only the first `playedMs` of item `itemId`. Everything the
   * assistant channel holds after that point was flushed unplayed (including later items).
   */
  cutAssistantItem(itemId: string, playedMs: number): void {
    let keep = this.toSamples(playedMs);
    for (const segment of this.assistant.segments) {
      if (segment.tag !== itemId) continue;
      if (keep <= segment.samples.length) {
        this.assistant.cutAt(segment.start + keep);
        return;
      }
      keep -= segment.samples.length;
    }
    // The item played in full (or never reached the recorder): nothing to cut.
  }

  /** Hang-up: assistant audio scheduled after `endMs` was still queued and never heard. */
  trimAssistant(endMs: number): void {
    this.assistant.cutAt(this.toSamples(endMs));
  }

  get isEmpty(): boolean {
    return this.caller.end === 0 && this.assistant.end === 0;
  }

  get durationMs(): number {
    return (Math.max(this.caller.end, this.assistant.end) * 1000) / this.sampleRate;
  }

  /** The WAV in one go. */
  toWav(): Buffer {
    const wav = silentStereoWav(Math.max(this.caller.end, this.assistant.end), this.sampleRate);
    const steps = this.fill(wav);
    while (!steps.next().done);
    return wav;
  }

  /** The WAV, written a slice at a time with `pause()` (the next turn of the event loop) in between. */
  async toWavInSlices(pause: () => Promise<void> = yieldToEventLoop): Promise<Buffer> {
    const wav = silentStereoWav(Math.max(this.caller.end, this.assistant.end), this.sampleRate);
    const steps = this.fill(wav);
    while (!steps.next().done) await pause();
    return wav;
  }

  /** Writes both tracks into `wav`, stopping after every WAV_SLICE_SAMPLES samples. */
  private *fill(wav: Buffer): Generator<void> {
    let sinceStop = 0;
    for (const [track, channel] of [[this.caller, 0], [this.assistant, 1]] as const) {
      for (const segment of track.segments) {
        let at = 0;
        while (at < segment.samples.length) {
          const take = Math.min(segment.samples.length - at, WAV_SLICE_SAMPLES - sinceStop);
          writeWavChannel(wav, channel, segment.start + at, segment.samples.subarray(at, at + take));
          at += take;
          sinceStop += take;
          if (sinceStop >= WAV_SLICE_SAMPLES) {
            sinceStop = 0;
            yield;
          }
        }
      }
    }
  }
}
