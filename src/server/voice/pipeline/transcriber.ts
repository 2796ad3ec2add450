/** The pipeline's ears: the transcriber a provider's protocol names, behind one shape. */
import type { CallAudioFormat } from "../audio.ts";
import { DeepgramTranscriber, type TranscriberHandlers } from "./deepgram.ts";
import { OpenAITranscriber } from "./openai-transcription.ts";

export interface Transcriber {
  readonly isOpen: boolean;
  connect(h: TranscriberHandlers): void;
  send(audio: Uint8Array): boolean;
  close(): void;
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
