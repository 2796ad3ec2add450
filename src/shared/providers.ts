/**
 * Providers: the services an assistant's pipeline voice engine speaks through — a transcriber
 * (speech to text), a language model and a voice (text to speech) — with the organisation's key
 * for each (Settings → Providers, `/api/providers`). Keys are write-only: sealed at rest, shown
 * only as a masked hint.
 */
import { z } from "zod";
import { baseUrlFormat, NOT_BLANK, rules, when } from "./wire-formats.js";
import { pageOf } from "./pages.js";
import { withExamples } from "./examples.js";

// ── Enums ─────────────────────────────────────────────────────────────────────────────────────

export const PROVIDER_KINDS = ["transcriber", "model", "voice"] as const;
export type ProviderKind = (typeof PROVIDER_KINDS)[number];

export const PROVIDER_PROTOCOLS = ["deepgram", "openai-transcription", "openai-compatible", "anthropic", "elevenlabs", "cartesia", "openai-speech"] as const;
export type ProviderProtocol = (typeof PROVIDER_PROTOCOLS)[number];

/** Which protocols serve each kind, and each one's own address (used when no base URL is given). */
export const PROTOCOL_INFO: Record<ProviderProtocol, { kind: ProviderKind; label: string; baseUrl: string }> = {
  deepgram: { kind: "transcriber", label: "Deepgram", baseUrl: "https://api.deepgram.com" },
  "openai-transcription": { kind: "transcriber", label: "OpenAI transcription", baseUrl: "https://api.openai.com/v1" },
  "openai-compatible": { kind: "model", label: "OpenAI-compatible Chat Completions", baseUrl: "https://api.openai.com/v1" },
  anthropic: { kind: "model", label: "Anthropic Messages", baseUrl: "https://api.anthropic.com" },
  elevenlabs: { kind: "voice", label: "ElevenLabs", baseUrl: "https://api.elevenlabs.io" },
  cartesia: { kind: "voice", label: "Cartesia", baseUrl: "https://api.cartesia.ai" },
  "openai-speech": { kind: "voice", label: "OpenAI-compatible speech", baseUrl: "https://api.openai.com/v1" },
};

export const PROVIDER_KIND_LABELS: Record<ProviderKind, string> = { transcriber: "Transcriber", model: "Language model", voice: "Voice" };

export const MAX_PROVIDERS = 50;

// ── User-facing texts ─────────────────────────────────────────────────────────────────────────

export const PROVIDER_MESSAGES = {
  nameRequired: "Name is required",
  nameTooLong: "Name must be at most 100 characters",
  kind: "kind must be transcriber, model or voice",
  protocol: `protocol must be one of ${PROVIDER_PROTOCOLS.join(", ")}`,
  protocolKind: (protocol: ProviderProtocol, kind: ProviderKind) =>
    `${PROTOCOL_INFO[protocol].label} is a ${PROVIDER_KIND_LABELS[PROTOCOL_INFO[protocol].kind].toLowerCase()}, not a ${PROVIDER_KIND_LABELS[kind].toLowerCase()}`,
  keyRequired: "API key is required",
  keyCharacters: "An API key has no spaces or special characters (such as curly quotes): check what was pasted",
  baseUrl: "The base URL must be an https:// address such as https://api.groq.com/openai/v1",
  baseUrlNotHttps: (host: string) => `The base URL must use https://; plain http is allowed only for hosts an administrator lists in TOOL_ALLOWED_HOSTS (not ${host})`,
  keyRefused: (protocol: ProviderProtocol, status: number) => `${PROTOCOL_INFO[protocol].label} refused this API key (${status}): check the key, and that it belongs to this service`,
  tooMany: `An organisation can have at most ${MAX_PROVIDERS} providers`,
  unitPrice: "The unit price must be a number of dollars, 0 or more (leave it empty for the list price)",
  previewNotVoice: "Only a voice can be previewed",
  previewFailed: (detail: string) => `The voice service could not voice the sample: ${detail}`,
  inUse: (names: string) => `This provider is used by ${names}. Choose another provider there first.`,
} as const;

export const PROVIDER_TEXTS = {
  title: "Providers",
  description: "The transcribers, language models and voices a pipeline assistant can use, with your key for each. Keys are encrypted and never shown again.",
  empty: "No providers yet.",
  add: "Add provider",
  name: "Name",
  kind: "Kind",
  protocol: "Service",
  baseUrl: "Base URL (optional: the service's own by default)",
  apiKey: "API key",
  unitPrice: "Own price (optional: the list price by default; 0 for a service you run yourself)",
  priceColumn: "Price",
  listPrice: "List price",
  unitPriceUnit: { transcriber: "USD per minute of audio", model: "USD per million tokens", voice: "USD per million characters" } satisfies Record<ProviderKind, string>,
  delete: "Delete",
  saved: "Provider added",
  deleted: "Provider deleted",
} as const;

// ── Wire shapes ───────────────────────────────────────────────────────────────────────────────

const nameSchema = z.string({ error: PROVIDER_MESSAGES.nameRequired }).trim().min(1, { error: PROVIDER_MESSAGES.nameRequired, abort: true }).regex(NOT_BLANK, PROVIDER_MESSAGES.nameRequired).max(100, PROVIDER_MESSAGES.nameTooLong);
const keySchema = z
  .string({ error: PROVIDER_MESSAGES.keyRequired })
  .trim()
  .min(1, { error: PROVIDER_MESSAGES.keyRequired, abort: true })
  .regex(NOT_BLANK, PROVIDER_MESSAGES.keyRequired)
  .max(4096)
  // Printable ASCII: sent as a header, so a pasted sentence or a smart quote is caught here.
  .regex(/^[\x21-\x7e]+$/, PROVIDER_MESSAGES.keyCharacters);
/** Only the URL's shape here; whether plain http is allowed depends on the server's allow-list. */
const baseUrlSchema = z
  .string({ error: PROVIDER_MESSAGES.baseUrl })
  .trim()
  .max(500, PROVIDER_MESSAGES.baseUrl)
  .refine((v) => {
    try {
      const url = new URL(v);
      return (url.protocol === "https:" || url.protocol === "http:") && url.username === "" && url.password === "" && url.search === "" && url.hash === "";
    } catch {
      return false;
    }
  }, PROVIDER_MESSAGES.baseUrl)
  .transform((v) => v.replace(/\/+$/, ""))
  .meta(baseUrlFormat);

/** USD per the kind's unit (PROVIDER_TEXTS.unitPriceUnit); null: the list price (shared/service-prices.ts). */
const unitPriceSchema = z.number({ error: PROVIDER_MESSAGES.unitPrice }).finite(PROVIDER_MESSAGES.unitPrice).min(0, PROVIDER_MESSAGES.unitPrice).max(1_000_000, PROVIDER_MESSAGES.unitPrice);

const kindSchema = z.enum(PROVIDER_KINDS, { error: PROVIDER_MESSAGES.kind });
const protocolSchema = z.enum(PROVIDER_PROTOCOLS, { error: PROVIDER_MESSAGES.protocol });

/** Body of POST /api/providers. */
export const providerInputSchema = withExamples(
  z
    .object({
      name: nameSchema,
      kind: kindSchema,
      protocol: protocolSchema,
      base_url: baseUrlSchema.nullish().transform((v) => v || null),
      api_key: keySchema,
      unit_price: unitPriceSchema.nullish().transform((v) => v ?? null),
    })
    .superRefine((v, ctx) => {
      if (PROTOCOL_INFO[v.protocol].kind !== v.kind) ctx.addIssue({ code: "custom", path: ["protocol"], message: PROVIDER_MESSAGES.protocolKind(v.protocol, v.kind) });
    })
    .meta(rules(...PROVIDER_KINDS.map((kind) => when({ required: ["kind"], properties: { kind: { const: kind } } }, { properties: { protocol: { enum: PROVIDER_PROTOCOLS.filter((p) => PROTOCOL_INFO[p].kind === kind) } } })))),
  { name: "Groq Llama", kind: "model", protocol: "openai-compatible", base_url: "https://api.groq.com/openai/v1", api_key: "gsk_Ex4mpleKey0123456789", unit_price: 0.0006 },
);
export type ProviderInput = z.infer<typeof providerInputSchema>;

/** Body of PATCH /api/providers/:id: the kind and protocol stay; a key left out stays as saved. */
export const providerUpdateSchema = withExamples(
  z.object({
    name: nameSchema.optional(),
    base_url: baseUrlSchema.nullish(),
    api_key: keySchema.optional(),
    /** null: back to the list price. */
    unit_price: unitPriceSchema.nullish(),
  }),
  { name: "Groq Llama (fast)", unit_price: 0.0005 },
);
export type ProviderUpdate = z.infer<typeof providerUpdateSchema>;

export const providerSchema = z.object({
  id: z.string(),
  name: z.string(),
  kind: kindSchema,
  protocol: protocolSchema,
  /** Null: the service's own address (PROTOCOL_INFO). */
  base_url: z.string().nullable(),
  /** Enough to recognise the key, never enough to use it. */
  api_key_hint: z.string(),
  /** USD per the kind's unit (PROVIDER_TEXTS.unitPriceUnit); null: the vendor's list price. */
  unit_price: z.number().nullable(),
  created_at: z.string(),
  updated_at: z.string(),
});
/** GET list: a page of these (src/shared/pages.ts). */
export const providerPageSchema = pageOf(providerSchema);
export type Provider = z.infer<typeof providerSchema>;

export const PREVIEW_SAMPLE_TEXT = "Hello, thanks for calling. How can I help you today?";

/** Body of POST /api/providers/:id/preview: a short sample in `voice` (the voice service's id). */
export const voicePreviewSchema = withExamples(
  z.object({
    voice: z.string({ error: "The voice id is required" }).trim().min(1, { error: "The voice id is required", abort: true }).regex(NOT_BLANK, "The voice id is required").max(200, "Must be at most 200 characters"),
    model: z.string().trim().max(200, "Must be at most 200 characters").nullish().transform((v) => v || null),
    text: z.string().trim().max(200, "The sample text must be at most 200 characters").nullish().transform((v) => v || PREVIEW_SAMPLE_TEXT),
  }),
  { voice: "alloy", model: "tts-1", text: "Thanks for calling Maple Street Clinic." },
);
export type VoicePreview = z.infer<typeof voicePreviewSchema>;

/** The address a provider is reached at: its own, or the service's. */
export const providerBaseUrl = (p: { protocol: ProviderProtocol; base_url: string | null }): string => p.base_url ?? PROTOCOL_INFO[p.protocol].baseUrl;

// ── An assistant's voice engine ───────────────────────────────────────────────────────────────

export const VOICE_ENGINE_TYPES = ["realtime", "gpt-live", "pipeline"] as const;
export type VoiceEngineType = (typeof VOICE_ENGINE_TYPES)[number];

/**
 * What ends a pipeline caller's turn: the transcriber's endpoint and final result, or the voice
 * activity detector's silence (Silero VAD, ADR 078). Either way the VAD's speech barges in.
 */
export const TURN_ENDS = ["transcriber", "vad"] as const;
export type TurnEnd = (typeof TURN_ENDS)[number];
export const DEFAULT_TURN_END: TurnEnd = "transcriber";

export const VOICE_ENGINE_MESSAGES = {
  type: "voice_engine.type must be realtime, gpt-live or pipeline",
  turnEnd: "voice_engine.turn_end must be transcriber or vad",
  gptLiveModel: "The GPT-Live model must be gpt-live-1",
  gptLiveVoice: "The GPT-Live voice must be one of: marin, aster, beacon, cinder, stone, vesper",
  providerId: "Choose a provider",
  modelRequired: "The model name is required",
  voiceRequired: "The voice id is required",
  tooLong: "Must be at most 200 characters",
  wrongKind: (slot: ProviderKind) => `The ${PROVIDER_KIND_LABELS[slot].toLowerCase()} must be a provider of that kind from Settings → Providers`,
  /** A call's end when a service refuses its key mid-call (the record's reason). */
  keyRefusedOnCall: (service: string, status: number, detail: string) =>
    `The ${service} refused its API key (${status}${detail ? `: ${detail}` : ""}). Check the key in Settings → Providers.`,
  timedOut: (service: string, seconds: number) => `the ${service} did not answer within ${seconds} s`,
  providerGone: "The assistant's voice engine names a provider that no longer exists: choose another in its Voice engine settings.",
  providerUnreadable: "A provider's key of this assistant's voice engine can no longer be read: enter it again in Settings → Providers.",
} as const;

export const VOICE_ENGINE_TEXTS = {
  heading: "Voice engine",
  engine: "Engine",
  realtime: "Speech-to-speech: OpenAI Realtime",
  gptLive: "Speech-to-speech: OpenAI GPT-Live",
  gptLiveModel: "GPT-Live model",
  gptLiveVoice: "GPT-Live voice",
  pipeline: "Pipeline: transcriber → language model → voice",
  transcriber: "Transcriber",
  transcriberModel: "Transcription model",
  language: "Language",
  model: "Language model",
  modelName: "Model name",
  voiceProvider: "Voice service",
  voiceId: "Voice id",
  voiceModel: "Voice model",
  turnEnd: "End of the caller's turn",
  turnEnds: {
    transcriber: "When the transcriber has the final words (its endpointing)",
    vad: "After half a second of silence (voice activity detection)",
  } satisfies Record<TurnEnd, string>,
  turnEndHint:
    "Voice activity detection (Silero VAD, run on this server) hears the caller: speech of a quarter second or more stops the assistant at once, even before any words are transcribed. The transcriber waits for complete words; silence answers sooner but may cut in on a pause.",
  preview: "Preview",
  previewing: "Voicing…",
  noProviders: "Add a transcriber, a language model and a voice in Settings → Providers first.",
  /** The estimate of a minute of the chosen services (shared/service-prices.ts's typical minute). */
  perMinute: (usd: number) => `About $${usd.toFixed(4)} a minute at list prices (or your own prices from Settings → Providers)`,
  perMinuteUnknown: "No estimate: the language model has no list price here. Give its provider its own price in Settings → Providers.",
  perMinuteHint: "A typical minute: the caller's audio transcribed, six replies from the model, the assistant talking half the time",
  /** Where the call's audio and words go. */
  leavesNetwork: (services: string) => `Audio and words leave your network: ${services}`,
  staysOnNetwork: "Stays on your network: every service is at a private or loopback address",
  openaiLeaves: "Audio leaves your network: it goes to OpenAI",
} as const;

const text200 = (required: string) => z.string({ error: required }).trim().min(1, { error: required, abort: true }).regex(NOT_BLANK, required).max(200, VOICE_ENGINE_MESSAGES.tooLong);
const optional200 = z.string().trim().max(200, VOICE_ENGINE_MESSAGES.tooLong).nullish().transform((v) => v || null);
const providerIdSchema = z.string({ error: VOICE_ENGINE_MESSAGES.providerId }).trim().min(1, { error: VOICE_ENGINE_MESSAGES.providerId, abort: true }).regex(NOT_BLANK, VOICE_ENGINE_MESSAGES.providerId).max(100, VOICE_ENGINE_MESSAGES.providerId);

/** GPT-Live's models and voices as its docs name them (docs/protocols.md §7). */
export const GPT_LIVE_MODELS = ["gpt-live-1"] as const;
export const GPT_LIVE_VOICES = ["marin", "aster", "beacon", "cinder", "stone", "vesper"] as const;
/**
 * The Responses model GPT-Live delegates tool work to (the docs' example): the assistant's tools
 * ride on it. Not a setting of the engine: the voice model is what the caller hears.
 */
export const GPT_LIVE_DELEGATION_MODEL = "gpt-5.5";

export const gptLiveEngineSchema = z.object({
  type: z.literal("gpt-live"),
  model: z.enum(GPT_LIVE_MODELS, { error: VOICE_ENGINE_MESSAGES.gptLiveModel }).default("gpt-live-1"),
  voice: z.enum(GPT_LIVE_VOICES, { error: VOICE_ENGINE_MESSAGES.gptLiveVoice }).default("marin"),
});
export type GptLiveEngine = z.infer<typeof gptLiveEngineSchema>;

export const pipelineEngineSchema = z.object({
  type: z.literal("pipeline"),
  transcriber: z.object({ provider_id: providerIdSchema, model: optional200, language: optional200 }),
  model: z.object({ provider_id: providerIdSchema, model: text200(VOICE_ENGINE_MESSAGES.modelRequired) }),
  voice: z.object({ provider_id: providerIdSchema, voice: text200(VOICE_ENGINE_MESSAGES.voiceRequired), model: optional200 }),
  /** What ends the caller's turn (TURN_ENDS); the VAD barges in either way. */
  turn_end: z
    .enum(TURN_ENDS, { error: VOICE_ENGINE_MESSAGES.turnEnd })
    .default(DEFAULT_TURN_END)
    .meta({ description: "What ends the caller's turn: `transcriber` (its endpointing and final words, the default) or `vad` (half a second of silence heard by voice activity detection; the words so far, interim ones included). The caller's speech stops the assistant either way." }),
});
export type PipelineEngine = z.infer<typeof pipelineEngineSchema>;

/**
 * `{ type: "realtime" }` (the default: OpenAI Realtime with the assistant's model and voice),
 * `{ type: "gpt-live", model, voice }` (OpenAI GPT-Live, the tools delegated to a Responses model), or a
 * pipeline of three providers of the assistant's organisation (checked by the server on save).
 */
export const voiceEngineSchema = z.discriminatedUnion("type", [z.object({ type: z.literal("realtime") }), gptLiveEngineSchema, pipelineEngineSchema], { error: VOICE_ENGINE_MESSAGES.type });
export type VoiceEngine = z.infer<typeof voiceEngineSchema>;

/** The same as the API answers it (no defaults or trimming to apply). */
const slot = <T extends z.ZodRawShape>(shape: T) => z.object({ provider_id: z.string(), ...shape });
export const voiceEngineViewSchema = z.discriminatedUnion("type", [
  z.object({ type: z.literal("realtime") }),
  z.object({ type: z.literal("gpt-live"), model: z.enum(GPT_LIVE_MODELS), voice: z.enum(GPT_LIVE_VOICES) }),
  z.object({
    type: z.literal("pipeline"),
    transcriber: slot({ model: z.string().nullable(), language: z.string().nullable() }),
    model: slot({ model: z.string() }),
    voice: slot({ voice: z.string(), model: z.string().nullable() }),
    // Engines saved before the setting existed end turns as they did then: on the transcriber.
    turn_end: z.enum(TURN_ENDS).default(DEFAULT_TURN_END),
  }),
]);
export const DEFAULT_VOICE_ENGINE: VoiceEngine = { type: "realtime" };
