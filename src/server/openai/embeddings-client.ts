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
  vectors: number[][];
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
  return {
    async embed(input: string[], signal?: AbortSignal): Promise<EmbeddingsResult> {
      if (input.length === 0) return { vectors: [], tokens: 0 };
      const timeout = AbortSignal.timeout(timeoutMs);
      let raw: RawEmbeddings;
      try {
        const res = await fetch(url, {
          method: "POST",
          headers: { authorization: `Bearer ${options.apiKey}`, "content-type": "application/json" },
          // Each vector as its float32 bytes in base64 (as OpenAI's own SDK asks): a quarter of the
          // JSON's size, and no thousands of numbers to parse on the thread of the calls' audio.
          body: JSON.stringify({ model: options.model, input, dimensions: options.dimensions, encoding_format: "base64" }),
          signal: signal ? AbortSignal.any([signal, timeout]) : timeout,
        });
        if (!res.ok) throw await errorOf(res);
        raw = (await res.json()) as RawEmbeddings;
      } catch (err) {
        if (err instanceof ResponsesError) throw err;
        if (timeout.aborted) throw new ResponsesError(`The embeddings API did not answer within ${Math.round(timeoutMs / 1000)} s`, "timeout", 0, true);
        if (signal?.aborted) throw new ResponsesError("The request was cancelled", "aborted", 0, false);
        throw new ResponsesError(`The embeddings API could not be reached: ${(err as Error).message}`, "network_error", 0, true);
      }
      const vectors: Array<number[] | undefined> = Array.from({ length: input.length });
      for (const [i, item] of (raw.data ?? []).entries()) {
        const at = item.index ?? i;
        // A compatible server that ignores the format answers numbers: taken as they come.
        const v = typeof item.embedding === "string" ? fromBase64(item.embedding) : item.embedding;
        if (!Array.isArray(v) || v.length !== options.dimensions || !v.every((x) => typeof x === "number" && Number.isFinite(x))) {
          throw new ResponsesError(`The embeddings API answered a vector of the wrong shape (expected ${options.dimensions} numbers)`, "invalid_output", 200, false);
        }
        if (at >= 0 && at < input.length) vectors[at] = v as number[];
      }
      for (let i = 0; i < input.length; i++) {
        if (vectors[i] === undefined) throw new ResponsesError("The embeddings API answered fewer vectors than texts", "invalid_output", 200, true);
      }
      return { vectors: vectors as number[][], tokens: raw.usage?.total_tokens ?? raw.usage?.prompt_tokens ?? 0 };
    },
  };
}

export type EmbeddingsClient = ReturnType<typeof createEmbeddingsClient>;

/** A vector's little-endian float32 bytes, base64-encoded, as numbers (null when the bytes are not whole floats). */
function fromBase64(text: string): number[] | null {
  const bytes = Buffer.from(text, "base64");
  if (bytes.length % 4 !== 0) return null;
  return Array.from({ length: bytes.length / 4 }, (_, i) => bytes.readFloatLE(i * 4));
}
