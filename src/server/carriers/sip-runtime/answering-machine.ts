/**
 * Who answered a call we placed, a person or an answering machine, told from what they send us
 * in the first seconds — the SIP side of Twilio's answering-machine detection (`DetectMessageEnd`),
 * with its defaults and its words (shared/outbound.ts `AnsweredBy`):
 *
 * - A person says something short ("Hello?") and waits: speech that ends (1.2 s of silence)
 *   before it has lasted 2.4 s is `human`.
 * - A machine plays a greeting: speech that goes on past 2.4 s (pauses under 1.2 s included) is
 *   `machine_start`. Its message's end is then waited for: the beep (a steady pure tone of at
 *   least 160 ms, reported once it stops) is `machine_end_beep`; 3 s of silence without one is
 *   `machine_end_silence`; 30 s from the answer without either is `machine_end_other`.
 * - 5 s of silence from the answer is `unknown` (someone who picks up and says nothing).
 *
 * Time is counted in the audio itself (20 ms frames as they arrive), so the verdict does not
 * depend on how busy the server is.
 */
import type { AnsweredBy } from "../../../shared/outbound.ts";
import { mulawToPcm16 } from "../../voice/audio.ts";
import { toneShare } from "../../voice/goertzel.ts";

const FRAME = 160;
const FRAME_MS = 20;
export const AMD = {
  speechThresholdMs: 2400,
  speechEndThresholdMs: 1200,
  silenceTimeoutMs: 5000,
  messageEndSilenceMs: 3000,
  timeoutMs: 30_000,
  beepMinMs: 160,
} as const;

/** A frame this loud (RMS of 16-bit samples, about −36 dBFS) is someone speaking, not line noise. */
const VOICE_RMS = 500;
/** A beep puts most of a frame's power in one frequency (speech spreads it over its harmonics). */
const TONE_SHARE = 0.8;
/** Beeps are between 400 Hz and 2.1 kHz; candidates every 25 Hz, each within 12.5 Hz of any tone. */
const BEEP_HZ = Array.from({ length: 69 }, (_, i) => 400 + i * 25);

export type Verdict = Exclude<AnsweredBy, "fax">;

type Phase = "waiting" | "speech" | "greeting" | "beep" | "done";

export class AnsweringMachineDetector {
  private phase: Phase = "waiting";
  private pending = Buffer.alloc(0);
  private ms = 0;
  private speechStartMs = 0;
  private lastVoiceMs = 0;
  private toneHz = 0;
  private toneMs = 0;

  /** `verdict` is told `machine_start` (maybe), then one final answer; nothing after that. */
  constructor(private readonly verdict: (answeredBy: Verdict) => void) {}

  get done(): boolean {
    return this.phase === "done";
  }

  /** µ-law audio from the far end, any length. */
  push(mulaw: Uint8Array): void {
    if (this.phase === "done") return;
    this.pending = this.pending.length ? Buffer.concat([this.pending, mulaw]) : Buffer.from(mulaw);
    let at = 0;
    for (; at + FRAME <= this.pending.length && !this.done; at += FRAME) this.frame(mulawToPcm16(this.pending.subarray(at, at + FRAME)));
    this.pending = this.pending.subarray(at);
  }

  private frame(samples: Int16Array) {
    this.ms += FRAME_MS;
    let power = 0;
    for (const s of samples) power += s * s;
    const voiced = Math.sqrt(power / samples.length) > VOICE_RMS;
    if (voiced) this.lastVoiceMs = this.ms;
    const silentMs = this.ms - this.lastVoiceMs;
    switch (this.phase) {
      case "waiting":
        if (voiced) {
          this.phase = "speech";
          this.speechStartMs = this.ms - FRAME_MS;
        } else if (this.ms >= AMD.silenceTimeoutMs) this.finish("unknown");
        return;
      case "speech":
        if (this.lastVoiceMs - this.speechStartMs >= AMD.speechThresholdMs) {
          this.phase = "greeting";
          this.verdict("machine_start");
        } else if (silentMs >= AMD.speechEndThresholdMs) this.finish("human");
        return;
      case "greeting":
      case "beep":
        return this.messageEnd(samples, voiced, silentMs);
    }
  }

  /** After a greeting: the beep (once it stops), a long silence, or the overall limit. */
  private messageEnd(samples: Int16Array, voiced: boolean, silentMs: number) {
    const hz = voiced ? pureToneOf(samples) : 0;
    if (hz && Math.abs(hz - this.toneHz) <= 25) this.toneMs += FRAME_MS;
    else this.toneMs = hz ? FRAME_MS : 0;
    this.toneHz = hz;
    if (this.toneMs >= AMD.beepMinMs) this.phase = "beep";
    else if (this.phase === "beep") return this.finish("machine_end_beep");
    if (this.phase === "greeting" && silentMs >= AMD.messageEndSilenceMs) return this.finish("machine_end_silence");
    if (this.ms >= AMD.timeoutMs) this.finish("machine_end_other");
  }

  /** The overall limit passed with no audio at all (one-way audio, a dead line): a verdict anyway. */
  timeout(): void {
    if (this.phase === "done") return;
    this.finish(this.phase === "greeting" || this.phase === "beep" ? "machine_end_other" : "unknown");
  }

  private finish(answeredBy: Verdict) {
    this.phase = "done";
    this.verdict(answeredBy);
  }
}

/** The frequency holding most of the frame's power (over the beep range), or 0 when none does. */
function pureToneOf(samples: Int16Array): number {
  let best = 0;
  let bestShare = 0;
  for (const hz of BEEP_HZ) {
    const share = toneShare(samples, 8000, hz);
    if (share > bestShare) {
      bestShare = share;
      best = hz;
    }
  }
  return bestShare >= TONE_SHARE ? best : 0;
}
