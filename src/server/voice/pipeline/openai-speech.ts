/**
 * Any OpenAI-compatible speech endpoint (`POST {base}/audio/speech`: OpenAI, Kokoro, Speaches…):
 * `Authorization: Bearer`, `{ model, input, voice, response_format: "pcm" }`. The body streams raw
 * 16-bit little-endian PCM at 24 kHz as it is made, which the browser takes as it is; a phone
 * call's is brought down to 8 kHz and µ-law as it streams, so the first audio is not held back.
 */
import { toCallAudio } from "../audio.ts";
import type { SpeechRequest } from "./elevenlabs.ts";
import { frameAligner, speechRefusal } from "./speech-stream.ts";
import { postStreaming } from "./streaming-post.ts";

const DEFAULT_MODEL = "gpt-4o-mini-tts";

export async function speakOpenAI(r: SpeechRequest): Promise<void> {
  const res = await postStreaming(
    `${r.baseUrl.replace(/\/+$/, "")}/audio/speech`,
    { "content-type": "application/json", authorization: `Bearer ${r.apiKey}` },
    JSON.stringify({ model: r.model || DEFAULT_MODEL, input: r.text, voice: r.voice, response_format: "pcm" }),
    r.signal,
  );
  if (!res.ok) throw await speechRefusal(res);
  // Whole samples for the browser; whole groups of three for the phone's 8 kHz.
  const whole = frameAligner(r.format === "audio/pcm" ? 2 : 6);
  for await (const chunk of res.body) {
    const bytes = whole(chunk);
    if (bytes.length > 0) r.onAudio(toCallAudio(r.format, bytes));
  }
}
