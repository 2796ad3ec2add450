import { z } from "zod";
import { pageOf } from "./pages.js";
import { isoDateTime } from "./bounds.js";
import { NOT_BLANK } from "./wire-formats.js";
import { withExamples } from "./examples.js";


export const MAX_API_KEYS = 20;
/** Requests per key per minute, on every instance together. */
export const API_KEY_REQUESTS_PER_MINUTE = 600;
/** `sk_` + this many base62 characters. */
export const API_KEY_RANDOM_LENGTH = 40;

/**
 * What a key may do, in one text: the OpenAPI security scheme, the README's "API keys" section and
 * Settings → API Keys say it (the rule itself: `keyMay` in roles.ts, applied by requireUser).
 */
export const API_KEY_SCOPE =
  "An API key acts for the member who created it, with that member's current role: it can do what they can now, " +
  "and stops working at once when they leave the organisation. A key can never manage the team (invitations, roles, " +
  "ownership, removing members), manage API keys, see or rotate webhook secrets, or change anyone's account.";

/** The reference page (/docs/api): its title and the way back to the app. */
export const API_REFERENCE_TEXTS = {
  title: "Switchboard API reference",
  backToApp: "Back to Switchboard",
  logoAlt: "Switchboard",
};

export const API_KEY_MESSAGES = {
  nameRequired: "Name is required",
  expiryInPast: "The expiry date must be in the future",
  tooMany: `You can have at most ${MAX_API_KEYS} API keys. Revoke one first.`,
  invalid: "The API key is missing, wrong, revoked or expired.",
  wrongPlace: "Send the API key in the Authorization header, as Authorization: Bearer sk_…",
  sessionOnly: "This action needs a signed-in session; an API key cannot do it.",
  created: "API key created",
  revoked: "API key revoked",
  copyOnce: "Copy this key now: it will not be shown again.",
} as const;

export const apiKeyInputSchema = withExamples(
  z.object({
    name: z.string({ error: API_KEY_MESSAGES.nameRequired }).trim().min(1, { error: API_KEY_MESSAGES.nameRequired, abort: true }).regex(NOT_BLANK, API_KEY_MESSAGES.nameRequired).max(100, "Name must be at most 100 characters"),
    expires_at: isoDateTime("expires_at must be an ISO date-time")
      .refine((d) => Date.parse(d) > Date.now(), API_KEY_MESSAGES.expiryInPast)
      .nullable()
      .optional(),
  }),
  { name: "CRM sync", expires_at: "2027-12-31T23:59:59Z" },
);
export type ApiKeyInput = z.infer<typeof apiKeyInputSchema>;

export const apiKeySchema = z.object({
  id: z.string(),
  name: z.string(),
  prefix: z.string(),
  /** The member the key acts for (it stops when they leave the organisation). */
  created_by_user_id: z.string(),
  created_by_name: z.string(),
  created_at: z.iso.datetime(),
  last_used_at: z.iso.datetime().nullable(),
  expires_at: z.iso.datetime().nullable(),
});
/** GET /api/api-keys: a page of these, newest first (src/shared/pages.ts). */
export const apiKeyPageSchema = pageOf(apiKeySchema);
export type ApiKey = z.infer<typeof apiKeySchema>;

/** Only the answer to creation holds the key itself. */
export const createdApiKeySchema = apiKeySchema.omit({ last_used_at: true, created_by_user_id: true, created_by_name: true }).extend({ key: withExamples(z.string(), "sk_Q7mK2pX9vL4tR8wN3bC6yF1hJ5dS0gZaEu7iOkPq") });
export type CreatedApiKey = z.infer<typeof createdApiKeySchema>;
