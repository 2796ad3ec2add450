import { ServiceError } from "./service-error.ts";
import type { StreamedAnswer } from "./streaming-post.ts";

/** What the pipeline's voices share: the refusal in plain words, and audio handed on in whole frames. */

export class SpeechError extends ServiceError {
  constructor(message: string, status = 0, detail = "") {
    super(message, "voice", status, detail);
  }
}

/** A voice's HTTP refusal, with the service's own words when its body has them. */
export async function speechRefusal(res: StreamedAnswer): Promise<SpeechError> {
  const body = (await res.json().catch(() => null)) as { detail?: { message?: string } | string; error?: { message?: string } | string; message?: string } | null;
  const detail = typeof body?.detail === "string" ? body.detail : (body?.detail?.message ?? (typeof body?.error === "string" ? body.error : (body?.error?.message ?? body?.message)));
  return new SpeechError(`the voice answered ${res.status}${detail ? `: ${detail}` : ""}`, res.status, detail ?? "");
}

/**
 * Audio must reach the caller (or a converter) in whole frames — a 16-bit sample, or the three
 * samples one µ-law sample is made of — so a chunk's tail waits for the next chunk.
 */
export function frameAligner(frameBytes: number): (chunk: Uint8Array) => Uint8Array {
  let carry = new Uint8Array(0);
  return (chunk) => {
    if (carry.length === 0 && chunk.length % frameBytes === 0) return chunk;
    let bytes = chunk;
    if (carry.length > 0) {
      bytes = new Uint8Array(carry.length + chunk.length);
      bytes.set(carry);
      bytes.set(chunk, carry.length);
    }
    const whole = bytes.length - (bytes.length % frameBytes);
    carry = bytes.slice(whole);
    return bytes.subarray(0, whole);
  };
}
