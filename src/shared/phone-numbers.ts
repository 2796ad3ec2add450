import { z } from "zod";
import { pageOf } from "./pages.js";
import { CARRIERS, SIP_NUMBER_MESSAGES, sipNumberSchema } from "./sip-trunks.js";
import { versionNumberSchema } from "./versions.js";
import { NOT_BLANK } from "./wire-formats.js";
import { EXAMPLE_IDS, EXAMPLE_PHONES, withExamples } from "./examples.js";

// ── Option lists and enums (spec §3, §9) ─────────────────────────────────────────────────────

/** Countries a number can be bought in, with their dialling codes (spec §3 "Phone country choices"). */
export const PHONE_COUNTRIES = [
  { code: "US", dial: "+1", name: "United States" },
  { code: "CA", dial: "+1", name: "Canada" },
  { code: "GB", dial: "+44", name: "United Kingdom" },
  { code: "AU", dial: "+61", name: "Australia" },
  { code: "DE", dial: "+49", name: "Germany" },
  { code: "FR", dial: "+33", name: "France" },
] as const;
export const PHONE_COUNTRY_CODES = ["US", "CA", "GB", "AU", "DE", "FR"] as const;
export type PhoneCountryCode = (typeof PHONE_COUNTRY_CODES)[number];

export const PHONE_NUMBER_STATUSES = ["active", "inactive", "pending"] as const;
export type PhoneNumberStatus = (typeof PHONE_NUMBER_STATUSES)[number];

// ── User-facing texts (spec §2, §5, §8) ──────────────────────────────────────────────────────

export const PHONE_NUMBER_MESSAGES = {
  countryRequired: "Country code is required",
  assistantRequired: "Assistant is required",
  fetchFailed: "Error fetching phone numbers",
  updated: "Phone number updated",
  updatedDescription: "The phone number has been updated successfully.",
  deleted: "Phone number deleted",
  deletedDescription: "The phone number has been successfully removed.",
  deleteFailed: "Error deleting phone number",
  purchaseFailed: "Failed to purchase phone number",
  requestFailedTitle: "Error",
  requestFailed: "Failed to process phone number request",
  authLogBackIn: "Authentication error. Please log out and log back in.",
  authErrorTitle: "Authentication error",
  mustBeLoggedIn: "You must be logged in to perform this action.",
  mustBeLoggedInToPurchase: "You must be logged in to purchase phone numbers",
  noValidSession: "Authentication error: No valid session found.",
  authRequiredTitle: "Authentication Required",
  authRequiredText: "Please log in to manage phone numbers",
  // Beyond the spec: the server's own refusals, worded for the banner.
  twilioCredentialsMissing: "Add your Twilio Account SID and Auth Token in Settings before buying or releasing phone numbers.",
  unknownAssistant: "The assistant does not exist or is not one of your assistants.",
  countryLocked: "The country of a phone number cannot be changed.",
  purchased: "Phone number purchased",
} as const;

// ── Input (API body and form) ────────────────────────────────────────────────────────────────

const countryField = z.enum(PHONE_COUNTRY_CODES, { error: PHONE_NUMBER_MESSAGES.countryRequired });
// Assistant ids are uuids; a blank or other value could never name one of the caller's assistants.
const assistantField = z
  .string({ error: PHONE_NUMBER_MESSAGES.assistantRequired })
  .trim()
  .min(1, { error: PHONE_NUMBER_MESSAGES.assistantRequired, abort: true })
  .regex(NOT_BLANK, PHONE_NUMBER_MESSAGES.assistantRequired)
  .regex(/^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i, PHONE_NUMBER_MESSAGES.unknownAssistant)
  .transform((id) => id.toLowerCase());

/** Body of POST /api/phone-numbers: buy a number in this country, answered by this assistant. */
export const phoneNumberPurchaseSchema = z.object({ country_code: countryField, assistant_id: assistantField });
export type PhoneNumberPurchase = z.infer<typeof phoneNumberPurchaseSchema>;

/** Body of POST /api/phone-numbers for a number on one of the organisation's SIP trunks: nothing is bought. */
export const sipPhoneNumberSchema = z.object({
  provider: z.literal("sip"),
  sip_trunk_id: z.string({ error: SIP_NUMBER_MESSAGES.trunkRequired }).trim().min(1, { error: SIP_NUMBER_MESSAGES.trunkRequired, abort: true }).regex(NOT_BLANK, SIP_NUMBER_MESSAGES.trunkRequired).max(64, SIP_NUMBER_MESSAGES.unknownTrunk),
  phone_number: sipNumberSchema,
  assistant_id: assistantField,
});
export type SipPhoneNumberInput = z.infer<typeof sipPhoneNumberSchema>;
/** What the SIP number dialog holds before validation. */
export type SipPhoneNumberFormValues = { provider: "sip"; sip_trunk_id: string; phone_number: string; assistant_id: string };

/**
 * POST /api/phone-numbers: a Twilio purchase (`provider` absent or "twilio", as before SIP
 * existed) or a SIP number (`provider: "sip"`).
 */
export const phoneNumberCreateSchema = withExamples(
  z.discriminatedUnion("provider", [phoneNumberPurchaseSchema.extend({ provider: z.literal("twilio").optional() }), sipPhoneNumberSchema], {
    error: 'provider must be "twilio" or "sip"',
  }),
  { provider: "sip", sip_trunk_id: EXAMPLE_IDS.sipTrunk, phone_number: EXAMPLE_PHONES.clinic, assistant_id: EXAMPLE_IDS.assistant },
  { provider: "twilio", country_code: "US", assistant_id: EXAMPLE_IDS.assistant },
);
export type PhoneNumberCreate = z.infer<typeof phoneNumberCreateSchema>;
/** What the dialog holds before validation (the selects start empty). */
export type PhoneNumberFormValues = { country_code: string; assistant_id: string };

/**
 * Body of PATCH /api/phone-numbers/:id: re-link (a country may be sent but must be the number's
 * own), and/or pin a published version of the assistant (`assistant_version`: n, or null to run
 * the latest). Sent alone, `assistant_version` pins or unpins without re-linking.
 */
export const phoneNumberUpdateSchema = withExamples(
  z
    .object({
      assistant_id: assistantField.optional(),
      country_code: countryField.optional(),
      assistant_version: versionNumberSchema.nullable().optional(),
    })
    .refine((v) => v.assistant_id !== undefined || v.assistant_version !== undefined, { message: PHONE_NUMBER_MESSAGES.assistantRequired, path: ["assistant_id"] })
    .meta({ anyOf: [{ required: ["assistant_id"] }, { required: ["assistant_version"] }] }),
  { assistant_id: EXAMPLE_IDS.assistant, assistant_version: 1 },
);
export type PhoneNumberUpdate = z.infer<typeof phoneNumberUpdateSchema>;

// ── Phone number as returned by the API (spec §3 plus assistant_name) ─────────────────────────

export const phoneNumberSchema = z.object({
  id: z.string(),
  /** E.164 */
  phone_number: withExamples(z.string(), EXAMPLE_PHONES.clinic),
  /** Twilio numbers' country; null for a SIP number. */
  country_code: z.string().nullable(),
  status: z.enum(PHONE_NUMBER_STATUSES),
  /** Who carries its calls: bought at Twilio, or on a SIP trunk (named here). */
  provider: z.enum(CARRIERS),
  sip_trunk_id: z.string().nullable(),
  sip_trunk_name: z.string().nullable(),
  assistant_id: z.string().nullable(),
  /** Null when the number is unassigned (its assistant was deleted). */
  assistant_name: z.string().nullable(),
  /** The published version pinned on the number; null runs the assistant's latest published version. */
  assistant_version: z.number().nullable(),
  /** ISO 8601 */
  created_at: z.string(),
});
/** GET /api/phone-numbers: a page of these, newest first (src/shared/pages.ts). */
export const phoneNumberPageSchema = pageOf(phoneNumberSchema);
export type PhoneNumber = z.infer<typeof phoneNumberSchema>;
