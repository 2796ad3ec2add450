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
 * Memory stays flat whatever the length of the call: each channel's samples from the last
 * handed-over point on are in one preallocated buffer (grown only when an assistant reply
 * arrives far ahead of its playing). `take(upTo)` hands over the finished part of the timeline
 * as interleaved stereo PCM (the WAV's data) and moves the rest to the buffer's start; the
 * session streams that to storage (recording-stream.ts) and keeps only the last seconds, which a
 * barge-in may still cut. A cut moves the channel's end (and silences what was after it); cuts
 * and late audio before the handed-over point are clamped to it.
 *
 * A phone call's channels (8 kHz) hold µ-law codes, as the audio travels: its base64 text is
 * decoded straight into the buffer (no array per 20 ms frame) and turned into PCM only when a
 * slice is written out, in bulk. A supervisor's PCM in a phone call is held as the µ-law the
 * caller heard.
 */
import { PCMU_SAMPLE_RATE, WAV_HEADER_BYTES, mulawToPcm16, pcm16ToMulaw, silentStereoWav, wireByteLength, writeWavChannel } from "./audio.ts";

/** PCM16 samples, or base64 µ-law text (one sample per byte) as a phone call carries it. */
/** PCM16 samples, or a phone call's µ-law: as its base64 text or as its bytes (one byte a sample). */
export type RecordedAudio = Int16Array | string | Buffer;

const CALLER_JITTER_MS = 250;
/** Beyond this a WAV's 32-bit sizes would overflow at 24 kHz stereo; far beyond any real call. */
const MAX_RECORDING_MS = 6 * 60 * 60_000;
/** Each channel's buffer at first: the seconds a call holds between hand-overs (recording-stream.ts), with room to spare. */
const INITIAL_SECONDS = 10;

/** `length` samples of one provider item (or supervisor turn) placed back to back from `start`. */
interface Run {
  tag: string;
  start: number;
  length: number;
}

const sampleCount = (audio: RecordedAudio) => (typeof audio === "string" ? wireByteLength(audio) : audio.length);

/** µ-law's code for silence (it decodes to 0). */
const MULAW_SILENCE = 0xff;

class Track {
  /** Sample `p` of the timeline is `samples[p - floor]` (µ-law codes or PCM16); everything from `end` on is silence. */
  private samples: Buffer | Int16Array;
  private readonly silence: number;
  /** Samples before this were handed over (take) and are gone. */
  floor = 0;
  /** Where the audio held ends. */
  end = 0;
  /** Where the next audio goes at the earliest. */
  cursor = 0;
  /** The tagged runs not yet wholly handed over, in timeline order (a few per item, not one per frame). */
  private readonly runs: Run[] = [];
  /** Samples of each tagged item handed over already, so a later cut still counts from its start. */
  private readonly takenOfTag = new Map<string, number>();

  constructor(
    private readonly mulaw: boolean,
    capacity: number,
  ) {
    this.silence = mulaw ? MULAW_SILENCE : 0;
    this.samples = this.allocate(capacity);
  }

  private allocate(capacity: number): Buffer | Int16Array {
    return this.mulaw ? Buffer.alloc(capacity, MULAW_SILENCE) : new Int16Array(capacity);
  }

  place(audio: RecordedAudio, length: number, start: number, tag?: string): void {
    let skip = 0;
    if (start < this.floor) {
      // Arrived after its place on the timeline was written out: keep only the rest.
      skip = Math.min(length, this.floor - start);
      length -= skip;
      start = this.floor;
      if (length === 0) return;
    }
    const at = start - this.floor;
    if (at + length > this.samples.length) this.grow(at + length);
    this.write(at, audio, skip, length);
    if (tag !== undefined) {
      const last = this.runs[this.runs.length - 1];
      if (last && last.tag === tag && last.start + last.length === start) last.length += length;
      else this.runs.push({ tag, start, length });
    }
    this.end = Math.max(this.end, start + length);
    this.cursor = start + length;
  }

  /** Samples `skip`..`skip + length` of `audio` at index `at`. */
  private write(at: number, audio: RecordedAudio, skip: number, length: number): void {
    const target = this.samples;
    if (target instanceof Int16Array) {
      const pcm = typeof audio === "string" ? mulawToPcm16(Buffer.from(audio, "base64")) : Buffer.isBuffer(audio) ? mulawToPcm16(audio) : audio;
      target.set(pcm.subarray(skip, skip + length), at);
    } else if (Buffer.isBuffer(audio)) {
      target.set(audio.subarray(skip, skip + length), at);
    } else if (typeof audio !== "string") {
      target.set(pcm16ToMulaw(audio.subarray(skip, skip + length)), at);
    } else if (skip === 0) {
      // The hot path: a phone frame's base64 decoded straight into place.
      target.write(audio, at, length, "base64");
    } else {
      target.set(Buffer.from(audio, "base64").subarray(skip, skip + length), at);
    }
  }

  private grow(needed: number): void {
    const bigger = this.allocate(Math.max(needed, this.samples.length * 2));
    bigger.set(this.samples.subarray(0, this.end - this.floor));
    this.samples = bigger;
  }

  /** Drop every sample at or after `position` (never before what was handed over). */
  cutAt(position: number): void {
    const at = Math.max(this.floor, Math.floor(position));
    if (at < this.end) {
      this.samples.fill(this.silence, at - this.floor, this.end - this.floor);
      this.end = at;
    }
    while (this.runs.length > 0) {
      const last = this.runs[this.runs.length - 1]!;
      if (last.start >= at) this.runs.pop();
      else {
        last.length = Math.min(last.length, at - last.start);
        break;
      }
    }
    this.cursor = Math.min(this.cursor, at);
  }

  /** Where the first `keep` samples of item `tag` end on the timeline, or null when it has fewer. */
  positionInItem(tag: string, keep: number): number | null {
    keep -= this.takenOfTag.get(tag) ?? 0;
    if (keep < 0) return this.floor;
    for (const run of this.runs) {
      if (run.tag !== tag) continue;
      if (keep <= run.length) return run.start + keep;
      keep -= run.length;
    }
    return null;
  }

  /** Writes samples `from`..`to` of the timeline (from = floor) into channel `channel` of `wav`. */
  render(wav: Buffer, channel: 0 | 1, to: number): void {
    writeWavChannel(wav, channel, 0, this.samples.subarray(0, Math.max(0, Math.min(this.end, to) - this.floor)));
  }

  /** Forget every sample before `position` (they were written out). */
  dropBefore(position: number): void {
    if (position <= this.floor) return;
    const shift = position - this.floor;
    const held = this.end - this.floor;
    if (shift < held) this.samples.copyWithin(0, shift, held);
    this.samples.fill(this.silence, Math.max(0, held - shift), held);
    let drop = 0;
    for (const run of this.runs) {
      if (run.start >= position) break;
      const taken = Math.min(run.length, position - run.start);
      this.takenOfTag.set(run.tag, (this.takenOfTag.get(run.tag) ?? 0) + taken);
      if (taken < run.length) {
        run.start += taken;
        run.length -= taken;
        break;
      }
      drop += 1;
    }
    this.runs.splice(0, drop);
    this.floor = position;
    this.end = Math.max(this.end, position);
    this.cursor = Math.max(this.cursor, position);
  }
}

export class CallRecorder {
  private readonly caller: Track;
  private readonly assistant: Track;
  private readonly maxSamples: number;

  constructor(readonly sampleRate: number) {
    this.maxSamples = Math.round((MAX_RECORDING_MS * sampleRate) / 1000);
    const mulaw = sampleRate === PCMU_SAMPLE_RATE;
    this.caller = new Track(mulaw, INITIAL_SECONDS * sampleRate);
    this.assistant = new Track(mulaw, INITIAL_SECONDS * sampleRate);
  }

  private toSamples(ms: number): number {
    return Math.max(0, Math.round((ms * this.sampleRate) / 1000));
  }

  /** Caller audio that arrived `receivedAtMs` after the call started. */
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
    const at = this.assistant.positionInItem(itemId, this.toSamples(playedMs));
    // null: the item played in full (or never reached the recorder), nothing to cut.
    if (at !== null) this.assistant.cutAt(at);
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
    const slice = this.render(to).subarray(WAV_HEADER_BYTES);
    this.caller.dropBefore(to);
    this.assistant.dropBefore(to);
    return slice;
  }

  /** A WAV of the timeline from the handed-over point to `to`. */
  private render(to: number): Buffer {
    const wav = silentStereoWav(to - this.caller.floor, this.sampleRate);
    this.caller.render(wav, 0, to);
    this.assistant.render(wav, 1, to);
    return wav;
  }

  /** What has not been taken yet, as a whole WAV, leaving the recorder as it is (tests). */
  toWav(): Buffer {
    return this.render(Math.max(this.taken, this.frames));
  }
}
