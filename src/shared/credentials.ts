import { z } from "zod";

/** The credentials a user keeps in Settings (spec §3 "User credentials"), by their stored names. */
export const CREDENTIAL_NAMES = ["openai_api_key", "twilio_account_sid", "twilio_auth_token"] as const;
export const credentialNameSchema = z.enum(CREDENTIAL_NAMES, { error: "Unknown credential" });
export type CredentialName = z.infer<typeof credentialNameSchema>;

/** What the form shows in place of a stored secret (spec §9: 32 dots). */
export const MASKED_CREDENTIAL = "•".repeat(32);

export const credentialInputSchema = z.object({
  value: z.string().trim().min(1, "API key cannot be empty").max(4096),
});
export type CredentialInput = z.infer<typeof credentialInputSchema>;

/** Never the value itself: whether one is stored, a recognisable hint, and the last verification. */
export const credentialStatusSchema = z.object({
  name: credentialNameSchema,
  exists: z.boolean(),
  hint: z.string().nullable(),
  updated_at: z.string().nullable(),
});
export type CredentialStatus = z.infer<typeof credentialStatusSchema>;

export const credentialSaveResultSchema = credentialStatusSchema.extend({
  verification: z.object({ verified: z.boolean(), message: z.string() }).nullable(),
});
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
  saveFailed: "Failed to save Twilio credentials: ",
  fetchFailed: "Failed to fetch existing Twilio credentials.",
} as const;

const requiredBoth = z.string({ error: TWILIO_CREDENTIAL_MESSAGES.bothRequired }).trim().min(1, TWILIO_CREDENTIAL_MESSAGES.bothRequired);

/** Body of PUT /api/credentials/twilio. */
export const twilioCredentialsInputSchema = z.object({
  // The SID becomes part of every Twilio REST path, so only Twilio's own shape is accepted.
  account_sid: requiredBoth.max(64).regex(/^AC[0-9a-fA-F]{32}$/, TWILIO_CREDENTIAL_MESSAGES.sidFormat),
  auth_token: requiredBoth.max(256),
});
export type TwilioCredentialsInput = z.infer<typeof twilioCredentialsInputSchema>;

export const twilioCredentialsSaveResultSchema = z.object({
  account_sid: credentialStatusSchema,
  auth_token: credentialStatusSchema,
  verification: z.object({ verified: z.boolean(), message: z.string() }),
});
export type TwilioCredentialsSaveResult = z.infer<typeof twilioCredentialsSaveResultSchema>;
