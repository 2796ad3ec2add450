/** How the fake Realtime server streams one response: spoken audio + transcript, or a function call in pieces. */
import type { CallAudioFormat } from "../../src/server/voice/audio.ts";
import { tone } from "./realtime-audio.ts";
import { splitWords, type FakeItem, type FakeReplySpec, type FakeToolCall, type Json } from "./realtime-fake-script.ts";

export interface ActiveResponse {
  id: string;
  cancelled: boolean;
  /** The item being spoken, as response.done lists it if the response is cancelled now. */
  partial?: Json;
}

export interface ResponseContext {
  send(event: Json): void;
  /** Yield to the event loop (so a cancel can arrive), or wait `ms`. */
  tick(ms?: number): Promise<void>;
  nextId(prefix: string): string;
  conversation: FakeItem[];
  outputFormat: CallAudioFormat;
  chunkMs: number | undefined;
  beforeAudioDelta?: (audio: Buffer, delta: { itemId: string; offsetMs: number }) => void;
}

export async function speak(ctx: ResponseContext, active: ActiveResponse, reply: FakeReplySpec): Promise<Json> {
  const text = reply.say ?? "";
  const itemId = ctx.nextId("item_assistant");
  const item: FakeItem = { id: itemId, type: "message", role: "assistant", text, audioMs: 0 };
  ctx.conversation.push(item);
  const base = { response_id: active.id, item_id: itemId, output_index: 0, content_index: 0 };
  ctx.send({ type: "response.output_item.added", response_id: active.id, output_index: 0, item: { id: itemId, type: "message", role: "assistant", status: "in_progress", content: [] } });
  ctx.send({ type: "conversation.item.added", item: { id: itemId, type: "message", role: "assistant", status: "in_progress", content: [] } });
  ctx.send({ type: "response.content_part.added", ...base, part: { type: "audio", transcript: "" } });
  const pieces = reply.pieces ?? splitWords(text);
  const chunkMs = reply.chunkMs ?? ctx.chunkMs ?? 100;
  const totalMs = reply.audioMs ?? 400;
  const chunks = Math.ceil(totalMs / chunkMs);
  const rate = ctx.outputFormat === "audio/pcm" ? 24 : 8;
  const lag = reply.transcriptLagChunks ?? 0;
  for (let i = 0; i < Math.max(chunks, pieces.length + lag); i += 1) {
    const piece = i - lag;
    if (piece > 0 && piece < pieces.length && reply.pieceGapMs) await ctx.tick(reply.pieceGapMs);
    if (active.cancelled) break;
    // What the model has generated so far (its text runs ahead of the transcript deltas).
    const generated = pieces.slice(0, i + 1).join("");
    active.partial = { id: itemId, type: "message", role: "assistant", status: "incomplete", content: [{ type: "output_audio", transcript: generated }] };
    if (piece >= 0 && piece < pieces.length) ctx.send({ type: "response.output_audio_transcript.delta", ...base, delta: pieces[piece] });
    if (i < chunks) {
      const ms = Math.min(chunkMs, totalMs - i * chunkMs);
      const audio = tone(ctx.outputFormat, ms, i * chunkMs * rate);
      ctx.beforeAudioDelta?.(audio, { itemId, offsetMs: i * chunkMs });
      ctx.send({ type: "response.output_audio.delta", ...base, delta: audio.toString("base64") });
      item.audioMs! += ms;
    }
    await ctx.tick();
  }
  if (!active.cancelled) {
    active.partial = undefined;
    ctx.send({ type: "response.output_audio.done", ...base });
    ctx.send({ type: "response.output_audio_transcript.done", ...base, transcript: pieces.join("") });
    ctx.send({ type: "response.content_part.done", ...base, part: { type: "audio", transcript: pieces.join("") } });
    const done = { id: itemId, type: "message", role: "assistant", status: "completed", content: [{ type: "output_audio", transcript: pieces.join("") }] };
    ctx.send({ type: "response.output_item.done", response_id: active.id, output_index: 0, item: done });
    ctx.send({ type: "conversation.item.done", item: done });
    return done;
  }
  return { id: itemId, type: "message", role: "assistant", status: "incomplete", content: [] };
}

export async function callTool(ctx: ResponseContext, active: ActiveResponse, call: FakeToolCall): Promise<Json> {
  const itemId = ctx.nextId("item_fc");
  const callId = call.callId ?? `call_${Math.random().toString(36).slice(2, 12)}`;
  const args = typeof call.arguments === "string" ? call.arguments : JSON.stringify(call.arguments);
  ctx.conversation.push({ id: itemId, type: "function_call", call_id: callId, name: call.name, arguments: args });
  const item = { id: itemId, type: "function_call", call_id: callId, name: call.name, arguments: "", status: "in_progress" };
  ctx.send({ type: "response.output_item.added", response_id: active.id, output_index: 0, item });
  ctx.send({ type: "conversation.item.added", item });
  const count = Math.max(1, call.pieces ?? 3);
  const size = Math.ceil(args.length / count) || 1;
  for (let at = 0; at < args.length; at += size) {
    ctx.send({ type: "response.function_call_arguments.delta", response_id: active.id, item_id: itemId, output_index: 0, call_id: callId, delta: args.slice(at, at + size) });
    await ctx.tick();
    if (active.cancelled) return { ...item, status: "incomplete" };
  }
  ctx.send({ type: "response.function_call_arguments.done", response_id: active.id, item_id: itemId, output_index: 0, call_id: callId, name: call.name, arguments: args });
  const done = { ...item, arguments: args, status: "completed" };
  ctx.send({ type: "response.output_item.done", response_id: active.id, output_index: 0, item: done });
  ctx.send({ type: "conversation.item.done", item: done });
  return done;
}
