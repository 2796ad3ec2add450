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
 * Memory stays flat whatever the length of the call: `take(upTo)` hands over the finished
 * part of the timeline as interleaved stereo PCM (the WAV's data) and forgets it; the session
 * streams that to storage (recording-stream.ts) and keeps only the last seconds, which a
 * barge-in may still cut. Cuts and late audio before the handed-over point are clamped to it.
 *
 * A phone call's audio is kept as the base64 µ-law text it travelled in and decoded only when
 * its part of the timeline is written out (`take`), straight into the WAV: no sample array per
 * 20 ms frame. A cut or a hand-over moves a segment's offset and length, never its data.
 */
import { WAV_HEADER_BYTES, silentStereoWav, wireByteLength, writeWavChannel, writeWavChannelMulaw } from "./audio.ts";

/** PCM16 samples, or base64 µ-law text (one sample per byte) as a phone call carries it. */
export type RecordedAudio = Int16Array | string;

const CALLER_JITTER_MS = 250;
/** Beyond this a WAV's 32-bit sizes would overflow at 24 kHz stereo; far beyond any real call. */
const MAX_RECORDING_MS = 6 * 60 * 60_000;

interface Segment {
  start: number;
  /** The segment is `length` samples of `audio` from sample `offset`. */
  audio: RecordedAudio;
  offset: number;
  length: number;
  tag: string | undefined;
}

const sampleCount = (audio: RecordedAudio) => (typeof audio === "string" ? wireByteLength(audio) : audio.length);

class Track {
  readonly segments: Segment[] = [];
  cursor = 0;

  place(audio: RecordedAudio, length: number, start: number, tag?: string): void {
    let offset = 0;
    if (start < this.floor) {
      // Arrived after its place on the timeline was written out: keep only the rest.
      offset = Math.min(length, this.floor - start);
      length -= offset;
      start = this.floor;
      if (length === 0) return;
    }
    this.segments.push({ start, audio, offset, length, tag });
    this.cursor = start + length;
  }

  /** Drop every sample at or after `position` (never before what was handed over). */
  cutAt(position: number): void {
    const at = Math.max(this.floor, Math.floor(position));
    while (this.segments.length > 0) {
      const last = this.segments[this.segments.length - 1]!;
      if (last.start >= at) {
        this.segments.pop();
        continue;
      }
      if (last.start + last.length > at) last.length = at - last.start;
      break;
    }
    this.cursor = Math.min(this.cursor, at);
  }

  get end(): number {
    const last = this.segments[this.segments.length - 1];
    return last ? last.start + last.length : this.floor;
  }

  /** Samples before this were handed over (take) and are gone. */
  floor = 0;
  /** Samples of each tagged item handed over already, so a later cut still counts from its start. */
  readonly takenOfTag = new Map<string, number>();

  /** Forget every sample before `position` (they were written out). */
  dropBefore(position: number): void {
    this.floor = Math.max(this.floor, position);
    let drop = 0;
    for (const segment of this.segments) {
      if (segment.start >= position) break;
      const taken = Math.min(segment.length, position - segment.start);
      if (segment.tag !== undefined) this.takenOfTag.set(segment.tag, (this.takenOfTag.get(segment.tag) ?? 0) + taken);
      if (taken === segment.length) {
        drop += 1;
      } else {
        segment.offset += taken;
        segment.length -= taken;
        segment.start += taken;
        break;
      }
    }
    this.segments.splice(0, drop);
    this.cursor = Math.max(this.cursor, this.floor);
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

  /** Caller audio that arrived `receivedAtMs` after the call started (kept as given: never changed afterwards). */
  addCaller(audio: RecordedAudio, receivedAtMs: number): void {
    const length = sampleCount(audio);
    if (length === 0) return;
    const capturedAt = this.toSamples(receivedAtMs) - length;
    const gap = capturedAt - this.caller.cursor;
    const start = gap > this.toSamples(CALLER_JITTER_MS) ? capturedAt : this.caller.cursor;
    if (start + length > this.maxSamples) return;
    this.caller.place(audio, length, start);
  }

  /** Assistant audio of provider item `itemId`, sent to the caller `sentAtMs` after the start. */
  addAssistant(audio: RecordedAudio, sentAtMs: number, itemId: string): void {
    const length = sampleCount(audio);
    if (length === 0) return;
    const start = Math.max(this.assistant.cursor, this.toSamples(sentAtMs));
    if (start + length > this.maxSamples) return;
    this.assistant.place(audio, length, start, itemId);
  }

  /**
   * Barge-in: the caller heard only the first `playedMs` of item `itemId`. Everything the
   * assistant channel holds after that point was flushed unplayed (including later items).
   */
  cutAssistantItem(itemId: string, playedMs: number): void {
    let keep = this.toSamples(playedMs) - (this.assistant.takenOfTag.get(itemId) ?? 0);
    if (keep < 0) {
      this.assistant.cutAt(this.assistant.floor);
      return;
    }
    for (const segment of this.assistant.segments) {
      if (segment.tag !== itemId) continue;
      if (keep <= segment.length) {
        this.assistant.cutAt(segment.start + keep);
        return;
      }
      keep -= segment.length;
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

  /** Length of the timeline so far (what the WAV will hold). */
  get frames(): number {
    return Math.max(this.caller.end, this.assistant.end);
  }

  get durationMs(): number {
    return (this.frames * 1000) / this.sampleRate;
  }

  /** Samples handed over by `take` so far. */
  get taken(): number {
    return this.caller.floor;
  }

  /** Timeline position of `ms` after the start, in samples. */
  positionOf(ms: number): number {
    return this.toSamples(ms);
  }

  /**
   * The WAV data (interleaved stereo PCM16 LE) from the last handed-over point up to `upTo`
   * samples, forgetting it; null when there is nothing new. Silence fills what neither side said.
   */
  take(upTo: number): Buffer | null {
    const from = this.caller.floor;
    const to = Math.min(Math.floor(upTo), this.maxSamples);
    if (to <= from) return null;
    const slice = this.render(from, to).subarray(WAV_HEADER_BYTES);
    this.caller.dropBefore(to);
    this.assistant.dropBefore(to);
    return slice;
  }

  /** A WAV of the timeline from `from` to `to` (writeWavChannel counts frames after the header). */
  private render(from: number, to: number): Buffer {
    const wav = silentStereoWav(to - from, this.sampleRate);
    for (const [track, channel] of [[this.caller, 0], [this.assistant, 1]] as const) {
      for (const segment of track.segments) {
        if (segment.start >= to) break;
        const end = segment.offset + Math.min(segment.length, to - segment.start);
        if (typeof segment.audio === "string") writeWavChannelMulaw(wav, channel, segment.start - from, segment.audio, segment.offset, end);
        else writeWavChannel(wav, channel, segment.start - from, segment.audio.subarray(segment.offset, end));
      }
    }
    return wav;
  }

  /** What has not been taken yet, as a whole WAV, leaving the recorder as it is (tests). */
  toWav(): Buffer {
    return this.render(this.taken, Math.max(this.taken, this.frames));
  }
}
