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
