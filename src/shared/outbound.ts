/**
 * Outbound calls (the assistant dials): the request, its answer, the account's limit, the
 * do-not-call list, the voicemail setting and the readable ended reasons. Both sides use it.
 */
import { z } from "zod";
import { CARRIERS } from "./sip-trunks.js";
import { int32 } from "./bounds.js";
import { E164 } from "./assistants.js";
import { uuidSchema } from "./ids.js";
import { pageOf } from "./pages.js";
import { e164Format } from "./wire-formats.js";
import { EXAMPLE_IDS, EXAMPLE_PHONES, withExamples } from "./examples.js";

export const OUTBOUND_TEXTS = {
  toInvalid: "The number to call must be in E.164 format, e.g. +442071234567",
  doNotCall: (phone: string) => `${phone} is on the do-not-call list`,
  noTwilio: "Add your Twilio Account SID and Auth Token in Settings before making calls.",
  noAssistant: "Assign an assistant to this call",
  limit: (max: number) => `You already have ${max} outbound calls in progress, the most your settings allow. Try again when one ends.`,
  twilioRefused: (message: string) => `Twilio refused the call: ${message}`,
  numberInactive: "This phone number is not active",
  calling: "Calling...",
  called: (to: string) => `Calling ${to}`,
  dncAdded: "Added to the do-not-call list",
  dncRemoved: "Removed from the do-not-call list",
  settingsSaved: "Call settings saved",
  /** Cancelling a call still queued or ringing (POST /api/calls/:id/cancel). */
  cancel: "Cancel call",
  cancelling: "Cancelling...",
  cancelled: "Call cancelled",
  cancelFailed: "The call could not be cancelled.",
  cancelAnswered: "This call was answered, so it can no longer be cancelled. A supervisor can end it from the Live board.",
  cancelEnded: "This call has already ended, so there is nothing to cancel.",
  cancelNotPlaced: "This call is still being handed to the carrier. Try again in a moment.",
  cancelInbound: "Only an outbound call can be cancelled.",
  /** The call's record: the campaign that dialled it, when its name cannot be read. */
  campaign: "Campaign",
  openCampaign: "Open campaign",
} as const;

/** The ended reasons of an outbound call that never reached the assistant (or met a machine). */
export const OUTBOUND_ENDED = {
  completed: "Completed",
  noAnswer: "No answer",
  busy: "Busy",
  failed: (reason: string) => `Failed: ${reason}`,
  voicemail: "Voicemail",
  cancelled: "Cancelled",
} as const;

/**
 * Who answered an outbound call, in Twilio's AnsweredBy words; a SIP call's own answering-machine
 * detection reports the same ones. A record whose answerer starts with "machine" (or is a fax)
 * ends as Voicemail.
 */
export const ANSWERED_BY = ["human", "unknown", "fax", "machine_start", "machine_end_beep", "machine_end_silence", "machine_end_other"] as const;
export type AnsweredBy = (typeof ANSWERED_BY)[number];

/** Twilio's call statuses (protocols: Calls resource), as the record keeps them. */
export const TWILIO_CALL_STATUSES = ["queued", "initiated", "ringing", "in-progress", "completed", "busy", "no-answer", "failed", "canceled"] as const;
export type TwilioCallStatus = (typeof TWILIO_CALL_STATUSES)[number];

/** The statuses of a call the callee has not answered yet: it shows as Queued or Ringing and may be cancelled. */
export const UNANSWERED_STATUSES = ["queued", "initiated", "ringing"] as const satisfies readonly TwilioCallStatus[];
/** The statuses of a call that ended without ever connecting: it has no talk time. */
export const NEVER_CONNECTED_STATUSES = ["busy", "no-answer", "failed", "canceled"] as const satisfies readonly TwilioCallStatus[];
/** How a call still waiting for the callee shows instead of "In progress". */
export const UNANSWERED_LABELS: Record<(typeof UNANSWERED_STATUSES)[number], string> = { queued: "Queued", initiated: "Queued", ringing: "Ringing" };

export const isUnanswered = (status: string | null): status is (typeof UNANSWERED_STATUSES)[number] => (UNANSWERED_STATUSES as readonly string[]).includes(status ?? "");
/** Whether a call never reached anyone (waiting, or ended unanswered): it shows no duration. */
export const neverConnected = (status: string | null): boolean => isUnanswered(status) || (NEVER_CONNECTED_STATUSES as readonly string[]).includes(status ?? "");

/** Outcomes a campaign retries on, spelled as the API spells them. */
export const CALL_OUTCOMES = ["no_answer", "busy", "failed", "voicemail"] as const;
export type CallOutcome = (typeof CALL_OUTCOMES)[number];

export const CALL_DIRECTIONS = ["inbound", "outbound"] as const;
export type CallDirection = (typeof CALL_DIRECTIONS)[number];
export const CALL_DIRECTION_LABELS: Record<CallDirection, string> = { inbound: "Inbound", outbound: "Outbound" };

export const e164Schema = (message: string) =>
  z
    .string({ error: message })
    .transform((v) => v.replace(/[\s\-().]/g, ""))
    .pipe(z.string().regex(E164, message))
    .meta(e164Format());

/** Variables of one call: the API's body and a campaign CSV's columns alike. */
export const MAX_VARIABLES = 100;
/** How placeholders spell a variable's name. */
export const VARIABLE_NAME = /^[A-Za-z_][A-Za-z0-9_]*$/;

/** Variable values: text, numbers and booleans are kept as text; names as placeholders spell them. */
export const variablesSchema = z
  .record(
    z.string().regex(VARIABLE_NAME, "Variable names use letters, digits and underscores").max(64, "Variable names must be at most 64 characters"),
    z.union([z.string().max(2000, "A variable's value must be at most 2000 characters"), z.number(), z.boolean()]).transform(String),
    { error: "variables must be an object of names and values" },
  )
  .refine((v) => Object.keys(v).length <= MAX_VARIABLES, `At most ${MAX_VARIABLES} variables`);

/** POST /api/calls/outbound */
export const outboundCallInputSchema = withExamples(
  z.object({
    assistant_id: uuidSchema("Assistant not found"),
    phone_number_id: uuidSchema("Phone number not found"),
    to: e164Schema(OUTBOUND_TEXTS.toInvalid),
    variables: variablesSchema.optional(),
  }),
  {
    assistant_id: EXAMPLE_IDS.assistant,
    phone_number_id: EXAMPLE_IDS.phoneNumber,
    to: EXAMPLE_PHONES.caller,
    variables: { patient_name: "Dana Reyes", appointment_time: "Tuesday 9:30" },
  },
);
export type OutboundCallInput = z.infer<typeof outboundCallInputSchema>;

/** The call placed: Twilio's CallSid when Twilio carries it (null on a SIP trunk, whose Call-ID the call's record shows). */
export const outboundCallSchema = z.object({ id: z.string(), status: z.literal("queued"), twilio_call_sid: z.string().nullable(), carrier: z.enum(CARRIERS) });
export type OutboundCall = z.infer<typeof outboundCallSchema>;

/** POST /api/calls/:id/cancel: the call, ended before anyone answered. */
export const cancelledCallSchema = z.object({ id: z.string(), twilio_status: z.literal("canceled"), ended_reason: z.string() });
export type CancelledCall = z.infer<typeof cancelledCallSchema>;

// ── Settings → Calls ────────────────────────────────────────────────────────────────────────

export const DEFAULT_MAX_CONCURRENT_CALLS = 10;
export const MAX_CONCURRENT_CALLS_LIMIT = 1000;

export const callSettingsSchema = withExamples(
  z.object({
    max_concurrent_calls: int32("Maximum concurrent calls must be a whole number")
      .min(1, "Maximum concurrent calls must be at least 1")
      .max(MAX_CONCURRENT_CALLS_LIMIT, `Maximum concurrent calls must be at most ${MAX_CONCURRENT_CALLS_LIMIT}`),
  }),
  { max_concurrent_calls: 10 },
);
export type CallSettings = z.infer<typeof callSettingsSchema>;

// ── Do-not-call list ────────────────────────────────────────────────────────────────────────

export const DNC_TEXTS = { phoneInvalid: "Phone number must be in E.164 format, e.g. +442071234567", tooMany: "At most 10,000 numbers at once" } as const;

/** The Settings cards' words: Calls (the outbound limit) and the do-not-call list. */
export const CALL_SETTINGS_TEXTS = {
  title: "Calls",
  description: "How many outbound calls (single calls and campaigns together) may be in progress at once.",
  label: "Maximum concurrent outbound calls",
  save: "Save",
  saveFailed: "Failed to save call settings.",
} as const;

export const DNC_PAGE_TEXTS = {
  title: "Do-not-call list",
  description: "Numbers no single call or campaign ever dials. An assistant can add a caller who asks, when its switch is on.",
  addLabel: "Numbers to add",
  addHint: "E.164, one per line or separated by commas; or choose a file with one number per line.",
  add: "Add",
  addFailed: "Failed to add to the do-not-call list.",
  added: (n: number) => `${n.toLocaleString("en-US")} ${n === 1 ? "number" : "numbers"} added to the do-not-call list`,
  removeFailed: "Failed to remove the number.",
  empty: "No numbers on the list.",
  total: (n: number) => `${n.toLocaleString("en-US")} ${n === 1 ? "number" : "numbers"} on the list`,
  readOnly: "Only builders can change the list.",
} as const;
export const MAX_DNC_BATCH = 10_000;

export const dncInputSchema = withExamples(
  z.union([
    z.object({ phone: e164Schema(DNC_TEXTS.phoneInvalid) }).strict(),
    z.object({ phones: z.array(e164Schema(DNC_TEXTS.phoneInvalid)).min(1, DNC_TEXTS.phoneInvalid).max(MAX_DNC_BATCH, DNC_TEXTS.tooMany) }).strict(),
  ], { error: "Send {phone} or {phones: [...]}" }),
  { phone: EXAMPLE_PHONES.caller },
);
export type DncInput = z.infer<typeof dncInputSchema>;

export const dncEntrySchema = z.object({ phone: z.string(), created_at: z.string() });
export type DncEntry = z.infer<typeof dncEntrySchema>;
/** GET /api/dnc: a page, newest first (src/shared/pages.ts), with how many numbers the list holds in all. */
export const dncPageSchema = pageOf(dncEntrySchema).extend({ total: z.number() });
export type DncPage = z.infer<typeof dncPageSchema>;
