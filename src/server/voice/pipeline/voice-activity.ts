/**
 * Voice activity on the caller's audio: Silero's per-window probabilities (silero-vad.ts) turned
 * into the start and the end of speech. Hysteresis keeps a word's quiet consonants inside it
 * (speech starts at ≥ 0.5 and stops below 0.35); speech must last `minSpeechMs` before it counts
 * (a cough or a click does not interrupt the assistant) and a pause must last `minSilenceMs`
 * before the turn is over.
 */
import { downsample24to8, type CallAudioFormat, decodeToPcm16, type WireAudio } from "../audio.ts";
import { SileroStream, VAD_WINDOW_MS } from "./silero-vad.ts";

export interface VoiceActivityOptions {
  format: CallAudioFormat;
  startThreshold?: number;
  stopThreshold?: number;
  minSpeechMs?: number;
  minSilenceMs?: number;
}

export interface VoiceActivityHandlers {
  /** Speech has lasted `minSpeechMs`; `startMs` is where it began in the call's audio. */
  speechStarted(startMs: number): void;
  /** `minSilenceMs` of silence followed speech; `endMs` is where the speech stopped. */
  speechStopped(endMs: number): void;
  /** The model could not run (its file missing, say): the pipeline goes on without it. */
  failed?(err: unknown): void;
}

export const VAD_DEFAULTS = { startThreshold: 0.5, stopThreshold: 0.35, minSpeechMs: 250, minSilenceMs: 500 } as const;

export class VoiceActivity {
  private readonly stream = new SileroStream();
  private readonly o: Required<VoiceActivityOptions>;
  /**
   * Audio that came while the model judged the previous push: sent as one push when that one is
   * judged (the state carries over, so one push is out at a time). A late loop then costs one round
   * trip to the worker, not one per 20 ms frame it held back.
   */
  private queued: Float32Array[] = [];
  private judging = false;
  private idleWaiters: Array<() => void> = [];
  private atMs = 0;
  private speaking = false;
  /** Where a candidate start began (not yet long enough), or null. */
  private candidate: number | null = null;
  /** Where the current silence within speech began, or null. */
  private quietSince: number | null = null;
  private stopped = false;

  constructor(options: VoiceActivityOptions, private readonly h: VoiceActivityHandlers) {
    this.o = { ...VAD_DEFAULTS, ...options };
  }

  get inSpeech(): boolean {
    return this.speaking;
  }

  /** The caller's wire audio, as it arrives. */
  push(audio: WireAudio): void {
    if (this.stopped) return;
    const pcm = decodeToPcm16(this.o.format, audio);
    const at8k = this.o.format === "audio/pcm" ? downsample24to8(pcm) : pcm;
    const samples = new Float32Array(at8k.length);
    for (let i = 0; i < at8k.length; i += 1) samples[i] = at8k[i]! / 32768;
    this.queued.push(samples);
    if (!this.judging) this.judgeQueued();
  }

  /** Settles once every window pushed so far has been judged. */
  idle(): Promise<void> {
    if (!this.judging) return Promise.resolve();
    return new Promise((resolve) => this.idleWaiters.push(resolve));
  }

  close(): void {
    this.stopped = true;
    this.stream.close();
  }

  private judgeQueued(): void {
    const parts = this.queued;
    this.queued = [];
    let samples = parts[0]!;
    if (parts.length > 1) {
      samples = new Float32Array(parts.reduce((n, part) => n + part.length, 0));
      let at = 0;
      for (const part of parts) {
        samples.set(part, at);
        at += part.length;
      }
    }
    this.judging = true;
    this.stream
      .push(samples)
      .then((probabilities) => {
        // A handler that throws here stops the detector as a failed model does (not unhandled).
        for (const p of probabilities) this.onWindow(p);
      })
      .then(
        () => (this.queued.length > 0 && !this.stopped ? this.judgeQueued() : this.settle()),
        (err: unknown) => {
          if (!this.stopped) {
            this.stopped = true;
            this.h.failed?.(err);
          }
          this.settle();
        },
      );
  }

  private settle(): void {
    this.judging = false;
    this.queued = [];
    for (const resolve of this.idleWaiters.splice(0)) resolve();
  }

  private onWindow(p: number): void {
    const start = this.atMs;
    this.atMs += VAD_WINDOW_MS;
    if (this.stopped) return;
    if (!this.speaking) {
      if (this.candidate === null ? p >= this.o.startThreshold : p >= this.o.stopThreshold) {
        this.candidate ??= start;
        if (this.atMs - this.candidate >= this.o.minSpeechMs) {
          this.speaking = true;
          this.quietSince = null;
          this.h.speechStarted(this.candidate);
          this.candidate = null;
        }
      } else this.candidate = null;
      return;
    }
    if (p < this.o.stopThreshold) {
      this.quietSince ??= start;
      if (this.atMs - this.quietSince >= this.o.minSilenceMs) {
        this.speaking = false;
        const end = this.quietSince;
        this.quietSince = null;
        this.h.speechStopped(end);
      }
    } else if (p >= this.o.startThreshold) this.quietSince = null;
  }
}
