/**
 * The audio side of the live board: what a listening supervisor hears, and when the
 * supervisor who took over is speaking.
 *
 * ListenMixer: the call as the caller lives it — the caller's audio plus what the caller hears
 * (the assistant's, or the supervisor's who took over). Audio sent to the caller arrives from
 * the provider faster than real time and the caller's phone or browser plays it back to back;
 * the mixer replays it the same way, paced by the caller's own audio clock: every caller chunk
 * is mixed with as many samples of the queued "heard" audio and handed on at once (no extra
 * delay for the caller's frames). A barge-in's clear drops what was queued, as the caller's
 * player does. When the caller sends nothing (a muted browser), a 20 ms ticker plays the queue
 * alone, so the supervisor still hears the assistant.
 *
 * Everything is PCM16 mono at the call's sample rate (8 kHz phone, 24 kHz browser): the
 * session already decodes both sides for the recording, so nothing is decoded twice.
 */
import { pcm16ToBytes } from "./audio.ts";

export const MIX_FRAME_MS = 20;
/** No caller audio for this long: the ticker takes over the pacing. */
const CALLER_QUIET_MS = 100;
/** At most this much queued "heard" audio (a runaway provider must not grow memory). */
const MAX_QUEUED_MS = 120_000;

export interface MixedFrames {
  /** Caller and heard audio summed (clipped to 16 bits). */
  mixed: Buffer;
  /** The caller alone (for the supervisor who took over: no echo of their own voice). */
  caller: Buffer;
}

export class ListenMixer {
  private readonly queue: Int16Array[] = [];
  private queued = 0;
  private lastCallerAt: number;
  private lastIdleAt: number;
  private readonly maxQueued: number;

  constructor(
    private readonly sampleRate: number,
    private readonly now: () => number = () => performance.now(),
  ) {
    this.lastCallerAt = this.lastIdleAt = now();
    this.maxQueued = (MAX_QUEUED_MS * sampleRate) / 1000;
  }

  /** Audio the caller is sent (assistant or supervisor): heard after what is already queued. */
  heard(samples: Int16Array): void {
    if (samples.length === 0 || this.queued + samples.length > this.maxQueued) return;
    this.queue.push(samples);
    this.queued += samples.length;
  }

  /** Barge-in (or take-over): the caller's player dropped everything not yet played. */
  clear(): void {
    this.queue.length = 0;
    this.queued = 0;
  }

  /** A chunk of the caller's audio: mixed with the same duration of heard audio. */
  caller(samples: Int16Array): MixedFrames {
    this.lastCallerAt = this.lastIdleAt = this.now();
    const mixed = new Int16Array(samples.length);
    mixed.set(samples);
    this.addPlayed(mixed);
    return { mixed: pcm16ToBytes(mixed), caller: pcm16ToBytes(samples) };
  }

  /** Ticker: while the caller is quiet, the heard audio alone (silence when there is none), in whole 20 ms frames. */
  idle(): Buffer[] {
    const now = this.now();
    if (now - this.lastCallerAt < CALLER_QUIET_MS) return [];
    // A stalled timer does not make the supervisor wait for a burst: at most 200 ms are caught up.
    const due = Math.min(Math.floor((now - this.lastIdleAt) / MIX_FRAME_MS), 10);
    if (due <= 0) return [];
    this.lastIdleAt = Math.max(this.lastIdleAt + due * MIX_FRAME_MS, now - MIX_FRAME_MS);
    const frameSamples = (MIX_FRAME_MS * this.sampleRate) / 1000;
    return Array.from({ length: due }, () => {
      const frame = new Int16Array(frameSamples);
      this.addPlayed(frame);
      return pcm16ToBytes(frame);
    });
  }

  /** Adds (clipping) the next `into.length` samples of the heard queue, which are then played. */
  private addPlayed(into: Int16Array): void {
    let at = 0;
    while (at < into.length && this.queue.length > 0) {
      const head = this.queue[0]!;
      const take = Math.min(head.length, into.length - at);
      for (let i = 0; i < take; i += 1) {
        const sum = into[at + i]! + head[i]!;
        into[at + i] = sum > 32767 ? 32767 : sum < -32768 ? -32768 : sum;
      }
      at += take;
      this.queued -= take;
      if (take === head.length) this.queue.shift();
      else this.queue[0] = head.subarray(take);
    }
  }
}

/**
 * A plain energy detector for the voice of the supervisor who took over: our provider session
 * transcribes one input stream (the caller's), so the supervisor's words cannot be transcribed;
 * each utterance is only noted ("Supervisor spoke"). An utterance starts after `minSpeechMs` of
 * frames louder than `thresholdRms` and ends after `hangoverMs` below it.
 */
export class SpeechDetector {
  private speaking = false;
  private voicedMs = 0;
  private quietMs = 0;
  utterances = 0;

  constructor(
    private readonly sampleRate: number,
    private readonly onUtterance: () => void,
    private readonly options = { thresholdRms: 600, minSpeechMs: 120, hangoverMs: 700 },
  ) {}

  push(samples: Int16Array): void {
    if (samples.length === 0) return;
    let energy = 0;
    for (let i = 0; i < samples.length; i += 1) energy += samples[i]! * samples[i]!;
    const rms = Math.sqrt(energy / samples.length);
    const ms = (samples.length * 1000) / this.sampleRate;
    if (rms >= this.options.thresholdRms) {
      this.quietMs = 0;
      this.voicedMs += ms;
      if (!this.speaking && this.voicedMs >= this.options.minSpeechMs) {
        this.speaking = true;
        this.utterances += 1;
        this.onUtterance();
      }
      return;
    }
    this.quietMs += ms;
    if (this.quietMs >= this.options.hangoverMs) {
      this.speaking = false;
      this.voicedMs = 0;
    }
  }
}
