/**
 * A stand-in for an OpenAI-compatible Chat Completions endpoint (`POST …/chat/completions` with
 * `stream: true`), on a real local port: `Authorization: Bearer <key>` (else 401 with OpenAI's
 * error shape), then server-sent events — `data: {chat.completion.chunk}` lines whose
 * `choices[0].delta` carries the role, then `content` pieces, then `tool_calls` pieces (by
 * `index`: id, type and name first, the arguments in fragments), a last chunk with
 * `finish_reason`, and `data: [DONE]`. With `stream_options: { include_usage: true }`, a chunk of
 * no choices and the request's `usage` comes just before `[DONE]` (as OpenAI sends it): a token per
 * four characters of the prompt, one per piece of the answer, added up in `usage`.
 *
 * Each request takes the next of `script.replies` ("Okay." when none is left) and is recorded.
 */
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { answerKeyCheck, OPENAI_REFUSAL } from "./key-check-route.ts";

/** `stallMs`: the service says nothing for that long before it answers (a hung upstream). */
export type ChatReply = string | { say?: string; toolCalls?: Array<{ name: string; arguments: Record<string, unknown> }>; pieceGapMs?: number; status?: number; stallMs?: number };

export interface ChatRequestBody {
  model: string;
  stream?: boolean;
  stream_options?: { include_usage?: boolean };
  messages: Array<{ role: string; content: string | null; tool_calls?: Array<{ id: string; function: { name: string; arguments: string } }>; tool_call_id?: string }>;
  tools?: Array<{ type: string; function: { name: string; description?: string; parameters?: unknown } }>;
}

export interface FakeChat {
  baseUrl: string;
  apiKey: string;
  script: { replies?: ChatReply[] };
  requests: ChatRequestBody[];
  /** Requests the client gave up on before the answer was complete. */
  dropped: number;
  /** The tokens reported in the usage chunks sent so far. */
  usage: { prompt: number; completion: number };
  close(): Promise<void>;
}

export async function startFakeChat(options: { apiKey: string }): Promise<FakeChat> {
  const fake: FakeChat = { baseUrl: "", apiKey: options.apiKey, script: {}, requests: [], dropped: 0, usage: { prompt: 0, completion: 0 }, close: async () => {} };
  let calls = 0;
  const server: Server = createServer((req, res) => {
    if (answerKeyCheck(req, res, { path: "/v1/models", accepted: req.headers.authorization === `Bearer ${fake.apiKey}`, refusal: OPENAI_REFUSAL })) return;
    if (req.method !== "POST" || !req.url?.endsWith("/chat/completions")) return void res.writeHead(404).end();
    if (req.headers.authorization !== `Bearer ${fake.apiKey}`) {
      res.writeHead(401, { "content-type": "application/json" });
      return void res.end(JSON.stringify({ error: { message: "Incorrect API key provided.", type: "invalid_request_error", code: "invalid_api_key" } }));
    }
    const chunks: Buffer[] = [];
    req.on("data", (c: Buffer) => chunks.push(c));
    req.on("end", () => void answer(JSON.parse(Buffer.concat(chunks).toString()) as ChatRequestBody));
    let gone = false;
    res.on("close", () => {
      gone = true;
      if (!res.writableEnded) fake.dropped += 1;
    });

    async function answer(body: ChatRequestBody): Promise<void> {
      fake.requests.push(body);
      const reply = fake.script.replies?.shift() ?? "Okay.";
      const r = typeof reply === "string" ? { say: reply } : reply;
      if (r.stallMs) await new Promise((resolve) => setTimeout(resolve, r.stallMs));
      if (gone) return;
      if (r.status) {
        res.writeHead(r.status, { "content-type": "application/json" });
        return void res.end(JSON.stringify({ error: { message: "Rate limit reached", type: "requests", code: "rate_limit_exceeded" } }));
      }
      res.writeHead(200, { "content-type": "text/event-stream", "cache-control": "no-cache" });
      const id = `chatcmpl-${++calls}`;
      const chunk = (delta: Record<string, unknown>, finish: string | null = null) =>
        !gone && res.write(`data: ${JSON.stringify({ id, object: "chat.completion.chunk", created: 0, model: body.model, choices: [{ index: 0, delta, finish_reason: finish }] })}\n\n`);
      chunk({ role: "assistant", content: "" });
      let pieces = 0;
      for (const piece of (r.say ?? "").match(/\S+\s*/g) ?? []) {
        if (gone) return;
        chunk({ content: piece });
        pieces += 1;
        if (r.pieceGapMs) await new Promise((resolve) => setTimeout(resolve, r.pieceGapMs));
      }
      (r.toolCalls ?? []).forEach((call, index) => {
        const args = JSON.stringify(call.arguments);
        const half = Math.floor(args.length / 2);
        chunk({ tool_calls: [{ index, id: `call_${calls}_${index}`, type: "function", function: { name: call.name, arguments: "" } }] });
        chunk({ tool_calls: [{ index, function: { arguments: args.slice(0, half) } }] });
        chunk({ tool_calls: [{ index, function: { arguments: args.slice(half) } }] });
        pieces += 3;
      });
      chunk({}, r.toolCalls?.length ? "tool_calls" : "stop");
      if (gone) return;
      if (body.stream_options?.include_usage) {
        const prompt = Math.ceil(JSON.stringify(body.messages).length / 4);
        fake.usage.prompt += prompt;
        fake.usage.completion += pieces;
        const usage = { prompt_tokens: prompt, completion_tokens: pieces, total_tokens: prompt + pieces, prompt_tokens_details: { cached_tokens: 0, audio_tokens: 0 }, completion_tokens_details: { reasoning_tokens: 0, audio_tokens: 0, accepted_prediction_tokens: 0, rejected_prediction_tokens: 0 } };
        res.write(`data: ${JSON.stringify({ id, object: "chat.completion.chunk", created: 0, model: body.model, choices: [], usage })}\n\n`);
      }
      res.end("data: [DONE]\n\n");
    }
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  fake.baseUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}/v1`;
  fake.close = () => new Promise<void>((resolve) => server.close(() => resolve()));
  return fake;
}
