/**
 * The one client of OpenAI's Responses API (`POST {OPENAI_BASE_URL}/responses`), for every
 * text-model request the server makes: post-call analysis, and any feature that needs a model's
 * answer as JSON (Structured Outputs: `text.format = {type: "json_schema", name, strict, schema}`).
 *
 * One request per call of `create`: retrying is the caller's decision (a durable job retries
 * with backoff; see `ResponsesError.retryable` and `retryAfterMs`), so a retry survives a restart
 * instead of living in a loop here.
 */

/** A message of the conversation the model reads. */
export interface ResponsesInputMessage {
  role: "system" | "developer" | "user" | "assistant";
  content: string;
}

/** A function the model may call (function calling); its arguments come back as a JSON string. */
export interface ResponsesFunctionTool {
  type: "function";
  /** a-z, A-Z, 0-9, _ and -, at most 64 characters. */
  name: string;
  description?: string;
  parameters: Record<string, unknown>;
  /** false: the parameters schema need not follow the Structured Outputs subset (user-written schemas do not). */
  strict: boolean;
}

/** A function call the model made, sent back in a later request's input before its output. */
export interface ResponsesFunctionCallItem {
  type: "function_call";
  call_id: string;
  name: string;
  arguments: string;
}

/** What a function call returned, for the model to read. */
export interface ResponsesFunctionCallOutputItem {
  type: "function_call_output";
  call_id: string;
  output: string;
}

export type ResponsesInputItem = ResponsesInputMessage | ResponsesFunctionCallItem | ResponsesFunctionCallOutputItem;

/** Structured Outputs: the answer is one JSON document matching `schema` (strict: the supported subset only). */
export interface JsonSchemaFormat {
  type: "json_schema";
  /** a-z, A-Z, 0-9, _ and -, at most 64 characters. */
  name: string;
  description?: string;
  strict: boolean;
  schema: Record<string, unknown>;
}

export interface ResponsesRequest {
  model: string;
  instructions?: string;
  input: string | ResponsesInputItem[];
  tools?: ResponsesFunctionTool[];
  tool_choice?: "auto" | "none" | "required";
  text?: { format: JsonSchemaFormat | { type: "text" } };
  max_output_tokens?: number;
  temperature?: number;
  /** false: the provider keeps no copy of the request (no later retrieval is needed here). */
  store?: boolean;
  metadata?: Record<string, string>;
}

/** The response's `usage`, as the API reports it. */
export interface ResponsesUsage {
  input_tokens: number;
  input_tokens_details?: { cached_tokens?: number };
  output_tokens: number;
  output_tokens_details?: { reasoning_tokens?: number };
  total_tokens: number;
}

export interface ResponsesResult {
  id: string;
  /** The model that answered (may be a dated snapshot of the one asked for). */
  model: string;
  status: string;
  /** The output_text parts of the assistant's message, joined; null without any. */
  text: string | null;
  /** Set when the model refused (Structured Outputs answers a refusal instead of the schema). */
  refusal: string | null;
  /** e.g. "max_output_tokens" when status is "incomplete". */
  incompleteReason: string | null;
  /** The function calls the model asked for, in order (empty without any). */
  functionCalls: ResponsesFunctionCallItem[];
  usage: ResponsesUsage;
}

/** Why a request failed; `retryable` says whether the same request may succeed later. */
export class ResponsesError extends Error {
  constructor(
    message: string,
    readonly code: string,
    /** HTTP status, or 0 when no answer came (timeout, connection refused). */
    readonly status: number,
    readonly retryable: boolean,
    /** What the server asked us to wait (retry-after / x-ratelimit-reset-*), if it said. */
    readonly retryAfterMs: number | null = null,
  ) {
    super(message);
    this.name = "ResponsesError";
  }
}

/** The failures the user fixes in their own OpenAI account (the key, the quota), in words they can act on; null for others. */
export function accountRefusalText(err: ResponsesError): string | null {
  if (err.status === 401) return "OpenAI refused the API key: check it in Settings.";
  if (err.code === "insufficient_quota") return "OpenAI says the account's quota is used up: check its billing.";
  return null;
}

/**
 * accountRefusalText (first: a used-up quota is a 429 too), or for a rate limit or timeout what
 * happened and `retry` ("try again later"); null for others.
 */
export function openAiFailureText(err: ResponsesError, retry: string): string | null {
  const refused = accountRefusalText(err);
  if (refused) return refused;
  if (err.status === 429) return `OpenAI kept answering "rate limit reached"; ${retry}.`;
  if (err.code === "timeout") return `OpenAI did not answer in time; ${retry}.`;
  return null;
}

export interface ResponsesClientOptions {
  /** e.g. https://api.openai.com/v1 (OPENAI_BASE_URL), without a trailing slash. */
  baseUrl: string;
  apiKey: string;
  /** One request longer than this is abandoned as a retryable "timeout" (default 60 s). */
  timeoutMs?: number;
}

export interface ResponsesClient {
  create(request: ResponsesRequest, options?: { signal?: AbortSignal }): Promise<ResponsesResult>;
  /** `create`, then the answer parsed as JSON (a refusal, an incomplete answer or bad JSON throw). */
  createJson<T = unknown>(request: ResponsesRequest, options?: { signal?: AbortSignal }): Promise<{ value: T; result: ResponsesResult }>;
}

export const DEFAULT_RESPONSES_TIMEOUT_MS = 60_000;

/** "1s", "6m0s", "20ms", "1.5s" (the x-ratelimit-reset-* duration spelling) as ms. */
export function parseResetDuration(value: string | null): number | null {
  if (!value) return null;
  const parts = [...value.matchAll(/(\d+(?:\.\d+)?)(ms|h|m|s)/g)];
  if (parts.length === 0) return null;
  const unit: Record<string, number> = { h: 3_600_000, m: 60_000, s: 1000, ms: 1 };
  return Math.round(parts.reduce((sum, [, n, u]) => sum + Number(n) * unit[u!]!, 0));
}

/**
 * The longest wait a server may ask for: a buggy or hostile Retry-After ("86400", a date next
 * year) would otherwise park a job for days; after this the retry asks again, and a server still
 * limiting answers 429 once more.
 */
export const MAX_RETRY_AFTER_MS = 10 * 60_000;

/** retry-after-ms, retry-after (seconds or an HTTP date), then the larger rate-limit reset; at most MAX_RETRY_AFTER_MS. */
export function retryAfterMs(headers: Headers, now = Date.now()): number | null {
  const asked = askedWaitMs(headers, now);
  return asked === null ? null : Math.min(asked, MAX_RETRY_AFTER_MS);
}

function askedWaitMs(headers: Headers, now: number): number | null {
  const ms = Number(headers.get("retry-after-ms"));
  if (headers.get("retry-after-ms") && Number.isFinite(ms) && ms >= 0) return ms;
  const after = headers.get("retry-after");
  if (after) {
    const seconds = Number(after);
    if (Number.isFinite(seconds) && seconds >= 0) return seconds * 1000;
    const date = Date.parse(after);
    if (Number.isFinite(date)) return Math.max(0, date - now);
  }
  const resets = [parseResetDuration(headers.get("x-ratelimit-reset-requests")), parseResetDuration(headers.get("x-ratelimit-reset-tokens"))].filter(
    (v): v is number => v !== null,
  );
  return resets.length > 0 ? Math.max(...resets) : null;
}

interface ApiErrorBody {
  error?: { message?: string; type?: string; code?: string | null; param?: string | null };
}

/** An OpenAI API's error answer as a ResponsesError (the embeddings client reads them alike). */
export async function errorOf(res: Response): Promise<ResponsesError> {
  let body: ApiErrorBody = {};
  try {
    body = (await res.json()) as ApiErrorBody;
  } catch {
    // A proxy's HTML page or an empty body: the status says enough.
  }
  const code = body.error?.code ?? body.error?.type ?? `http_${res.status}`;
  const message = body.error?.message ?? `The Responses API answered HTTP ${res.status}`;
  // A 429 for an exhausted quota will not pass by waiting; a rate limit and the 5xx do.
  const retryable = (res.status === 429 && code !== "insufficient_quota") || res.status >= 500 || res.status === 408 || res.status === 409;
  return new ResponsesError(message, code, res.status, retryable, retryable ? retryAfterMs(res.headers) : null);
}

interface RawResponse {
  id?: string;
  model?: string;
  status?: string;
  incomplete_details?: { reason?: string } | null;
  error?: { code?: string; message?: string } | null;
  output?: Array<{
    type?: string;
    role?: string;
    content?: Array<{ type?: string; text?: string; refusal?: string }>;
    call_id?: string;
    name?: string;
    arguments?: string;
  }>;
  usage?: ResponsesUsage;
}

function resultOf(raw: RawResponse): ResponsesResult {
  const parts = (raw.output ?? []).filter((o) => o.type === "message").flatMap((o) => o.content ?? []);
  const texts = parts.filter((p) => p.type === "output_text").map((p) => p.text ?? "");
  const refusal = parts.find((p) => p.type === "refusal")?.refusal ?? null;
  return {
    id: raw.id ?? "",
    model: raw.model ?? "",
    status: raw.status ?? "",
    text: texts.length > 0 ? texts.join("") : null,
    refusal,
    incompleteReason: raw.incomplete_details?.reason ?? null,
    functionCalls: (raw.output ?? [])
      .filter((o) => o.type === "function_call")
      .map((o) => ({ type: "function_call" as const, call_id: o.call_id ?? "", name: o.name ?? "", arguments: o.arguments ?? "{}" })),
    usage: raw.usage ?? { input_tokens: 0, output_tokens: 0, total_tokens: 0 },
  };
}

export function createResponsesClient(options: ResponsesClientOptions): ResponsesClient {
  const timeoutMs = options.timeoutMs ?? DEFAULT_RESPONSES_TIMEOUT_MS;
  const url = `${options.baseUrl.replace(/\/+$/, "")}/responses`;

  async function create(request: ResponsesRequest, o: { signal?: AbortSignal } = {}): Promise<ResponsesResult> {
    const timeout = AbortSignal.timeout(timeoutMs);
    const signal = o.signal ? AbortSignal.any([o.signal, timeout]) : timeout;
    let res: Response;
    let raw: RawResponse;
    try {
      res = await fetch(url, {
        method: "POST",
        headers: { authorization: `Bearer ${options.apiKey}`, "content-type": "application/json" },
        body: JSON.stringify(request),
        signal,
      });
      if (!res.ok) throw await errorOf(res);
      raw = (await res.json()) as RawResponse;
    } catch (err) {
      if (err instanceof ResponsesError) throw err;
      if (timeout.aborted) throw new ResponsesError(`The Responses API did not answer within ${Math.round(timeoutMs / 1000)} s`, "timeout", 0, true);
      if (o.signal?.aborted) throw new ResponsesError("The request was cancelled", "aborted", 0, false);
      throw new ResponsesError(`The Responses API could not be reached: ${(err as Error).message}`, "network_error", 0, true);
    }
    // A 200 can still carry a failed response (the model errored while generating).
    if (raw.status === "failed") {
      throw new ResponsesError(raw.error?.message ?? "The model failed to answer", raw.error?.code ?? "response_failed", 200, raw.error?.code === "server_error");
    }
    return resultOf(raw);
  }

  return {
    create,
    async createJson<T>(request: ResponsesRequest, o: { signal?: AbortSignal } = {}) {
      const result = await create(request, o);
      if (result.refusal !== null) throw new ResponsesError(`The model refused: ${result.refusal}`, "refusal", 200, false);
      if (result.status === "incomplete") throw new ResponsesError(`The answer was cut short (${result.incompleteReason ?? "incomplete"})`, "incomplete", 200, false);
      if (result.text === null) throw new ResponsesError("The model gave no answer", "empty_output", 200, true);
      try {
        return { value: JSON.parse(result.text) as T, result };
      } catch {
        throw new ResponsesError("The model's answer is not valid JSON", "invalid_output", 200, true);
      }
    },
  };
}

/**
 * Backoff before retry `attempt` (1-based): what the server asked for when it said, else
 * exponential from `baseMs` doubling to `maxMs`, with full jitter so many workers that failed
 * together do not come back together.
 */
export function retryDelayMs(attempt: number, err: unknown, o: { baseMs?: number; maxMs?: number; random?: () => number } = {}): number {
  const base = o.baseMs ?? 2000;
  const max = o.maxMs ?? 300_000;
  const asked = err instanceof ResponsesError ? err.retryAfterMs : null;
  if (asked !== null) return Math.min(max, asked);
  const ceiling = Math.min(max, base * 2 ** Math.max(0, attempt - 1));
  return Math.round(ceiling / 2 + (o.random ?? Math.random)() * (ceiling / 2));
}
