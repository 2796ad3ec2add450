import { z } from "zod";
import { pageOf } from "./pages.js";
import { analysisSettingsSchema, DEFAULT_ANALYSIS_SETTINGS } from "./analysis.js";
import { uuidSchema } from "./ids.js";
import { assistantKnowledgeSchema, DEFAULT_ASSISTANT_KNOWLEDGE, knowledgeBaseIdsSchema } from "./knowledge.js";
import { isTimeZone } from "./variables.js";
import { DEFAULT_VOICE_ENGINE, voiceEngineSchema, voiceEngineViewSchema } from "./providers.js";
import { e164Format, given, NOT_BLANK, oneOfText, sipUriFormat, timeZoneFormat, when } from "./wire-formats.js";
import { EXAMPLE_IDS, EXAMPLE_PHONES, withExamples } from "./examples.js";

// ── Voice and model (beyond the spec: the provider's GA options, design §1) ─────────────

/** The provider's built-in realtime voices (protocols §1.3, `audio.output.voice`). */
export const ASSISTANT_VOICES = ["alloy", "ash", "ballad", "coral", "echo", "sage", "shimmer", "verse", "marin", "cedar"] as const;
export const assistantVoiceSchema = z.enum(ASSISTANT_VOICES, { error: "Voice must be one of the provider's voices" });
export type AssistantVoice = z.infer<typeof assistantVoiceSchema>;
export const DEFAULT_VOICE: AssistantVoice = "marin";

/**
 * Realtime models a user may pick. The server's configured default (OPENAI_REALTIME_MODEL) is
 * offered too when it is not in this list, so an operator can roll out a newer model without a
 * release.
 */
export const REALTIME_MODELS = [
  "gpt-realtime-2.1",
  "gpt-realtime-2.1-mini",
  "gpt-realtime-2",
  "gpt-realtime-1.5",
  "gpt-realtime",
  "gpt-realtime-mini",
] as const;

/** The configured default first, then the known models, without repeats. */
export function modelOptions(defaultModel: string): string[] {
  return [...new Set([defaultModel, ...REALTIME_MODELS])];
}

// ── User-facing texts (spec §5, §8) ────────────────────────────────────────────────────────

export const ASSISTANT_MESSAGES = {
  nameRequired: "Name is required",
  creating: "Creating assistant...",
  created: "Assistant created successfully!",
  updated: "Assistant updated successfully!",
  createFailed: "Failed to create assistant",
  updateFailed: "Failed to update assistant",
  authRequired: "Authentication required. Please sign in again.",
  // Beyond the spec (delete works here, design §1); worded like the others.
  deleted: "Assistant deleted successfully!",
  deleteFailed: "Failed to delete assistant",
} as const;

// ── Input (API body and form) ──────────────────────────────────────────────────────────────

export const MAX_TOOLS_PER_ASSISTANT = 100;

/** Optional text: surrounding blanks trimmed; blank or null is stored as null (shown as the fallback). */
const optionalText = (max: number, label: string) =>
  z
    .string()
    .trim()
    .max(max, `${label} must be at most ${max} characters`)
    .nullish()
    .transform((v) => (v ? v : null));


// ── Hand-off: transfer destinations and the built-in call controls ───────────────

export const MAX_TRANSFER_DESTINATIONS = 20;
/** E.164: a plus, a non-zero country digit, at most 15 digits in all. */
export const E164 = /^\+[1-9]\d{6,14}$/;

/**
 * A SIP or SIPS URI a PBX's queue or extension answers at (`sip:queue@pbx.example.com`, an optional
 * port and `;` parameters): a user part as RFC 3261 allows it, a host name, IPv4 or [IPv6] host.
 * No `?headers` part: what the INVITE carries is ours to write.
 */
export const SIP_DESTINATION = /^sips?:(?:[A-Za-z0-9\-_.!~*'()&=+$,;/%]+@)?(?:[A-Za-z0-9](?:[A-Za-z0-9-]*[A-Za-z0-9])?(?:\.[A-Za-z0-9](?:[A-Za-z0-9-]*[A-Za-z0-9])?)*|\[[0-9A-Fa-f:.]+\])(?::\d{1,5})?(?:;[A-Za-z0-9\-_.!~*'()%=]+)*$/;
export const MAX_SIP_DESTINATION = 256;
/** Whether a transfer destination is a SIP address rather than a phone number. */
export const isSipDestination = (destination: string): boolean => /^sips?:/i.test(destination);

export const TRANSFER_MESSAGES = {
  labelRequired: "Each transfer destination needs a label",
  phoneInvalid: "Phone number must be in E.164 format, e.g. +442071234567",
  sipInvalid: "SIP address must look like sip:queue@pbx.example.com",
  whenRequired: "Say when the assistant should use this destination",
  duplicateLabel: "Transfer destination labels must be different",
} as const;

export const transferDestinationSchema = z.object({
  label: z.string({ error: TRANSFER_MESSAGES.labelRequired }).trim().min(1, { error: TRANSFER_MESSAGES.labelRequired, abort: true }).regex(NOT_BLANK, TRANSFER_MESSAGES.labelRequired).max(100, "Label must be at most 100 characters"),
  /** An E.164 number, or a SIP address (a PBX's queue or extension) that SIP calls and Twilio's `<Sip>` can reach. */
  phone_number: z
    .string({ error: TRANSFER_MESSAGES.phoneInvalid })
    .trim()
    // Spaces, dashes and brackets as people type numbers are dropped; a SIP address is kept as
    // written, its scheme in lower case.
    .transform((v) => (isSipDestination(v) ? v.replace(/^sips?/i, (scheme) => scheme.toLowerCase()) : v.replace(/[\s\-().]/g, "")))
    .pipe(
      z.string().superRefine((v, ctx) => {
        if (isSipDestination(v)) {
          if (v.length > MAX_SIP_DESTINATION || !SIP_DESTINATION.test(v)) ctx.addIssue({ code: "custom", message: TRANSFER_MESSAGES.sipInvalid });
        } else if (!E164.test(v)) ctx.addIssue({ code: "custom", message: TRANSFER_MESSAGES.phoneInvalid });
      }),
    )
    .meta(oneOfText(e164Format(), { ...sipUriFormat, maxLength: MAX_SIP_DESTINATION })),
  when_to_use: z.string({ error: TRANSFER_MESSAGES.whenRequired }).trim().min(1, { error: TRANSFER_MESSAGES.whenRequired, abort: true }).regex(NOT_BLANK, TRANSFER_MESSAGES.whenRequired).max(1000, "When to use must be at most 1000 characters"),
});
export type TransferDestination = z.infer<typeof transferDestinationSchema>;

const transferDestinationsSchema = z
  .array(transferDestinationSchema, { error: "transfer_destinations must be a list" })
  .max(MAX_TRANSFER_DESTINATIONS, `An assistant can have at most ${MAX_TRANSFER_DESTINATIONS} transfer destinations`)
  // The model names a destination by its label: two alike could not be told apart.
  .refine((list) => new Set(list.map((d) => d.label.toLowerCase())).size === list.length, TRANSFER_MESSAGES.duplicateLabel);

// ── Outbound calls: time zone of {{now}}, what to do when a machine answers, do-not-call function ──

export const DEFAULT_TIMEZONE = "UTC";
export const VOICEMAIL_ACTIONS = ["hang_up", "leave_message"] as const;
export const VOICEMAIL_TEXTS = {
  label: "If a machine answers",
  off: "Talk as with a person",
  hangUp: "Hang up",
  leaveMessage: "Leave this message",
  messageRequired: "Write the message to leave after the beep",
} as const;
/** The form's words for the outbound settings and the `{{placeholders}}` it found. */
export const OUTBOUND_FIELD_TEXTS = {
  heading: "Outbound calls",
  timezone: "Time zone",
  timezoneHint: "IANA, e.g. Europe/London: the time zone of {{now}}.",
  voicemailMessage: "Voicemail message",
  voicemailHint: "Spoken after the beep, then the call ends. {{placeholders}} are filled.",
  allowDoNotCall: "Let the assistant add the caller to the do-not-call list",
  placeholdersNone: "Write {{name}} in the first message or instructions to fill it per call (from the outbound request or a campaign's CSV column).",
  placeholdersFound: "Placeholders filled per call:",
  builtIns: "Every call also has",
  summary: (timezone: string, voicemail: string, dnc: boolean) => `Time zone: ${timezone}\nIf a machine answers: ${voicemail}\nDo-not-call requests: ${dnc ? "On" : "Off"}`,
} as const;

/** null: no machine detection (the assistant talks to whoever answers). */
export const voicemailSchema = z
  .object({
    action: z.enum(VOICEMAIL_ACTIONS, { error: "voicemail.action must be hang_up or leave_message" }),
    message: z.string({ error: "voicemail.message must be text" }).trim().max(2000, "The voicemail message must be at most 2000 characters").nullish().transform((v) => v || null),
  })
  .refine((v) => v.action !== "leave_message" || v.message, { message: VOICEMAIL_TEXTS.messageRequired, path: ["message"] })
  .meta(when({ required: ["action"], properties: { action: { const: "leave_message" } } }, given("message")))
  .nullable();
export type Voicemail = z.infer<typeof voicemailSchema>;

const timezoneSchema = z
  .string({ error: "Time zone must be text" })
  .trim()
  .refine(isTimeZone, "Time zone must be an IANA time zone, e.g. Europe/London")
  .meta(timeZoneFormat);

const fields = {
  name: z
    .string({ error: ASSISTANT_MESSAGES.nameRequired })
    .trim()
    .min(1, { error: ASSISTANT_MESSAGES.nameRequired, abort: true })
    .regex(NOT_BLANK, ASSISTANT_MESSAGES.nameRequired)
    .max(200, "Name must be at most 200 characters"),
  description: optionalText(2000, "Description"),
  first_message: optionalText(4000, "First message"),
  instructions: optionalText(50_000, "Instructions"),
  tool_ids: z
    .array(uuidSchema("Each tool id must be the id of one of your tools"), { error: "tool_ids must be a list of tool ids" })
    .max(MAX_TOOLS_PER_ASSISTANT, `An assistant can have at most ${MAX_TOOLS_PER_ASSISTANT} tools`)
    // Lower-cased so the same tool picked twice in different spellings is kept once.
    .transform((ids) => [...new Set(ids.map((id) => id.toLowerCase()))]),
  voice: assistantVoiceSchema,
  /** Checked against the offered models by the server, which knows its configured default. */
  // The server also takes its configured default (OPENAI_REALTIME_MODEL) and an assistant's saved model.
  model: z.string({ error: "Model must be text" }).meta({ enum: [...REALTIME_MODELS] }).trim().min(1, { error: "Model is required", abort: true }).regex(NOT_BLANK, "Model is required").max(100, "Model must be at most 100 characters"),
  transfer_destinations: transferDestinationsSchema,
  /** "Allow the assistant to end the call" */
  allow_end_call: z.boolean({ error: "allow_end_call must be true or false" }),
  /** "Keypad input": the caller's key presses reach the assistant. */
  keypad_input: z.boolean({ error: "keypad_input must be true or false" }),
  /** The time zone of `{{now}}`. */
  timezone: timezoneSchema,
  voicemail: voicemailSchema,
  /** "Let the assistant add the caller to the do-not-call list" */
  allow_do_not_call: z.boolean({ error: "allow_do_not_call must be true or false" }),
  /** Post-call analysis: summary, fields to extract, success rubric, text model (shared/analysis.ts). */
  analysis: analysisSettingsSchema,
  /** The knowledge bases it answers from (shared/knowledge.ts). */
  knowledge_base_ids: knowledgeBaseIdsSchema,
  /** How it uses them: a tool it calls (default) or their whole text in its instructions, and passages per question. */
  knowledge: assistantKnowledgeSchema,
  /** OpenAI Realtime (default) or a pipeline of the organisation's providers (shared/providers.ts). */
  voice_engine: voiceEngineSchema,
};

/** Body of POST /api/assistants: only the name is required; the server fills the model when omitted. */
export const assistantInputSchema = withExamples(
  z.object({
    ...fields,
    tool_ids: fields.tool_ids.default([]),
    voice: fields.voice.default(DEFAULT_VOICE),
    model: fields.model.optional(),
    transfer_destinations: fields.transfer_destinations.default([]),
    allow_end_call: fields.allow_end_call.default(true),
    keypad_input: fields.keypad_input.default(true),
    timezone: fields.timezone.default(DEFAULT_TIMEZONE),
    voicemail: fields.voicemail.default(null),
    allow_do_not_call: fields.allow_do_not_call.default(false),
    analysis: fields.analysis.default(DEFAULT_ANALYSIS_SETTINGS),
    knowledge_base_ids: fields.knowledge_base_ids.default([]),
    knowledge: fields.knowledge.default(DEFAULT_ASSISTANT_KNOWLEDGE),
    voice_engine: fields.voice_engine.default(DEFAULT_VOICE_ENGINE),
  }),
  {
    name: "Front desk",
    first_message: "Thanks for calling Maple Street Clinic, this is the front desk. How can I help?",
    instructions: "You answer calls for Maple Street Clinic. Book, move or cancel appointments, give opening hours (Mon–Fri 8:00–18:00) and directions. Never give medical advice: offer to transfer urgent calls to the on-call nurse.",
    voice: "marin",
    model: "gpt-realtime",
    timezone: "America/Los_Angeles",
    tool_ids: [EXAMPLE_IDS.tool],
    knowledge_base_ids: [EXAMPLE_IDS.knowledgeBase],
    transfer_destinations: [{ label: "On-call nurse", phone_number: EXAMPLE_PHONES.nurse, when_to_use: "The caller describes symptoms or asks for medical advice." }],
    voicemail: { action: "leave_message", message: "Hi, this is Maple Street Clinic returning your call. Please call us back at 415-555-0100." },
    allow_end_call: true,
    allow_do_not_call: true,
  },
);
export type AssistantInput = z.infer<typeof assistantInputSchema>;
/** What the form holds before validation. */
export type AssistantFormValues = z.input<typeof assistantInputSchema>;

/** Body of PATCH /api/assistants/:id: any subset of the fields; omitted ones keep their value. */
export const assistantUpdateSchema = withExamples(
  z.object(fields).partial(),
  { first_message: "Good morning, Maple Street Clinic. How can I help?", voice: "coral" },
);
export type AssistantUpdate = z.infer<typeof assistantUpdateSchema>;

// ── Assistant as returned by the API (spec §3, no openai_id: ADR 004) ───────────────────────

// The type is plain text here: a tool row written under older rules must still be listed.
export const assistantToolSchema = z.object({ id: z.string(), name: z.string(), type: z.string() });
export type AssistantTool = z.infer<typeof assistantToolSchema>;

export const assistantSchema = z.object({
  id: z.string(),
  organization_id: z.string(),
  name: z.string(),
  description: z.string().nullable(),
  first_message: z.string().nullable(),
  instructions: z.string().nullable(),
  /** Ids of the connected tools that still exist, in the order they were picked. */
  tool_ids: z.array(z.string()),
  /** The same tools with what the page shows of them ("name (type)"). */
  tools: z.array(assistantToolSchema),
  voice: z.string(),
  model: z.string(),
  transfer_destinations: z.array(transferDestinationSchema),
  allow_end_call: z.boolean(),
  keypad_input: z.boolean(),
  timezone: z.string(),
  voicemail: voicemailSchema,
  allow_do_not_call: z.boolean(),
  /** The `{{placeholders}}` found in the instructions and the first message. */
  variables: z.array(z.string()),
  analysis: analysisSettingsSchema,
  knowledge_base_ids: z.array(z.string()),
  knowledge: z.object({ mode: z.enum(["tool", "instructions"]), tool_description: z.string().nullable(), passages: z.number().int() }),
  voice_engine: voiceEngineViewSchema,
  /** ISO 8601 */
  created_at: z.string(),
  /** ISO 8601 */
  updated_at: z.string(),
});
/** GET /api/assistants: a page of assistants, newest first (src/shared/pages.ts). */
export const assistantPageSchema = pageOf(assistantSchema);
export type Assistant = z.infer<typeof assistantSchema>;

/** GET /api/assistants/defaults: what a new assistant starts with and the models on offer. */
export const assistantDefaultsSchema = z.object({
  voice: assistantVoiceSchema,
  model: z.string(),
  models: z.array(z.string()),
});
export type AssistantDefaults = z.infer<typeof assistantDefaultsSchema>;
