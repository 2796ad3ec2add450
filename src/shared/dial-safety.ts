/**
 * Numbers an outbound call (single or campaign) refuses to dial unless the organisation allows
 * them: premium-rate and satellite ranges, where one call can cost many times a normal one (and
 * that toll fraud targets), and the organisation's own numbers (a call to itself loops an
 * assistant into its own line). Both sides use it: the server refuses, the Create Campaign
 * sheet's CSV preview shows the same reasons before upload.
 */
import { z } from "zod";
import { e164Format } from "./wire-formats.js";
import { withExamples } from "./examples.js";

export const DIAL_RULES = ["premium_rate", "satellite", "own_number"] as const;
export type DialRule = (typeof DIAL_RULES)[number];

/**
 * The blocked ranges, kept short on purpose: the ITU's shared codes and the best-known national
 * premium ranges. E.164 prefixes.
 */
export const BLOCKED_RANGES: readonly { prefix: string; rule: Exclude<DialRule, "own_number">; label: string }[] = [
  { prefix: "+1900", rule: "premium_rate", label: "North American 900 numbers" },
  { prefix: "+1976", rule: "premium_rate", label: "North American 976 numbers" },
  { prefix: "+449", rule: "premium_rate", label: "UK 09 numbers" },
  { prefix: "+979", rule: "premium_rate", label: "International Premium Rate Service, +979" },
  { prefix: "+870", rule: "satellite", label: "Inmarsat, +870" },
  { prefix: "+881", rule: "satellite", label: "Global Mobile Satellite System, +881" },
  { prefix: "+882", rule: "satellite", label: "International Networks, +882" },
  { prefix: "+883", rule: "satellite", label: "International Networks, +883" },
];

export const MAX_DIAL_ALLOW_LIST = 50;

export const DIAL_SAFETY_TEXTS = {
  premiumRate: (label: string) => `Premium-rate number (${label})`,
  satellite: (label: string) => `Satellite or international network number (${label})`,
  ownNumber: "One of this organisation's own numbers",
  /** A single call's refusal: the number, the rule, and the way out. */
  refused: (phone: string, reason: string) => `${phone} was not called: ${reason}. An admin can allow it under Settings → Calls → Allowed destinations.`,
  entryInvalid: "Each allowed destination is a number or prefix in E.164 form, e.g. +1900 or +881612345678",
  tooMany: `At most ${MAX_DIAL_ALLOW_LIST} allowed destinations`,
  title: "Allowed destinations",
  description:
    "Outbound calls never dial premium-rate or satellite numbers, nor this organisation's own numbers, unless they start with one of these numbers or prefixes.",
  label: "Numbers or prefixes, one per line",
  save: "Save destinations",
  saved: "Allowed destinations saved",
  saveFailed: "Failed to save the allowed destinations.",
} as const;

const allowEntry = z
  .string({ error: DIAL_SAFETY_TEXTS.entryInvalid })
  .transform((v) => v.replace(/[\s\-().]/g, ""))
  .pipe(z.string().regex(/^\+[1-9]\d{0,14}$/, DIAL_SAFETY_TEXTS.entryInvalid))
  .meta(e164Format(1, 15));

/** GET/PUT /api/settings/dial-allow-list */
export const dialAllowListSchema = withExamples(
  z.object({
    allowed: z.array(allowEntry, { error: DIAL_SAFETY_TEXTS.entryInvalid }).max(MAX_DIAL_ALLOW_LIST, DIAL_SAFETY_TEXTS.tooMany),
  }),
  { allowed: ["+1415", "+1628"] },
);
export type DialAllowList = z.infer<typeof dialAllowListSchema>;

export interface DialPolicy {
  /** The organisation's own numbers, E.164. */
  ownNumbers: readonly string[];
  /** Prefixes (or whole numbers) the organisation allows whatever the rules say. */
  allowed: readonly string[];
}

/** Why `phone` (E.164) is not dialled under `policy`, or null when it may be. */
export function dialRefusal(phone: string, policy: DialPolicy): { rule: DialRule; reason: string } | null {
  if (policy.allowed.some((prefix) => phone.startsWith(prefix))) return null;
  if (policy.ownNumbers.includes(phone)) return { rule: "own_number", reason: DIAL_SAFETY_TEXTS.ownNumber };
  const range = BLOCKED_RANGES.find((r) => phone.startsWith(r.prefix));
  if (!range) return null;
  return { rule: range.rule, reason: range.rule === "premium_rate" ? DIAL_SAFETY_TEXTS.premiumRate(range.label) : DIAL_SAFETY_TEXTS.satellite(range.label) };
}
