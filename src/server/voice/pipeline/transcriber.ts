/** The pipeline's ears: the transcriber a provider's protocol names, behind one shape. */
import type { CallAudioFormat } from "../audio.ts";
import { DeepgramTranscriber, type TranscriberHandlers } from "./deepgram.ts";
import { OpenAITranscriber } from "./openai-transcription.ts";

export interface Transcriber {
  readonly isOpen: boolean;
  connect(h: TranscriberHandlers): void;
  send(audio: Uint8Array): boolean;
  close(): void;
  /** Seconds of audio the service says it received, where it says (Deepgram's closing report); else null. */
  reportedSeconds?(): number | null;
  /** Settles once a closed transcriber has said its last word (bounded by the transcriber). */
  drained?(): Promise<void>;
}

export interface TranscriberOptions {
  protocol?: "deepgram" | "openai-transcription";
  baseUrl: string;
  apiKey: string;
  format: CallAudioFormat;
  model: string | null;
  language: string | null;
}

export function createTranscriber(o: TranscriberOptions): Transcriber {
  return o.protocol === "openai-transcription" ? new OpenAITranscriber(o) : new DeepgramTranscriber(o);
}
