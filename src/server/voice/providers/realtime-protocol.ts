/**
 * OpenAI Realtime **GA** wire shapes (protocols §1): the server events the call
 * engine handles, parsed once at the edge with zod, and the client payloads it sends.
 * The beta shape (`modalities`, `pcm16`, `temperature`, OpenAI-Beta header) is never used.
 */
import { z } from "zod";
import { BASE64_TEXT, type CallAudioFormat } from "../audio.ts";
import type { ProviderFunctionTool } from "../tool-resolution.ts";

// ---------------------------------------------------------------------------
// Client side

export type RealtimeAudioFormat = { type: "audio/pcm"; rate: 24000 } | { type: "audio/pcmu" };

export function providerAudioFormat(format: CallAudioFormat): RealtimeAudioFormat {
  return format === "audio/pcm" ? { type: "audio/pcm", rate: 24000 } : { type: "audio/pcmu" };
}

/**
 * Spec §9 voice activity: threshold 0.5, 300 ms prefix padding, 1000 ms silence. Set
 * explicitly rather than left to defaults: the provider answers each finished turn on its own
 * (`create_response`), and does NOT cancel on speech start (`interrupt_response: false`) —
 * the engine does, on `speech_started`, together with the clear and the truncation, so one
 * party owns the barge-in and no cancel races another (docs/decisions/013-barge-in-ledger.md).
 */
export const TURN_DETECTION = {
  type: "server_vad",
  threshold: 0.5,
  prefix_padding_ms: 300,
  silence_duration_ms: 1000,
  create_response: true,
  interrupt_response: false,
} as const;

export type TurnDetection = Omit<typeof TURN_DETECTION, "create_response"> & { create_response: boolean };

/** Turn detection with the assistant answering each finished turn (normal) or not (a supervisor has taken over). */
export function turnDetection(answers: boolean): TurnDetection {
  return { ...TURN_DETECTION, create_response: answers };
}

/**
 * A partial `session.update` (protocols §1.3: only fields present change) that switches the
 * assistant's own answers off or on. Speech detection and input transcription go on, so the
 * caller's turns keep reaching the conversation and the transcript while a supervisor talks.
 * Nothing else is resent: the voice, for one, cannot change once the model has spoken.
 */
export function answersUpdate(answers: boolean): RealtimeSessionUpdate {
  return { type: "realtime", audio: { input: { turn_detection: turnDetection(answers) } } };
}

export interface RealtimeSessionUpdate {
  type: "realtime";
  audio: { input: { turn_detection: TurnDetection } };
}

export const TRANSCRIPTION_MODEL = "gpt-4o-mini-transcribe";

export interface RealtimeSessionConfig {
  type: "realtime";
  model: string;
  instructions: string;
  output_modalities: ["audio"];
  audio: {
    input: {
      format: RealtimeAudioFormat;
      transcription: { model: string };
      turn_detection: TurnDetection;
    };
    output: { format: RealtimeAudioFormat; voice: string };
  };
  tools: ProviderFunctionTool[];
  tool_choice: "auto";
  max_output_tokens: "inf";
}

export interface SessionConfigInput {
  model: string;
  instructions: string;
  voice: string;
  format: CallAudioFormat;
  tools: ProviderFunctionTool[];
  /** False while a supervisor has taken over: the session then does not answer turns itself. */
  answers?: boolean;
}

/** The GA `session.update` body. The model's temperature is not part of GA: never sent. */
export function buildSessionConfig(input: SessionConfigInput): RealtimeSessionConfig {
  const format = providerAudioFormat(input.format);
  return {
    type: "realtime",
    model: input.model,
    instructions: input.instructions,
    output_modalities: ["audio"],
    audio: {
      input: { format, transcription: { model: TRANSCRIPTION_MODEL }, turn_detection: turnDetection(input.answers ?? true) },
      output: { format, voice: input.voice },
    },
    tools: input.tools,
    tool_choice: "auto",
    max_output_tokens: "inf",
  };
}

export type ConversationItem =
  | { type: "message"; role: "user" | "system"; content: Array<{ type: "input_text"; text: string }> }
  /** Clients may create assistant text items (never assistant audio): a renewed session's context. */
  | { type: "message"; role: "assistant"; content: Array<{ type: "output_text"; text: string }> }
  | { type: "function_call_output"; call_id: string; output: string };

/** Per-response overrides of `response.create` (GA field names). */
export interface ResponseOptions {
  instructions?: string;
  tool_choice?: "auto" | "none";
}

// ---------------------------------------------------------------------------
// Server side

const item = z.looseObject({
  id: z.string().optional(),
  type: z.string(),
  call_id: z.string().optional(),
  name: z.string().optional(),
  arguments: z.string().optional(),
  status: z.string().optional(),
  /** message items: their parts (output_audio carries the transcript). */
  content: z.array(z.looseObject({ type: z.string(), transcript: z.string().nullish(), text: z.string().nullish() })).optional(),
});

const errorBody = z.looseObject({
  type: z.string().optional(),
  code: z.string().nullish(),
  message: z.string().optional().default("Unknown error"),
  param: z.string().nullish(),
  event_id: z.string().nullish(),
});

/** protocols §1.10: what a response consumed. Every part optional: failed responses report zeros or less. */
const tokenCount = z.number().nonnegative().optional();
const responseUsage = z.looseObject({
  total_tokens: tokenCount,
  input_tokens: tokenCount,
  output_tokens: tokenCount,
  input_token_details: z
    .looseObject({
      text_tokens: tokenCount,
      audio_tokens: tokenCount,
      image_tokens: tokenCount,
      cached_tokens: tokenCount,
      cached_tokens_details: z.looseObject({ text_tokens: tokenCount, audio_tokens: tokenCount, image_tokens: tokenCount }).nullish(),
    })
    .nullish(),
  output_token_details: z.looseObject({ text_tokens: tokenCount, audio_tokens: tokenCount }).nullish(),
});
export type ResponseUsage = z.infer<typeof responseUsage>;

/** Input transcription is billed apart: by tokens, or by duration for some models. */
const transcriptionUsage = z.union([
  z.looseObject({ type: z.literal("duration"), seconds: z.number().nonnegative() }),
  z.looseObject({
    type: z.literal("tokens"),
    input_tokens: tokenCount,
    output_tokens: tokenCount,
    total_tokens: tokenCount,
    input_token_details: z.looseObject({ audio_tokens: tokenCount, text_tokens: tokenCount }).nullish(),
  }),
]);
export type TranscriptionUsage = z.infer<typeof transcriptionUsage>;

const serverEvent = z.discriminatedUnion("type", [
  z.looseObject({ type: z.literal("error"), error: errorBody }),
  z.looseObject({ type: z.literal("session.created"), session: z.looseObject({ expires_at: z.number().optional() }) }),
  z.looseObject({ type: z.literal("session.updated"), session: z.looseObject({}) }),
  z.looseObject({ type: z.literal("response.created"), response: z.looseObject({ id: z.string() }) }),
  z.looseObject({
    type: z.literal("response.done"),
    response: z.looseObject({
      id: z.string(),
      status: z.string().optional(),
      status_details: z
        .looseObject({
          type: z.string().optional(),
          reason: z.string().nullish(),
          error: z.looseObject({ type: z.string().optional(), code: z.string().nullish(), message: z.string().optional() }).nullish(),
        })
        .nullish(),
      output: z.array(item).optional(),
      // An unreadable usage must not cost the response: it is dropped, not the event.
      usage: responseUsage.nullish().catch(null),
    }),
  }),
  z.looseObject({ type: z.literal("response.output_item.added"), response_id: z.string(), item }),
  z.looseObject({ type: z.literal("response.output_item.done"), response_id: z.string(), item }),
  z.looseObject({ type: z.literal("response.output_audio.delta"), response_id: z.string(), item_id: z.string(), delta: z.string() }),
  z.looseObject({ type: z.literal("response.output_audio.done"), response_id: z.string(), item_id: z.string() }),
  z.looseObject({ type: z.literal("response.output_audio_transcript.delta"), item_id: z.string(), delta: z.string() }),
  z.looseObject({ type: z.literal("response.output_audio_transcript.done"), item_id: z.string(), transcript: z.string() }),
  z.looseObject({ type: z.literal("response.output_text.delta"), item_id: z.string(), delta: z.string() }),
  z.looseObject({
    type: z.literal("response.function_call_arguments.delta"),
    response_id: z.string(),
    item_id: z.string(),
    call_id: z.string(),
    delta: z.string(),
  }),
  z.looseObject({
    type: z.literal("response.function_call_arguments.done"),
    response_id: z.string(),
    item_id: z.string(),
    call_id: z.string(),
    name: z.string().optional(),
    arguments: z.string(),
  }),
  z.looseObject({ type: z.literal("input_audio_buffer.speech_started"), audio_start_ms: z.number(), item_id: z.string() }),
  z.looseObject({ type: z.literal("input_audio_buffer.speech_stopped"), audio_end_ms: z.number(), item_id: z.string() }),
  z.looseObject({ type: z.literal("input_audio_buffer.committed"), item_id: z.string() }),
  z.looseObject({
    type: z.literal("conversation.item.input_audio_transcription.completed"),
    item_id: z.string(),
    transcript: z.string(),
    usage: transcriptionUsage.nullish().catch(null),
  }),
  z.looseObject({
    type: z.literal("conversation.item.input_audio_transcription.failed"),
    item_id: z.string(),
    error: z.looseObject({ message: z.string().optional() }).optional(),
  }),
  z.looseObject({
    type: z.literal("conversation.item.truncated"),
    item_id: z.string(),
    content_index: z.number(),
    audio_end_ms: z.number(),
  }),
]);

export type RealtimeServerEvent = z.infer<typeof serverEvent>;
export type RealtimeServerEventType = RealtimeServerEvent["type"];
export type RealtimeItem = z.infer<typeof item>;

const handledTypes = new Set<string>(serverEvent.options.map((option) => option.shape.type.value));

export type ParsedServerEvent =
  | { kind: "event"; event: RealtimeServerEvent }
  /** A type the engine does not use (rate_limits.updated, content parts, ...). */
  | { kind: "ignored"; type: string }
  | { kind: "invalid"; reason: string };

/**
 * The one event of every 20–100 ms of a call, checked by hand (the same rule as its schema
 * above, extra fields kept): schema validation of each audio delta was a measurable share of a
 * phone call's CPU. The delta must be base64 text: a phone call passes it into Twilio's JSON
 * as it is.
 */
function audioDelta(json: Record<string, unknown>): ParsedServerEvent {
  const { response_id, item_id, delta } = json;
  if (typeof response_id === "string" && typeof item_id === "string" && typeof delta === "string" && BASE64_TEXT.test(delta)) {
    return { kind: "event", event: json as Extract<RealtimeServerEvent, { type: "response.output_audio.delta" }> };
  }
  const missing = [typeof response_id === "string" ? null : "response_id", typeof item_id === "string" ? null : "item_id", typeof delta === "string" ? null : "delta"].filter(Boolean);
  if (missing.length === 0) return { kind: "invalid", reason: "response.output_audio.delta: delta is not base64" };
  return { kind: "invalid", reason: `response.output_audio.delta: ${missing.map((m) => `${m} expected string`).join("; ")}` };
}

export function parseServerEvent(text: string): ParsedServerEvent {
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch {
    return { kind: "invalid", reason: "not JSON" };
  }
  const type = json && typeof json === "object" ? (json as { type?: unknown }).type : undefined;
  if (typeof type !== "string") return { kind: "invalid", reason: "no type" };
  if (!handledTypes.has(type)) return { kind: "ignored", type };
  if (type === "response.output_audio.delta") return audioDelta(json as Record<string, unknown>);
  // The transcript's words come nearly as often: checked by hand too; what fails goes to the schema for its reason.
  if (type === "response.output_audio_transcript.delta") {
    const { item_id, delta } = json as Record<string, unknown>;
    if (typeof item_id === "string" && typeof delta === "string") return { kind: "event", event: json as Extract<RealtimeServerEvent, { type: typeof type }> };
  }
  const parsed = serverEvent.safeParse(json);
  return parsed.success
    ? { kind: "event", event: parsed.data }
    : { kind: "invalid", reason: `${type}: ${parsed.error.issues.map((i) => `${i.path.join(".")} ${i.message}`).join("; ")}` };
}
