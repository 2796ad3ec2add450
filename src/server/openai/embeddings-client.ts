/**
 * OpenAI's embeddings API (`POST {OPENAI_BASE_URL}/embeddings`), for the knowledge bases: a batch
 * of texts in, one vector each out, in order. Like the Responses client, one request per call:
 * retrying is the caller's (a durable job with backoff), and failures are `ResponsesError`s with
 * the same `retryable` and `retryAfterMs`.
 */
import { errorOf, ResponsesError } from "./responses-client.ts";

export interface EmbeddingsClientOptions {
  baseUrl: string;
  apiKey: string;
  model: string;
  /** Asked of the model (text-embedding-3-* shorten their vectors); the answer must match. */
  dimensions: number;
  timeoutMs?: number;
}

export interface EmbeddingsResult {
  vectors: Float32Array[];
  tokens: number;
}

interface RawEmbeddings {
  data?: Array<{ index?: number; embedding?: unknown }>;
  usage?: { prompt_tokens?: number; total_tokens?: number };
}

/** The API takes at most 2,048 inputs per request; fewer keep each request well under its token cap. */
export const EMBEDDING_BATCH = 256;

export function createEmbeddingsClient(options: EmbeddingsClientOptions) {
  const url = `${options.baseUrl.replace(/\/+$/, "")}/embeddings`;
  const timeoutMs = options.timeoutMs ?? 30_000;

  /** The API's answer to `input`, its body as bytes, not yet read. */
  async function answer(input: string[], signal?: AbortSignal): Promise<ArrayBuffer> {
    const timeout = AbortSignal.timeout(timeoutMs);
    try {
      const res = await fetch(url, {
        method: "POST",
        headers: { authorization: `Bearer ${options.apiKey}`, "content-type": "application/json" },
        // Each vector as its float32 bytes in base64 (as OpenAI's own SDK asks): a quarter of the
        // JSON's size, and no thousands of numbers to parse.
        body: JSON.stringify({ model: options.model, input, dimensions: options.dimensions, encoding_format: "base64" }),
        signal: signal ? AbortSignal.any([signal, timeout]) : timeout,
      });
      if (!res.ok) throw await errorOf(res);
      return await res.arrayBuffer();
    } catch (err) {
      if (err instanceof ResponsesError) throw err;
      if (timeout.aborted) throw new ResponsesError(`The embeddings API did not answer within ${Math.round(timeoutMs / 1000)} s`, "timeout", 0, true);
      if (signal?.aborted) throw new ResponsesError("The request was cancelled", "aborted", 0, false);
      throw new ResponsesError(`The embeddings API could not be reached: ${(err as Error).message}`, "network_error", 0, true);
    }
  }

  return {
    async embed(input: string[], signal?: AbortSignal): Promise<EmbeddingsResult> {
      if (input.length === 0) return { vectors: [], tokens: 0 };
      return vectorsOf(await answer(input, signal), input.length, options.dimensions);
    },
  };
}

export type EmbeddingsClient = ReturnType<typeof createEmbeddingsClient>;

/** The vectors of an answer to `count` texts, in the texts' order; a `ResponsesError` ("invalid_output") for an answer that is not that. */
function vectorsOf(body: ArrayBuffer, count: number, dimensions: number): EmbeddingsResult {
  let raw: RawEmbeddings;
  try {
    raw = JSON.parse(new TextDecoder().decode(body)) as RawEmbeddings;
  } catch {
    // Cut short on the way, as often as not: asked again.
    throw new ResponsesError("The embeddings API answered something that is not JSON", "invalid_output", 200, true);
  }
  const vectors: Array<Float32Array | undefined> = Array.from({ length: count });
  for (const [i, item] of (raw.data ?? []).entries()) {
    const at = item.index ?? i;
    // A compatible server that ignores the format answers numbers: taken as they come.
    const v = typeof item.embedding === "string" ? fromBase64(item.embedding) : Array.isArray(item.embedding) && item.embedding.every((x) => typeof x === "number") ? Float32Array.from(item.embedding as number[]) : null;
    if (!v || v.length !== dimensions || !v.every(Number.isFinite)) {
      throw new ResponsesError(`The embeddings API answered a vector of the wrong shape (expected ${dimensions} numbers)`, "invalid_output", 200, false);
    }
    if (at >= 0 && at < count) vectors[at] = v;
  }
  for (let i = 0; i < count; i++) {
    if (vectors[i] === undefined) throw new ResponsesError("The embeddings API answered fewer vectors than texts", "invalid_output", 200, true);
  }
  return { vectors: vectors as Float32Array[], tokens: raw.usage?.total_tokens ?? raw.usage?.prompt_tokens ?? 0 };
}

/** A vector's little-endian float32 bytes, base64-encoded (null when the bytes are not whole floats). */
function fromBase64(text: string): Float32Array | null {
  const bytes = Buffer.from(text, "base64");
  if (bytes.length % 4 !== 0) return null;
  // Copied into a buffer of its own (a view needs its offset aligned to 4; Buffer's pool does not
  // promise it), read in the machine's byte order: little-endian on x86-64 and ARM, as on the wire.
  const floats = new Float32Array(bytes.length / 4);
  new Uint8Array(floats.buffer).set(bytes);
  return floats;
}
