/**
 * Anthropic's Messages API (`POST {base}/v1/messages`, `stream: true`) as the pipeline's model:
 * `x-api-key` and `anthropic-version` headers; the system prompt apart (`system`), tools as
 * `{ name, description, input_schema }`. The answer is server-sent events: `message_start`,
 * `content_block_start` (a `text` block, or a `tool_use` block with its id and name),
 * `content_block_delta` (`text_delta`, or `input_json_delta` fragments of the tool's input),
 * `content_block_stop`, `message_delta` (the stop reason), `message_stop`; `error` on failure.
 * Usage: `message_start.message.usage` has the prompt's `input_tokens` (and the cache's
 * `cache_read_input_tokens`/`cache_creation_input_tokens`, apart from them), `message_delta.usage`
 * the answer's `output_tokens` so far (cumulative).
 *
 * The pipeline keeps its conversation in Chat Completions' shape (chat-completions.ts); it is
 * translated here: system lines join the system prompt, an assistant's tool calls become
 * `tool_use` blocks and their outputs `tool_result` blocks of the next user turn, and turns of
 * one role in a row are merged (the API wants them alternating).
 */
import { sseData } from "./sse.ts";
import { postStreaming } from "./streaming-post.ts";
import { ChatError, type ChatMessage, type ChatRequest, type ChatResult, type ChatToolCall } from "./chat-completions.ts";

export const ANTHROPIC_VERSION = "2023-06-01";
const MAX_TOKENS = 1024;

type Block = { type: "text"; text: string } | { type: "tool_use"; id: string; name: string; input: unknown } | { type: "tool_result"; tool_use_id: string; content: string };
interface Turn {
  role: "user" | "assistant";
  content: Block[];
}

export function toAnthropic(messages: ChatMessage[]): { system: string; messages: Turn[] } {
  const system: string[] = [];
  const turns: Turn[] = [];
  const push = (role: Turn["role"], blocks: Block[]) => {
    if (blocks.length === 0) return;
    const last = turns.at(-1);
    if (last?.role === role) last.content.push(...blocks);
    else turns.push({ role, content: blocks });
  };
  for (const m of messages) {
    if (m.role === "tool") push("user", [{ type: "tool_result", tool_use_id: m.tool_call_id, content: m.content }]);
    else if (m.role !== "assistant") {
      if (m.role === "system") system.push(m.content);
      else push("user", m.content ? [{ type: "text", text: m.content }] : []);
    } else {
      const blocks: Block[] = m.content ? [{ type: "text", text: m.content }] : [];
      for (const call of m.tool_calls ?? []) blocks.push({ type: "tool_use", id: call.id, name: call.function.name, input: safeJson(call.function.arguments) });
      push("assistant", blocks);
    }
  }
  // The conversation must open with the caller's side (a call opens with the greeting).
  if (turns[0]?.role === "assistant") turns.unshift({ role: "user", content: [{ type: "text", text: "(The call has connected.)" }] });
  return { system: system.join("\n\n"), messages: turns };
}

function safeJson(text: string): unknown {
  try {
    return JSON.parse(text || "{}");
  } catch {
    return {};
  }
}

interface AnthropicUsage {
  input_tokens?: number;
  output_tokens?: number;
  cache_read_input_tokens?: number | null;
  cache_creation_input_tokens?: number | null;
}

interface StreamEvent {
  type: string;
  message?: { usage?: AnthropicUsage };
  usage?: AnthropicUsage;
  index?: number;
  content_block?: { type: string; id?: string; name?: string };
  delta?: { type?: string; text?: string; partial_json?: string };
  error?: { message?: string };
}

export async function streamAnthropic(r: ChatRequest): Promise<ChatResult> {
  const { system, messages } = toAnthropic(r.messages);
  const res = await postStreaming(
    `${r.baseUrl.replace(/\/+$/, "")}/v1/messages`,
    { "content-type": "application/json", "x-api-key": r.apiKey, "anthropic-version": ANTHROPIC_VERSION, accept: "text/event-stream" },
    JSON.stringify({
      model: r.model,
      max_tokens: MAX_TOKENS,
      system,
      messages,
      stream: true,
      ...(r.tools.length > 0 ? { tools: r.tools.map((t) => ({ name: t.function.name, description: t.function.description, input_schema: t.function.parameters ?? { type: "object" } })) } : {}),
    }),
    r.signal,
  );
  if (!res.ok) {
    const body = (await res.json().catch(() => null)) as { error?: { message?: string } } | null;
    throw new ChatError(`the language model answered ${res.status}${body?.error?.message ? `: ${body.error.message}` : ""}`, res.status, body?.error?.message ?? "");
  }
  let text = "";
  const calls = new Map<number, ChatToolCall>();
  let outputSoFar = 0;
  for await (const data of sseData(res.body)) {
    let event: StreamEvent;
    try {
      event = JSON.parse(data) as StreamEvent;
    } catch {
      continue;
    }
    if (event.type === "message_start" && event.message?.usage) {
      const u = event.message.usage;
      const cached = (u.cache_read_input_tokens ?? 0) + (u.cache_creation_input_tokens ?? 0);
      outputSoFar = u.output_tokens ?? 0;
      r.onUsage?.({ input: (u.input_tokens ?? 0) + cached, cached: u.cache_read_input_tokens ?? 0, output: outputSoFar });
    } else if (event.type === "message_delta" && event.usage?.output_tokens !== undefined) {
      // Cumulative: only what is new since the last report.
      const more = Math.max(0, event.usage.output_tokens - outputSoFar);
      outputSoFar = event.usage.output_tokens;
      r.onUsage?.({ input: 0, cached: 0, output: more });
    }
    if (event.type === "error") throw new ChatError(`the language model failed: ${event.error?.message ?? "unknown error"}`);
    if (event.type === "content_block_start" && event.content_block?.type === "tool_use") {
      calls.set(event.index ?? 0, { id: event.content_block.id ?? "", type: "function", function: { name: event.content_block.name ?? "", arguments: "" } });
    } else if (event.type === "content_block_delta" && event.delta?.type === "text_delta" && event.delta.text) {
      text += event.delta.text;
      r.onText(event.delta.text);
    } else if (event.type === "content_block_delta" && event.delta?.type === "input_json_delta") {
      const call = calls.get(event.index ?? 0);
      if (call) call.function.arguments += event.delta.partial_json ?? "";
    } else if (event.type === "message_stop") {
      return { text, toolCalls: [...calls.values()] };
    }
  }
  return { text, toolCalls: [...calls.values()] };
}
