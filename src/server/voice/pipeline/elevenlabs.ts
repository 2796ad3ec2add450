/**
 * ElevenLabs streaming speech (`POST {base}/v1/text-to-speech/{voice_id}/stream`), the
 * pipeline's voice: `xi-api-key` header, `{ text, model_id }` body, and `output_format` chosen to
 * be the call's own (`ulaw_8000` for phone calls, `pcm_24000` for the browser), so the audio
 * goes to the caller as it comes, with no transcoding. The body streams the raw audio.
 */
import type { CallAudioFormat } from "../audio.ts";
import { frameAligner, speechRefusal } from "./speech-stream.ts";
import { postStreaming } from "./streaming-post.ts";

export interface SpeechRequest {
  baseUrl: string;
  apiKey: string;
  voice: string;
  model?: string | null;
  format: CallAudioFormat;
  text: string;
  signal: AbortSignal;
  onAudio(bytes: Uint8Array): void;
}

const DEFAULT_MODEL = "eleven_flash_v2_5";

export async function speak(r: SpeechRequest): Promise<void> {
  const format = r.format === "audio/pcmu" ? "ulaw_8000" : "pcm_24000";
  const url = `${r.baseUrl.replace(/\/+$/, "")}/v1/text-to-speech/${encodeURIComponent(r.voice)}/stream?output_format=${format}`;
  const res = await postStreaming(url, { "content-type": "application/json", "xi-api-key": r.apiKey }, JSON.stringify({ text: r.text, model_id: r.model || DEFAULT_MODEL }), r.signal, {
    // Billed by the characters sent, not the audio read: a barge-in's rest is drained, keeping the connection.
    drainOnAbort: true,
  });
  if (!res.ok) throw await speechRefusal(res);
  // 16-bit PCM must reach the caller in whole samples: an odd byte waits for the next chunk.
  const whole = frameAligner(r.format === "audio/pcm" ? 2 : 1);
  for await (const chunk of res.body) {
    const bytes = whole(chunk);
    if (bytes.length > 0) r.onAudio(bytes);
  }
}
