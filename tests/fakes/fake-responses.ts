/**
 * A fake OpenAI Responses API over real HTTP on 127.0.0.1 (random port), checking each request
 * as the service does and answering by a script.
 *
 *   const fake = await startFakeResponses({ apiKey: "sk-test", delayMs: 300 });
 *   // point the server at fake.baseUrl (OPENAI_BASE_URL) with the same key
 *   fake.enqueue({ kind: "error", status: 429, headers: { "retry-after": "1" } }, { kind: "answer", json: {...} });
 *   fake.script = (request) => ({ kind: "answer", json: ... }); // after the queue runs out
 *   fake.requests                                               // what arrived (accepted or not)
 *   await fake.close();
 *
 * With a fake Realtime server (one OPENAI_BASE_URL for both, as the app has one):
 *   const responses = await startFakeResponses({ apiKey: realtime.apiKey, serveOn: realtime });
 *
 * `POST {base}/responses` only. Checked like the service: `Authorization: Bearer <apiKey>` (401
 * invalid_api_key), a JSON body (400), `model` among the known text models (400 model_not_found),
 * `input` present (messages, and the function calls and outputs of function calling: an output
 * needs the call it answers earlier in the input), `tools` (functions with a valid name and an
 * object schema, checked like `text.format` when strict), and `text.format`: a json_schema's name (^[a-zA-Z0-9_-]{1,64}$) and, when
 * strict, the Structured Outputs rules (responses-strict-schema.ts: 400 invalid_json_schema with
 * the service's wording). Errors use OpenAI's body `{ error: { message, type, param, code } }`.
 *
 * Answers: a Response object (`object: "response"`, `status`, `output: [message{output_text}]`,
 * `usage` with its details). A scripted JSON answer must match the request's schema (the real
 * service guarantees it), else the fake answers 500 and records `scriptError`, so a wrong script
 * fails its test. Without a script the answer is the simplest value matching the schema.
 * `toolCalls` answers function calls (after the text, if any); each must name one of the
 * request's tools, else the fake answers 500 with `scriptError`.
 */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import { OpenAiRestFake } from "./openai-rest-fake.ts";
import { conforms, FORMAT_NAME, sampleOf, strictSchemaError } from "./responses-strict-schema.ts";

export const FAKE_TEXT_MODELS = ["gpt-5-mini", "gpt-5", "gpt-5-nano", "gpt-4.1", "gpt-4.1-mini", "gpt-4o", "gpt-4o-mini"];

export interface FakeUsage {
  input_tokens: number;
  cached_tokens: number;
  output_tokens: number;
}

export type FakeResponsesStep =
  | { kind: "answer"; json?: unknown; text?: string; toolCalls?: Array<{ name: string; arguments: unknown }>; usage?: Partial<FakeUsage>; delayMs?: number }
  | { kind: "refusal"; refusal?: string; delayMs?: number }
  | { kind: "incomplete"; delayMs?: number }
  | { kind: "error"; status: number; code?: string; type?: string; message?: string; headers?: Record<string, string>; delayMs?: number }
  /** Never answers (the client's timeout), until the fake closes. */
  | { kind: "hang" };

export interface FakeResponsesRequest {
  /** The parsed body (null when it was not JSON). */
  body: Record<string, unknown> | null;
  authorization: string | undefined;
  /** Unix ms when it arrived. */
  at: number;
  /** The HTTP status it was answered with (undefined while pending). */
  status?: number;
}

export interface FakeResponsesOptions {
  apiKey?: string;
  models?: string[];
  /** Added before every answer (the model's thinking time). */
  delayMs?: number;
  port?: number;
  /** Answer on this server's REST fallback (its base URL) instead of a port of its own. */
  serveOn?: { rest: ((req: IncomingMessage, res: ServerResponse) => void) | null; baseUrl: string };
}

type Json = Record<string, unknown>;
const isObject = (v: unknown): v is Json => typeof v === "object" && v !== null && !Array.isArray(v);

export class FakeResponses extends OpenAiRestFake<FakeResponsesStep> {
  readonly requests: FakeResponsesRequest[] = [];
  /** Set when a scripted answer did not match the request's schema. */
  scriptError: string | null = null;
  script: ((body: Json, index: number) => FakeResponsesStep | undefined) | null = null;
  delayMs: number;
  private served = 0;

  private constructor(
    server: Server | null,
    apiKey: string,
    readonly models: string[],
    delayMs: number,
    hostBaseUrl: string | null = null,
  ) {
    super(server, apiKey, hostBaseUrl);
    this.delayMs = delayMs;
  }

  static async start(options: FakeResponsesOptions = {}): Promise<FakeResponses> {
    if (options.serveOn) {
      const host = options.serveOn;
      const fake = new FakeResponses(null, options.apiKey ?? "sk-test", options.models ?? FAKE_TEXT_MODELS, options.delayMs ?? 0, host.baseUrl);
      host.rest = (req, res) => {
        fake.track(req.socket);
        void fake.handle(req, res);
      };
      return fake;
    }
    let fake: FakeResponses | null = null;
    const server = createServer((req, res) => void fake!.handle(req, res));
    fake = new FakeResponses(server, options.apiKey ?? "sk-test", options.models ?? FAKE_TEXT_MODELS, options.delayMs ?? 0);
    await new Promise<void>((resolve) => server.listen(options.port ?? 0, "127.0.0.1", resolve));
    return fake;
  }

  /** Requests the fake accepted (passed every check) — what the service would have billed. */
  get accepted(): FakeResponsesRequest[] {
    return this.requests.filter((r) => r.status === 200);
  }

  private send(res: ServerResponse, record: FakeResponsesRequest, status: number, body: unknown, headers: Record<string, string> = {}) {
    record.status = status;
    if (res.destroyed) return;
    res.writeHead(status, { "content-type": "application/json", "x-request-id": `req_${this.requests.length}`, ...headers });
    res.end(JSON.stringify(body));
  }

  private fail(res: ServerResponse, record: FakeResponsesRequest, status: number, message: string, code: string | null, param: string | null = null, type = "invalid_request_error", headers: Record<string, string> = {}) {
    this.send(res, record, status, { error: { message, type, param, code } }, headers);
  }

  private async handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const chunks: Buffer[] = [];
    for await (const chunk of req) chunks.push(chunk as Buffer);
    const record: FakeResponsesRequest = { body: null, authorization: req.headers.authorization, at: Date.now() };
    this.requests.push(record);
    if (req.method !== "POST" || new URL(req.url ?? "/", "http://x").pathname !== "/v1/responses") {
      return this.fail(res, record, 404, `Invalid URL (${req.method} ${req.url})`, null);
    }
    if (req.headers.authorization !== `Bearer ${this.apiKey}`) {
      const given = (req.headers.authorization ?? "").replace(/^Bearer\s+/i, "");
      const message = given ? `Incorrect API key provided: ${given.slice(0, 3)}***${given.slice(-4)}.` : "You didn't provide an API key.";
      return this.fail(res, record, 401, message, given ? "invalid_api_key" : null);
    }
    let body: unknown;
    try {
      body = JSON.parse(Buffer.concat(chunks).toString("utf8"));
    } catch {
      return this.fail(res, record, 400, "We could not parse the JSON body of your request.", null);
    }
    if (!isObject(body)) return this.fail(res, record, 400, "The body must be a JSON object.", null);
    record.body = body;
    const problem = this.check(body);
    if (problem) return this.fail(res, record, 400, problem.message, problem.code, problem.param);
    await this.answer(res, record, body);
  }

  private check(body: Json): { message: string; code: string | null; param: string } | null {
    if (typeof body.model !== "string" || !body.model) return { message: "Missing required parameter: 'model'.", code: "missing_required_parameter", param: "model" };
    if (!this.models.includes(body.model)) return { message: `The requested model '${body.model}' does not exist.`, code: "model_not_found", param: "model" };
    const input = body.input;
    if (input === undefined || input === "" || (Array.isArray(input) && input.length === 0)) return { message: "Missing required parameter: 'input'.", code: "missing_required_parameter", param: "input" };
    if (Array.isArray(input)) {
      const calls = new Set<string>();
      for (const [i, m] of input.entries()) {
        if (isObject(m) && m.type === "function_call") {
          if (typeof m.call_id !== "string" || typeof m.name !== "string" || typeof m.arguments !== "string") {
            return { message: `Invalid value for 'input[${i}]': a function call needs call_id, name and arguments (a string).`, code: "invalid_value", param: `input[${i}]` };
          }
          calls.add(m.call_id);
        } else if (isObject(m) && m.type === "function_call_output") {
          if (typeof m.output !== "string") return { message: `Invalid type for 'input[${i}].output': expected a string.`, code: "invalid_type", param: `input[${i}].output` };
          if (!calls.has(String(m.call_id))) return { message: `No tool call found for function call output with call_id ${String(m.call_id)}.`, code: null, param: "input" };
        } else if (!isObject(m) || !["system", "developer", "user", "assistant"].includes(String(m.role)) || typeof m.content !== "string") {
          return { message: `Invalid value for 'input[${i}]': each message needs a role and text content.`, code: "invalid_value", param: `input[${i}]` };
        }
      }
    } else if (typeof input !== "string") return { message: "Invalid type for 'input': expected a string or an array.", code: "invalid_type", param: "input" };
    const toolProblem = this.checkTools(body.tools);
    if (toolProblem) return toolProblem;
    const format = isObject(body.text) ? body.text.format : undefined;
    if (format === undefined) return null;
    if (!isObject(format) || !["text", "json_schema", "json_object"].includes(String(format.type))) {
      return { message: "Invalid value for 'text.format.type'.", code: "invalid_value", param: "text.format.type" };
    }
    if (format.type !== "json_schema") return null;
    if (typeof format.name !== "string") return { message: "Missing required parameter: 'text.format.name'.", code: "missing_required_parameter", param: "text.format.name" };
    if (!FORMAT_NAME.test(format.name)) {
      return { message: `Invalid 'text.format.name': string does not match pattern. Expected a string that matches the pattern '^[a-zA-Z0-9_-]+$'.`, code: "invalid_value", param: "text.format.name" };
    }
    if (!isObject(format.schema)) return { message: "Missing required parameter: 'text.format.schema'.", code: "missing_required_parameter", param: "text.format.schema" };
    if (format.strict === true) {
      const error = strictSchemaError(format.name, format.schema);
      if (error) return { message: error, code: "invalid_json_schema", param: "text.format.schema" };
    }
    return null;
  }

  private checkTools(tools: unknown): { message: string; code: string | null; param: string } | null {
    if (tools === undefined) return null;
    if (!Array.isArray(tools)) return { message: "Invalid type for 'tools': expected an array.", code: "invalid_type", param: "tools" };
    for (const [i, tool] of tools.entries()) {
      if (!isObject(tool) || tool.type !== "function") return { message: `Invalid value for 'tools[${i}].type'.`, code: "invalid_value", param: `tools[${i}].type` };
      if (typeof tool.name !== "string" || !FORMAT_NAME.test(tool.name)) {
        return { message: `Invalid 'tools[${i}].name': string does not match pattern. Expected a string that matches the pattern '^[a-zA-Z0-9_-]+$'.`, code: "invalid_value", param: `tools[${i}].name` };
      }
      if (!isObject(tool.parameters) || tool.parameters.type !== "object") {
        return { message: `Invalid schema for function '${tool.name}': schema must be a JSON Schema of 'type: "object"'.`, code: "invalid_function_parameters", param: `tools[${i}].parameters` };
      }
      if (tool.strict === true) {
        const error = strictSchemaError(tool.name, tool.parameters);
        if (error) return { message: error, code: "invalid_function_parameters", param: `tools[${i}].parameters` };
      }
    }
    return null;
  }

  private async answer(res: ServerResponse, record: FakeResponsesRequest, body: Json): Promise<void> {
    const index = this.served++;
    const step = this.queue.shift() ?? this.script?.(body, index) ?? { kind: "answer" };
    if (step.kind === "hang") return; // the socket stays open until the client gives up or the fake closes
    await new Promise((resolve) => setTimeout(resolve, step.delayMs ?? this.delayMs));
    if (step.kind === "error") {
      const type = step.type ?? (step.status === 429 ? "requests" : step.status >= 500 ? "server_error" : "invalid_request_error");
      const message = step.message ?? (step.status === 429 ? `Rate limit reached for ${String(body.model)} on requests per min (RPM): Limit 500, Used 500, Requested 1.` : "The server had an error while processing your request. Sorry about that!");
      const code = step.code ?? (step.status === 429 ? "rate_limit_exceeded" : null);
      return this.fail(res, record, step.status, message, code, null, type, step.headers);
    }
    const format = isObject(body.text) && isObject(body.text.format) ? body.text.format : null;
    const schema = format?.type === "json_schema" ? format.schema : null;
    let content: Json[];
    if (step.kind === "refusal") content = [{ type: "refusal", refusal: step.refusal ?? "I'm sorry, I can't help with that." }];
    else {
      let text: string;
      if (step.kind === "answer" && step.text !== undefined) text = step.text;
      else {
        const value = step.kind === "answer" && step.json !== undefined ? step.json : schema ? sampleOf(schema) : "OK";
        if (schema && format?.strict === true && !conforms(schema, value)) {
          this.scriptError = `The scripted answer ${JSON.stringify(value)} does not match the request's schema`;
          return this.fail(res, record, 500, this.scriptError, null, null, "server_error");
        }
        text = typeof value === "string" && !schema ? value : JSON.stringify(value);
      }
      content = [{ type: "output_text", text, annotations: [], logprobs: [] }];
    }
    const toolCalls = step.kind === "answer" ? (step.toolCalls ?? []) : [];
    const declared = new Set((Array.isArray(body.tools) ? body.tools : []).map((t) => (isObject(t) ? String(t.name) : "")));
    const unknown = toolCalls.find((c) => !declared.has(c.name));
    if (unknown) {
      this.scriptError = `The scripted call of "${unknown.name}" names no tool of the request`;
      return this.fail(res, record, 500, this.scriptError, null, null, "server_error");
    }
    const message = { type: "message", id: `msg_fake${index}`, status: step.kind === "incomplete" ? "incomplete" : "completed", role: "assistant", content };
    // A tool-only answer carries no message, as the service answers it.
    const textless = toolCalls.length > 0 && step.kind === "answer" && step.text === undefined && step.json === undefined;
    const output = [
      ...(textless ? [] : [message]),
      ...toolCalls.map((c, n) => ({
        type: "function_call",
        id: `fc_fake${index}_${n}`,
        call_id: `call_fake${index}_${n}`,
        name: c.name,
        arguments: typeof c.arguments === "string" ? c.arguments : JSON.stringify(c.arguments ?? {}),
        status: "completed",
      })),
    ];
    const usage = { input_tokens: 1200, cached_tokens: 0, output_tokens: 150, ...(step.kind === "answer" ? step.usage : {}) };
    const incomplete = step.kind === "incomplete";
    this.send(res, record, 200, {
      id: `resp_fake${index}`,
      object: "response",
      created_at: Math.floor(Date.now() / 1000),
      status: incomplete ? "incomplete" : "completed",
      error: null,
      incomplete_details: incomplete ? { reason: "max_output_tokens" } : null,
      model: `${String(body.model)}-2025-08-07`,
      output,
      text: body.text ?? { format: { type: "text" } },
      usage: {
        input_tokens: usage.input_tokens,
        input_tokens_details: { cached_tokens: usage.cached_tokens },
        output_tokens: usage.output_tokens,
        output_tokens_details: { reasoning_tokens: 0 },
        total_tokens: usage.input_tokens + usage.output_tokens,
      },
    });
  }
}

export const startFakeResponses = (options?: FakeResponsesOptions) => FakeResponses.start(options);
