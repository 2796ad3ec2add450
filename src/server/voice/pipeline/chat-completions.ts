/**
 * An OpenAI-compatible Chat Completions endpoint (`POST {base}/chat/completions`, `stream: true`),
 * the pipeline's mind: the answer arrives as server-sent events, `data: {chunk}` lines ending
 * with `data: [DONE]`; each chunk's `choices[0].delta` carries a piece of `content`, or pieces of
 * `tool_calls` (by `index`: the id and name first, then the JSON arguments in fragments). With
 * `stream_options.include_usage`, a last chunk before `[DONE]` has no choices and the request's
 * `usage` (`prompt_tokens`, `completion_tokens`, `prompt_tokens_details.cached_tokens`).
 */

import { ServiceError } from "./service-error.ts";
import { sseData } from "./sse.ts";
import { postStreaming } from "./streaming-post.ts";

export type ChatMessage =
  | { role: "system" | "user"; content: string }
  | { role: "assistant"; content: string | null; tool_calls?: ChatToolCall[] }
  | { role: "tool"; tool_call_id: string; content: string };

export interface ChatToolCall {
  id: string;
  type: "function";
  function: { name: string; arguments: string };
}

export interface ChatTool {
  type: "function";
  function: { name: string; description?: string; parameters?: unknown };
}

export interface ChatRequest {
  baseUrl: string;
  apiKey: string;
  model: string;
  messages: ChatMessage[];
  tools: ChatTool[];
  signal: AbortSignal;
  /** Each piece of the answer's text as it streams. */
  onText(piece: string): void;
  /** Tokens the service reports as billed, as they come (an answer cut off may still report its prompt). */
  onUsage?(usage: ModelUsage): void;
}

/** Tokens of one request: `input` includes `cached`. Reported as increments. */
export interface ModelUsage {
  input: number;
  cached: number;
  output: number;
}

export interface ChatResult {
  text: string;
  toolCalls: ChatToolCall[];
}

export class ChatError extends ServiceError {
  constructor(message: string, status = 0, detail = "") {
    super(message, "language model", status, detail);
  }
}

interface Chunk {
  usage?: { prompt_tokens?: number; completion_tokens?: number; prompt_tokens_details?: { cached_tokens?: number } | null } | null;
  choices?: Array<{ delta?: { content?: string | null; tool_calls?: Array<{ index: number; id?: string; function?: { name?: string; arguments?: string } }> } }>;
}

export async function streamChat(r: ChatRequest): Promise<ChatResult> {
  const res = await postStreaming(
    `${r.baseUrl.replace(/\/+$/, "")}/chat/completions`,
    { "content-type": "application/json", authorization: `Bearer ${r.apiKey}`, accept: "text/event-stream" },
    JSON.stringify({ model: r.model, messages: r.messages, stream: true, stream_options: { include_usage: true }, ...(r.tools.length > 0 ? { tools: r.tools } : {}) }),
    r.signal,
  );
  if (!res.ok) {
    const body = (await res.json().catch(() => null)) as { error?: { message?: string } } | null;
    throw new ChatError(`the language model answered ${res.status}${body?.error?.message ? `: ${body.error.message}` : ""}`, res.status, body?.error?.message ?? "");
  }
  let text = "";
  const calls: ChatToolCall[] = [];
  for await (const data of sseData(res.body)) {
    if (data === "[DONE]") return { text, toolCalls: calls.filter(Boolean) };
    let chunk: Chunk;
    try {
      chunk = JSON.parse(data) as Chunk;
    } catch {
      continue;
    }
    if (chunk.usage) {
      const u = chunk.usage;
      r.onUsage?.({ input: u.prompt_tokens ?? 0, cached: u.prompt_tokens_details?.cached_tokens ?? 0, output: u.completion_tokens ?? 0 });
    }
    const delta = chunk.choices?.[0]?.delta;
    if (delta?.content) {
      text += delta.content;
      r.onText(delta.content);
    }
    for (const part of delta?.tool_calls ?? []) {
      const call = (calls[part.index] ??= { id: "", type: "function", function: { name: "", arguments: "" } });
      if (part.id) call.id = part.id;
      if (part.function?.name) call.function.name += part.function.name;
      if (part.function?.arguments) call.function.arguments += part.function.arguments;
    }
  }
  return { text, toolCalls: calls.filter(Boolean) };
}
