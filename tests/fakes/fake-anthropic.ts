/**
 * A stand-in for Anthropic's Messages API (`POST /v1/messages`, `stream: true`) on a real local
 * port: `x-api-key` and `anthropic-version` headers (else 401 with `{ type: "error", error }`),
 * then server-sent events as documented — `event: <type>` and `data: {…}` lines: `message_start`,
 * per block `content_block_start` / `content_block_delta` (`text_delta`, or `input_json_delta`
 * fragments of a `tool_use` block's input) / `content_block_stop`, `message_delta` with the stop
 * reason, `message_stop`.
 *
 * Each request takes the next of `script.replies` ("Okay." when none is left) and is recorded.
 */
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { answerKeyCheck } from "./key-check-route.ts";

export type AnthropicReply = string | { say?: string; toolUses?: Array<{ name: string; input: Record<string, unknown> }> };

export interface AnthropicRequestBody {
  model: string;
  max_tokens: number;
  system?: string;
  stream?: boolean;
  messages: Array<{ role: "user" | "assistant"; content: Array<Record<string, unknown>> | string }>;
  tools?: Array<{ name: string; description?: string; input_schema: unknown }>;
}

export interface FakeAnthropic {
  baseUrl: string;
  apiKey: string;
  script: { replies?: AnthropicReply[] };
  requests: AnthropicRequestBody[];
  close(): Promise<void>;
}

export async function startFakeAnthropic(options: { apiKey: string }): Promise<FakeAnthropic> {
  const fake: FakeAnthropic = { baseUrl: "", apiKey: options.apiKey, script: {}, requests: [], close: async () => {} };
  let count = 0;
  const server: Server = createServer((req, res) => {
    const refusal = { type: "error", error: { type: "authentication_error", message: "invalid x-api-key" } };
    if (answerKeyCheck(req, res, { path: "/v1/models", accepted: req.headers["x-api-key"] === fake.apiKey, refusal })) return;
    if (req.method !== "POST" || req.url !== "/v1/messages") return void res.writeHead(404).end();
    if (req.headers["x-api-key"] !== fake.apiKey || !req.headers["anthropic-version"]) {
      res.writeHead(401, { "content-type": "application/json" });
      return void res.end(JSON.stringify({ type: "error", error: { type: "authentication_error", message: "invalid x-api-key" } }));
    }
    const chunks: Buffer[] = [];
    req.on("data", (c: Buffer) => chunks.push(c));
    req.on("end", () => {
      const body = JSON.parse(Buffer.concat(chunks).toString()) as AnthropicRequestBody;
      fake.requests.push(body);
      const reply = fake.script.replies?.shift() ?? "Okay.";
      const r = typeof reply === "string" ? { say: reply } : reply;
      res.writeHead(200, { "content-type": "text/event-stream" });
      const send = (type: string, data: Record<string, unknown>) => res.write(`event: ${type}\ndata: ${JSON.stringify({ type, ...data })}\n\n`);
      const id = `msg_${++count}`;
      send("message_start", { message: { id, type: "message", role: "assistant", model: body.model, content: [], stop_reason: null, usage: { input_tokens: 10, cache_creation_input_tokens: 0, cache_read_input_tokens: 0, output_tokens: 1 } } });
      let index = 0;
      if (r.say) {
        send("content_block_start", { index, content_block: { type: "text", text: "" } });
        for (const piece of r.say.match(/\S+\s*/g) ?? []) send("content_block_delta", { index, delta: { type: "text_delta", text: piece } });
        send("content_block_stop", { index });
        index += 1;
      }
      for (const use of r.toolUses ?? []) {
        const json = JSON.stringify(use.input);
        send("content_block_start", { index, content_block: { type: "tool_use", id: `toolu_${count}_${index}`, name: use.name, input: {} } });
        send("content_block_delta", { index, delta: { type: "input_json_delta", partial_json: json.slice(0, 5) } });
        send("content_block_delta", { index, delta: { type: "input_json_delta", partial_json: json.slice(5) } });
        send("content_block_stop", { index });
        index += 1;
      }
      send("message_delta", { delta: { stop_reason: r.toolUses?.length ? "tool_use" : "end_turn", stop_sequence: null }, usage: { output_tokens: 12 } });
      send("message_stop", {});
      res.end();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  fake.baseUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  fake.close = () => new Promise<void>((resolve) => server.close(() => resolve()));
  return fake;
}
