/**
 * Speech made outside a conversation, in the assistant's own voice, as µ-law 8 kHz for a phone:
 * the whisper briefing a SIP transfer plays to the person who answers (Twilio's path speaks it
 * with `<Say>`; over SIP the audio is ours to make). A pipeline assistant speaks through its
 * ElevenLabs voice (already µ-law); a Realtime assistant through OpenAI's speech endpoint
 * (`POST {OPENAI_BASE_URL}/audio/speech`, raw 24 kHz PCM16), brought down to 8 kHz here.
 */
import { pcm16FromBytes, pcm16ToMulaw } from "./audio.ts";
import { speak } from "./pipeline/elevenlabs.ts";

export type SpeechVoice =
  | { kind: "openai"; baseUrl: string; apiKey: string; voice: string }
  | { kind: "elevenlabs"; baseUrl: string; apiKey: string; voice: string; model: string | null };

/** OpenAI's speech model: it has every Realtime voice (alloy … cedar). */
export const OPENAI_SPEECH_MODEL = "gpt-4o-mini-tts";

export class SpeechFailed extends Error {}

/** `text` spoken, as raw µ-law 8 kHz. */
export async function speakMulaw(voice: SpeechVoice, text: string, signal: AbortSignal): Promise<Buffer> {
  if (voice.kind === "elevenlabs") {
    const parts: Uint8Array[] = [];
    await speak({ baseUrl: voice.baseUrl, apiKey: voice.apiKey, voice: voice.voice, model: voice.model, format: "audio/pcmu", text, signal, onAudio: (b) => parts.push(b) });
    return Buffer.concat(parts);
  }
  const res = await fetch(`${voice.baseUrl}/audio/speech`, {
    method: "POST",
    headers: { "content-type": "application/json", authorization: `Bearer ${voice.apiKey}` },
    body: JSON.stringify({ model: OPENAI_SPEECH_MODEL, voice: voice.voice, input: text, response_format: "pcm" }),
    signal,
  });
  if (!res.ok) {
    const body = (await res.json().catch(() => null)) as { error?: { message?: string } } | null;
    throw new SpeechFailed(`the speech service answered ${res.status}${body?.error?.message ? `: ${body.error.message}` : ""}`);
  }
  const pcm24k = pcm16FromBytes(new Uint8Array(await res.arrayBuffer()));
  return Buffer.from(pcm16ToMulaw(downsample24kTo8k(pcm24k)));
}

/**
 * Low-pass then keep every third sample. The filter (a Hamming-windowed sinc cut at 3.6 kHz)
 * keeps what a phone carries and removes what would fold back into it as noise.
 */
const TAPS = (() => {
  const n = 31;
  const cutoff = 3600 / 24_000;
  const taps = Float64Array.from({ length: n }, (_, i) => {
    const m = i - (n - 1) / 2;
    const sinc = m === 0 ? 2 * cutoff : Math.sin(2 * Math.PI * cutoff * m) / (Math.PI * m);
    return sinc * (0.54 - 0.46 * Math.cos((2 * Math.PI * i) / (n - 1)));
  });
  const sum = taps.reduce((a, b) => a + b, 0);
  return taps.map((t) => t / sum);
})();

export function downsample24kTo8k(samples: Int16Array): Int16Array {
  const out = new Int16Array(Math.floor(samples.length / 3));
  const half = (TAPS.length - 1) / 2;
  for (let o = 0; o < out.length; o += 1) {
    const centre = o * 3;
    let acc = 0;
    for (let t = 0; t < TAPS.length; t += 1) {
      const i = centre + t - half;
      if (i >= 0 && i < samples.length) acc += samples[i]! * TAPS[t]!;
    }
    out[o] = Math.max(-32768, Math.min(32767, Math.round(acc)));
  }
  return out;
}
