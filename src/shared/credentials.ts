import { z } from "zod";
import { NOT_BLANK } from "./wire-formats.js";
import { withExamples } from "./examples.js";

/** The credentials a user keeps in Settings (spec §3 "User credentials"), by their stored names. */
export const CREDENTIAL_NAMES = ["openai_api_key", "twilio_account_sid", "twilio_auth_token"] as const;
export const credentialNameSchema = z.enum(CREDENTIAL_NAMES, { error: "Unknown credential" });
export type CredentialName = z.infer<typeof credentialNameSchema>;

/** What the form shows in place of a stored secret (spec §9: 32 dots). */
export const MASKED_CREDENTIAL = "•".repeat(32);

export const credentialInputSchema = withExamples(
  z.object({
    value: z
      .string()
      .meta({ description: "openai_api_key: starts with sk-, printable ASCII without spaces (openAiKeyValueSchema)." }).trim().min(1, { error: "API key cannot be empty", abort: true }).regex(NOT_BLANK, "API key cannot be empty").max(4096),
  }),
  { value: "sk-proj-Ex4mpleKey0123456789abcdefGHIJ" },
);
export type CredentialInput = z.infer<typeof credentialInputSchema>;

/**
 * An OpenAI key's own shape, checked before the provider is asked: keys start with `sk-` and are
 * printable ASCII with no spaces, so a pasted sentence or a smart quote is caught here, in words.
 */
export const OPENAI_KEY_MESSAGES = {
  prefix: "An OpenAI API key starts with sk- (copy it from the OpenAI dashboard's API keys page)",
  characters: "An OpenAI API key has no spaces or special characters (such as curly quotes): check what was pasted",
} as const;
export const openAiKeyValueSchema = z
  .string()
  .trim()
  .min(1, { error: "API key cannot be empty", abort: true })
  .regex(NOT_BLANK, "API key cannot be empty")
  .max(4096)
  .regex(/^sk-/, OPENAI_KEY_MESSAGES.prefix)
  .regex(/^[\x21-\x7e]+$/, OPENAI_KEY_MESSAGES.characters);
export const openAiKeyInputSchema = z.object({ value: openAiKeyValueSchema });

/** The outcome of the last check with the provider, kept with the credential so a reload still shows it. */
export const credentialVerificationSchema = z.object({
  verified: z.boolean(),
  message: z.string(),
  checked_at: z.string().nullable(),
});
export type CredentialVerification = z.infer<typeof credentialVerificationSchema>;

/** Never the value itself: whether one is stored, a recognisable hint, and the last verification. */
export const credentialStatusSchema = z.object({
  name: credentialNameSchema,
  exists: z.boolean(),
  hint: z.string().nullable(),
  updated_at: z.string().nullable(),
  /** Null when never checked (the Twilio SID and token share the pair's outcome). */
  verification: credentialVerificationSchema.nullable(),
});
export type CredentialStatus = z.infer<typeof credentialStatusSchema>;

export const credentialSaveResultSchema = credentialStatusSchema;
export type CredentialSaveResult = z.infer<typeof credentialSaveResultSchema>;

// ── Twilio: the Account SID and Auth Token are saved and verified as one pair ─────────────────

export const TWILIO_CREDENTIAL_MESSAGES = {
  bothRequired: "Both Account SID and Auth Token are required",
  sidFormat: "The Account SID starts with AC followed by 32 letters and digits (see the Twilio Console)",
  checking: "Checking for existing credentials...",
  existing: "Existing credentials found",
  reenterBoth: "Please re-enter both credentials.",
  none: "No existing credentials found",
  saving: "Saving credentials...",
  savedVerified: "Credentials saved and verified",
  savedUnverified: "Saved, but verification failed",
  savedToast: "Twilio Credentials Saved",
  refusedToast: "Twilio refused these credentials",
  uncheckedToast: "Saved, but Twilio could not check them",
  refused: "Twilio refused this Account SID and Auth Token. Check both in the Twilio Console.",
  unreachable: "Saved, but Twilio could not be reached to check them. Try saving again in a moment.",
  saveFailed: "Failed to save Twilio credentials: ",
  fetchFailed: "Failed to fetch existing Twilio credentials.",
} as const;

const requiredBoth = z.string({ error: TWILIO_CREDENTIAL_MESSAGES.bothRequired }).trim().min(1, { error: TWILIO_CREDENTIAL_MESSAGES.bothRequired, abort: true }).regex(NOT_BLANK, TWILIO_CREDENTIAL_MESSAGES.bothRequired);

/** Body of PUT /api/credentials/twilio. */
export const twilioCredentialsInputSchema = withExamples(
  z.object({
    // The SID becomes part of every Twilio REST path, so only Twilio's own shape is accepted.
    account_sid: requiredBoth.max(64).regex(/^AC[0-9a-fA-F]{32}$/, TWILIO_CREDENTIAL_MESSAGES.sidFormat),
    auth_token: requiredBoth.max(256),
  }),
  { account_sid: "AC0123456789abcdef0123456789abcdef", auth_token: "0123456789abcdef0123456789abcdef" },
);
export type TwilioCredentialsInput = z.infer<typeof twilioCredentialsInputSchema>;

export const twilioCredentialsSaveResultSchema = z.object({
  account_sid: credentialStatusSchema,
  auth_token: credentialStatusSchema,
  verification: credentialVerificationSchema,
});
export type TwilioCredentialsSaveResult = z.infer<typeof twilioCredentialsSaveResultSchema>;

export const OPENAI_CREDENTIAL_MESSAGES = {
  savedToast: "API Key Saved",
  refusedToast: "OpenAI refused this key",
  uncheckedToast: "Saved, but the key is not verified",
  refused: "OpenAI refused this API key. Check it on the OpenAI dashboard's API keys page, or create a new one.",
  accepted: "OpenAI accepted the key.",
} as const;
