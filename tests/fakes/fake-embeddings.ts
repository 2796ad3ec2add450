/**
 * A fake OpenAI embeddings API (`POST {base}/embeddings`) over real HTTP on 127.0.0.1 (random
 * port), or on a fake Realtime server's REST fallback (one OPENAI_BASE_URL, as the app has one).
 *
 *   const fake = await FakeEmbeddings.start({ apiKey: "sk-test" });
 *   fake.enqueue({ kind: "error", status: 429, headers: { "retry-after": "1" } });  // then answers
 *   fake.requests                                                                    // what arrived
 *
 * Checked as the service does: `Authorization: Bearer <apiKey>` (401), a JSON body, `model`
 * among the embedding models (404 model_not_found), `input` a non-empty string or array of at
 * most 2,048 non-empty strings, `dimensions` a positive integer no larger than the model's
 * (text-embedding-ada-002 takes none), `encoding_format` float (the default) or base64 (each
 * vector's little-endian float32 bytes, as OpenAI answers it). Errors use OpenAI's
 * body `{ error: { message, type, param, code } }`.
 *
 * Vectors are deterministic and mean something: each word (lower-cased, a plural's "s" dropped)
 * is hashed into one of the dimensions, and the vector is normalised — so texts that share words
 * are near, as real embeddings of similar texts are, and a test can predict the nearest passage.
 */
import { createHash } from "node:crypto";
import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import { OpenAiRestFake } from "./openai-rest-fake.ts";

const MODELS: Record<string, { max: number; shortens: boolean }> = {
  "text-embedding-3-small": { max: 1536, shortens: true },
  "text-embedding-3-large": { max: 3072, shortens: true },
  "text-embedding-ada-002": { max: 1536, shortens: false },
};

export type FakeEmbeddingsStep =
  | { kind: "error"; status: number; code?: string; message?: string; headers?: Record<string, string> }
  /** Never answers (the client's timeout), until the fake closes. */
  | { kind: "hang" };

export interface FakeEmbeddingsRequest {
  body: Record<string, unknown> | null;
  status?: number;
}

type Host = { rest: ((req: IncomingMessage, res: ServerResponse) => void) | null; baseUrl: string };

const STOP = new Set(["the", "a", "an", "and", "or", "of", "to", "in", "on", "is", "are", "our", "your", "we", "you", "what", "do", "it", "for", "at", "be", "can", "i", "my", "how", "with", "within"]);

/** The fake's vector of `text`: hashed words, normalised (a text of no words gets the first axis). */
export function fakeEmbedding(text: string, dimensions: number): number[] {
  const v = Array.from({ length: dimensions }, () => 0);
  for (const raw of text.toLowerCase().match(/[a-z0-9]+/g) ?? []) {
    if (STOP.has(raw)) continue;
    const word = raw.length > 3 && raw.endsWith("s") ? raw.slice(0, -1) : raw;
    v[createHash("sha1").update(word).digest().readUInt32BE(0) % dimensions]! += 1;
  }
  const norm = Math.hypot(...v);
  if (norm === 0) {
    v[0] = 1;
    return v;
  }
  return v.map((x) => x / norm);
}

/** As OpenAI answers `encoding_format: "base64"`: the vector's little-endian float32 bytes in base64. */
function encoded(vector: number[], base64: boolean): number[] | string {
  if (!base64) return vector;
  const bytes = Buffer.alloc(vector.length * 4);
  vector.forEach((x, i) => bytes.writeFloatLE(x, i * 4));
  return bytes.toString("base64");
}

export class FakeEmbeddings extends OpenAiRestFake<FakeEmbeddingsStep> {
  readonly requests: FakeEmbeddingsRequest[] = [];
  private readonly hanging = new Set<ServerResponse>();

  private constructor(server: Server | null, apiKey: string, hostBaseUrl: string | null) {
    super(server, apiKey, hostBaseUrl);
  }

  /** `serveOn`: answer on that server's REST fallback; other paths go on to the fallback it had (a fake Responses API). */
  static async start(options: { apiKey?: string; serveOn?: Host } = {}): Promise<FakeEmbeddings> {
    if (options.serveOn) {
      const host = options.serveOn;
      const fake = new FakeEmbeddings(null, options.apiKey ?? "sk-test", host.baseUrl);
      const previous = host.rest;
      host.rest = (req, res) => {
        if (new URL(req.url ?? "/", "http://x").pathname.endsWith("/embeddings")) return void fake.handle(req, res);
        if (previous) return previous(req, res);
        res.writeHead(404).end();
      };
      return fake;
    }
    let fake: FakeEmbeddings | null = null;
    const server = createServer((req, res) => void fake!.handle(req, res));
    fake = new FakeEmbeddings(server, options.apiKey ?? "sk-test", null);
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
    return fake;
  }

  /** The texts of the accepted requests, in order. */
  get embeddedTexts(): string[] {
    return this.requests.filter((r) => r.status === 200).flatMap((r) => {
      const input = r.body?.input;
      return typeof input === "string" ? [input] : (input as string[]);
    });
  }

  override async close(): Promise<void> {
    for (const res of this.hanging) res.destroy();
    await super.close();
  }

  private send(res: ServerResponse, record: FakeEmbeddingsRequest, status: number, body: unknown, headers: Record<string, string> = {}) {
    record.status = status;
    if (res.destroyed) return;
    res.writeHead(status, { "content-type": "application/json", ...headers });
    res.end(JSON.stringify(body));
  }

  private fail(res: ServerResponse, record: FakeEmbeddingsRequest, status: number, message: string, code: string | null, param: string | null = null, headers: Record<string, string> = {}) {
    const type = status === 429 ? "rate_limit_exceeded" : status >= 500 ? "server_error" : "invalid_request_error";
    this.send(res, record, status, { error: { message, type, param, code } }, headers);
  }

  private async handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const chunks: Buffer[] = [];
    for await (const chunk of req) chunks.push(chunk as Buffer);
    const record: FakeEmbeddingsRequest = { body: null };
    this.requests.push(record);
    // The key check Settings makes when a key is saved (credentials: GET /models).
    if (req.method === "GET" && new URL(req.url ?? "/", "http://x").pathname === "/v1/models" && req.headers.authorization === `Bearer ${this.apiKey}`) {
      return this.send(res, record, 200, { object: "list", data: Object.keys(MODELS).map((id) => ({ id, object: "model", owned_by: "openai" })) });
    }
    if (req.method !== "POST" || new URL(req.url ?? "/", "http://x").pathname !== "/v1/embeddings") return this.fail(res, record, 404, `Invalid URL (${req.method} ${req.url})`, null);
    if (req.headers.authorization !== `Bearer ${this.apiKey}`) return this.fail(res, record, 401, "Incorrect API key provided.", "invalid_api_key");
    let body: Record<string, unknown>;
    try {
      body = JSON.parse(Buffer.concat(chunks).toString("utf8")) as Record<string, unknown>;
    } catch {
      return this.fail(res, record, 400, "We could not parse the JSON body of your request.", null);
    }
    record.body = body;
    const model = MODELS[String(body.model)];
    if (!model) return this.fail(res, record, 404, `The model \`${String(body.model)}\` does not exist or you do not have access to it.`, "model_not_found", "model");
    const input = typeof body.input === "string" ? [body.input] : body.input;
    if (!Array.isArray(input) || input.length === 0 || input.length > 2048 || input.some((t) => typeof t !== "string" || t === "")) {
      return this.fail(res, record, 400, "'$.input' is invalid. Please check the API reference: https://platform.openai.com/docs/api-reference.", null, "input");
    }
    let dimensions = model.max;
    if (body.dimensions !== undefined) {
      if (!model.shortens) return this.fail(res, record, 400, "This model does not support specifying dimensions.", null, "dimensions");
      if (!Number.isInteger(body.dimensions) || (body.dimensions as number) < 1 || (body.dimensions as number) > model.max) {
        return this.fail(res, record, 400, `Invalid value for 'dimensions' = ${String(body.dimensions)}. Must be between 1 and ${model.max}.`, "invalid_value", "dimensions");
      }
      dimensions = body.dimensions as number;
    }
    if (body.encoding_format !== undefined && body.encoding_format !== "float" && body.encoding_format !== "base64") {
      return this.fail(res, record, 400, "Invalid value for 'encoding_format': expected 'float' or 'base64'.", "invalid_value", "encoding_format");
    }
    const step = this.queue.shift();
    if (step?.kind === "hang") {
      this.hanging.add(res);
      return;
    }
    if (step?.kind === "error") return this.fail(res, record, step.status, step.message ?? `Error ${step.status}`, step.code ?? null, null, step.headers);
    const tokens = input.reduce((n, t: string) => n + Math.ceil(t.length / 4), 0);
    this.send(res, record, 200, {
      object: "list",
      data: input.map((t: string, index) => ({ object: "embedding", index, embedding: encoded(fakeEmbedding(t, dimensions), body.encoding_format === "base64") })),
      model: String(body.model),
      usage: { prompt_tokens: tokens, total_tokens: tokens },
    });
  }
}
