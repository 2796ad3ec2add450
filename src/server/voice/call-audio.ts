/**
 * The call's audio stage, between the caller's transport and the provider: the one place that
 * knows the call's audio format and where each side's audio goes.
 *
 * - Caller → provider: a phone call's µ-law goes on as the base64 text it came in; a browser's
 *   PCM16 bytes are cut to whole samples. Until the provider session takes audio, it is kept
 *   (early-audio.ts) and sent first once it does.
 * - Provider → caller: a delta goes to the transport as it came (µ-law) or decoded once (PCM
 *   bytes); audio the transport refuses (backpressure) is neither recorded nor counted as sent,
 *   and the item stays known, so a barge-in truncates it at what was really sent.
 * - A supervisor's voice → caller (take-over), on its own item.
 * - Taps: the recording gets each chunk as it stands (phone audio stays base64 text or µ-law
 *   bytes until it is written out: no PCM16 made and thrown away per 20 ms frame); the live
 *   board's listeners get PCM16, decoded only while someone listens.
 */
import { decodeToPcm16, durationMsOf, encodeFromPcm16, sampleRateOf, wireByteLength, type CallAudioFormat, type WireAudio } from "./audio.ts";
import { EarlyAudio } from "./early-audio.ts";
import type { PlaybackLedger } from "./playback.ts";
import type { RealtimeProvider } from "./providers/openai-realtime.ts";
import type { CallRecorder } from "./recorder.ts";
import type { Transport } from "./seams.ts";
import type { CallSupervision } from "./supervision.ts";

/** Caller audio kept while the provider session is not ready yet. */
const EARLY_AUDIO_SECONDS = 10;

export interface CallAudioParts {
  transport: Transport;
  /** The call's current provider session (a renewal replaces it). */
  provider(): RealtimeProvider;
  /** Whether the provider session takes caller audio now (configured, call not ending). */
  providerTakesAudio(): boolean;
  recorder: CallRecorder;
  playback: PlaybackLedger;
  supervision: Pick<CallSupervision, "hearsAudio" | "callerAudio" | "assistantAudio">;
  /** Milliseconds since the call started (the recording's clock). */
  elapsed(): number;
}

/** A phone frame as the recorder takes it: the base64 text, or the µ-law bytes without a copy. */
function phoneAudio(audio: WireAudio): string | Buffer {
  if (typeof audio === "string" || Buffer.isBuffer(audio)) return audio;
  return Buffer.from(audio.buffer, audio.byteOffset, audio.byteLength);
}

export class CallAudio {
  readonly format: CallAudioFormat;
  /** µ-law 8 kHz, passed on as base64 text; otherwise a browser's PCM16 bytes. */
  private readonly phone: boolean;
  private readonly early: EarlyAudio;

  constructor(private readonly parts: CallAudioParts) {
    this.format = parts.transport.audioFormat;
    this.phone = this.format === "audio/pcmu";
    const bytesPerSample = this.format === "audio/pcm" ? 2 : 1;
    this.early = new EarlyAudio(EARLY_AUDIO_SECONDS * sampleRateOf(this.format) * bytesPerSample);
  }

  /** Audio from the caller, in the transport's format. */
  fromCaller(chunk: WireAudio): void {
    const { recorder, supervision } = this.parts;
    // PCM16 frames must hold whole samples, or every later sample is misread.
    const audio = typeof chunk !== "string" && !this.phone && chunk.length % 2 === 1 ? chunk.subarray(0, chunk.length - 1) : chunk;
    // Phone audio is recorded as it came in (text or bytes); a browser's is decoded once, for both taps.
    const recorded = this.phone ? phoneAudio(audio) : decodeToPcm16(this.format, audio);
    recorder.addCaller(recorded, this.parts.elapsed());
    if (supervision.hearsAudio) supervision.callerAudio(recorded instanceof Int16Array ? recorded : decodeToPcm16(this.format, audio));
    if (this.parts.providerTakesAudio()) this.parts.provider().appendAudio(audio);
    else this.early.push(audio);
  }

  /** The provider session takes audio now: what the caller said meanwhile goes first. */
  providerReady(): void {
    const early = this.early.take();
    if (early) this.parts.provider().appendAudio(early);
  }

  /** A base64 audio delta of the assistant's item `itemId`, already accepted for playback. */
  fromAssistant(itemId: string, base64: string): void {
    const { transport, playback, recorder, supervision } = this.parts;
    const audio = this.phone ? base64 : Buffer.from(base64, "base64");
    const sent = transport.sendAudio(itemId, audio);
    playback.sent(itemId, sent ? durationMsOf(this.format, wireByteLength(audio)) : 0);
    if (!sent) return;
    this.parts.provider().audioSent?.(itemId);
    const recorded = this.phone ? base64 : decodeToPcm16(this.format, audio);
    recorder.addAssistant(recorded, this.parts.elapsed(), itemId);
    if (supervision.hearsAudio) supervision.assistantAudio(typeof recorded === "string" ? decodeToPcm16(this.format, audio) : recorded);
  }

  /** No more audio will come for the assistant's item `itemId`. */
  assistantDone(itemId: string): void {
    this.parts.playback.audioDone(itemId);
    this.parts.transport.audioDone?.(itemId);
  }

  /**
   * A supervisor's voice (PCM16 at the call's rate) on item `itemId` of its own: the transport's
   * playback reports name no provider item, and the recording tags it apart.
   */
  fromSupervisor(itemId: string, samples: Int16Array): void {
    if (this.parts.transport.sendAudio(itemId, encodeFromPcm16(this.format, samples))) this.parts.recorder.addAssistant(samples, this.parts.elapsed(), itemId);
  }
}
