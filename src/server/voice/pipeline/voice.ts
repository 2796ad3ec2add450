/** The pipeline's voice: the speech service a provider's protocol names, behind one shape. */
import type { CallAudioFormat } from "../audio.ts";
import { CartesiaVoice } from "./cartesia.ts";
import { speak as speakElevenLabs } from "./elevenlabs.ts";
import { speakOpenAI } from "./openai-speech.ts";

export interface Voice {
  /** Voices one sentence, handing on its audio in the call's format as it comes; resolves when it is all out. */
  speak(text: string, signal: AbortSignal, onAudio: (bytes: Uint8Array) => void): Promise<void>;
  close(): void;
}

export interface VoiceOptions {
  protocol?: "elevenlabs" | "cartesia" | "openai-speech";
  baseUrl: string;
  apiKey: string;
  voice: string;
  model: string | null;
}

export function createVoice(o: VoiceOptions & { format: CallAudioFormat }): Voice {
  if (o.protocol === "cartesia") return new CartesiaVoice(o);
  const say = o.protocol === "openai-speech" ? speakOpenAI : speakElevenLabs;
  return { speak: (text, signal, onAudio) => say({ ...o, text, signal, onAudio }), close: () => {} };
}
