/**
 * The organisation's audit log (Settings → Audit log, `GET /api/audit-log`, `GET /api/audit-log.csv`):
 * who did what, when, from which address. Entries are written by the server only and never
 * changed; they are kept for a year, or longer when the calls are kept longer.
 */
import { z } from "zod";
import { DATE_BOUNDS_MESSAGE, withinDateBounds } from "./bounds.js";
import { pageOf, pageQuerySchema } from "./pages.js";
import { NOT_BLANK, oneOfText } from "./wire-formats.js";

/** Every action the log records, with the label the table and the CSV show. */
export const AUDIT_ACTION_LABELS = {
  "auth.signed_in": "Signed in",
  "organization.renamed": "Organisation renamed",
  "member.invited": "Member invited",
  "member.invitation_revoked": "Invitation revoked",
  "member.joined": "Member joined",
  "member.role_changed": "Member role changed",
  "member.removed": "Member removed",
  "assistant.created": "Assistant created",
  "assistant.updated": "Assistant changed",
  "assistant.deleted": "Assistant deleted",
  "assistant.published": "Assistant published",
  "assistant.rolled_back": "Assistant rolled back",
  "tool.created": "Tool created",
  "tool.updated": "Tool changed",
  "tool.deleted": "Tool deleted",
  "knowledge_base.created": "Knowledge base created",
  "knowledge_base.updated": "Knowledge base changed",
  "knowledge_base.deleted": "Knowledge base deleted",
  "knowledge_document.added": "Document added",
  "knowledge_document.replaced": "Document replaced",
  "knowledge_document.reprocessed": "Document re-processed",
  "knowledge_document.deleted": "Document deleted",
  "phone_number.bought": "Number bought",
  "phone_number.relinked": "Number re-linked",
  "phone_number.released": "Number released",
  "sip_trunk.created": "SIP trunk added",
  "sip_trunk.updated": "SIP trunk changed",
  "sip_trunk.deleted": "SIP trunk deleted",
  "provider.created": "Provider added",
  "provider.updated": "Provider changed",
  "provider.deleted": "Provider deleted",
  "credentials.changed": "Credentials changed",
  "credentials.removed": "Credentials removed",
  "api_key.created": "API key created",
  "api_key.revoked": "API key revoked",
  "webhook.created": "Webhook created",
  "webhook.updated": "Webhook changed",
  "webhook.deleted": "Webhook deleted",
  // No longer written (a secret is shown once), kept for the entries written before.
  "webhook.secret_revealed": "Webhook secret revealed",
  "webhook.secret_rotated": "Webhook secret rotated",
  "recording.played": "Recording played",
  "calls.exported": "Calls exported",
  "call.deleted": "Call deleted",
  "live.listened": "Listened to a live call",
  "live.guided": "Guided a live call",
  "live.took_over": "Took over a live call",
  "live.handed_back": "Handed a live call back",
  "live.ended": "Ended a live call",
  "retention.changed": "Retention changed",
  "call_settings.changed": "Call settings changed",
  "call.placed": "Outbound call placed",
  "call.cancelled": "Outbound call cancelled",
  "campaign.created": "Campaign created",
  "campaign.contacts_replaced": "Campaign contacts replaced",
  "campaign.started": "Campaign started",
  "campaign.paused": "Campaign paused",
  "campaign.resumed": "Campaign resumed",
  "campaign.cancelled": "Campaign cancelled",
  "do_not_call.added": "Added to the do-not-call list",
  "do_not_call.removed": "Removed from the do-not-call list",
  "scenario.created": "Test scenario created",
  "scenario.updated": "Test scenario changed",
  "scenario.deleted": "Test scenario deleted",
  "test_run.started": "Tests run",
  "test_run.cancelled": "Test run cancelled",
  "webhook.tested": "Webhook test event sent",
  "webhook.resent": "Webhook delivery resent",
} as const;
export type AuditAction = keyof typeof AUDIT_ACTION_LABELS;
export const AUDIT_ACTIONS = Object.keys(AUDIT_ACTION_LABELS) as [AuditAction, ...AuditAction[]];

/** What an entry is about (its target), for the table's wording. */
export const AUDIT_TARGET_TYPES = [
  "user",
  "organization",
  "member",
  "invitation",
  "assistant",
  "tool",
  "knowledge_base",
  "knowledge_document",
  "phone_number",
  "sip_trunk",
  "provider",
  "credential",
  "api_key",
  "webhook",
  "call",
  "settings",
  "campaign",
  "do_not_call",
  "scenario",
  "test_run",
  "webhook_delivery",
] as const;
export type AuditTargetType = (typeof AUDIT_TARGET_TYPES)[number];

/** How the actor was signed in: a person's session, or one of their API keys (it acts for its creator). */
export const AUDIT_VIA = ["session", "api_key"] as const;
export type AuditVia = (typeof AUDIT_VIA)[number];

/** The actor of an entry made through a key: its creator and the key, e.g. `Ada Lovelace (API key “CRM”)`. */
export const apiKeyActorName = (creatorName: string, keyName: string): string => `${creatorName} (API key “${keyName}”)`;

/** One entry as the API returns it. */
export const auditEntrySchema = z.object({
  id: z.string(),
  created_at: z.string(),
  actor_user_id: z.string().nullable(),
  /** Kept as written: a removed member's entries still say who. */
  actor_name: z.string(),
  via: z.enum(AUDIT_VIA),
  /** The API key that acted, when `via` is `api_key`; `actor_user_id` is then its creator. */
  actor_api_key_id: z.string().nullable(),
  action: z.enum(AUDIT_ACTIONS),
  action_label: z.string(),
  target_type: z.enum(AUDIT_TARGET_TYPES).nullable(),
  target_id: z.string().nullable(),
  target_name: z.string().nullable(),
  details: z.record(z.string(), z.unknown()),
  ip: z.string().nullable(),
});
export type AuditEntry = z.infer<typeof auditEntrySchema>;

/** GET /api/audit-log: a page of entries, newest first (src/shared/pages.ts). */
export const auditPageSchema = pageOf(auditEntrySchema);
export type AuditPage = z.infer<typeof auditPageSchema>;

/** Entries are kept at least this long; longer when the organisation keeps its calls longer. */
export const AUDIT_RETENTION_DAYS = 365;

export const AUDIT_MESSAGES = {
  invalidDate: "Enter a date like 2026-11-25",
  invalidRange: "The start date must be before the end date",
  empty: "Nothing recorded yet",
  emptyFiltered: "No entries match these filters",
} as const;

// One message whichever form was meant (a union would answer "Invalid input"), then the bounds.
const dateOrDateTime = z.iso.datetime({ offset: true }).or(z.iso.date());
const dateParam = z
  .string()
  .refine((value) => dateOrDateTime.safeParse(value).success, AUDIT_MESSAGES.invalidDate)
  .refine(withinDateBounds, DATE_BOUNDS_MESSAGE)
  .meta(oneOfText({ format: "date-time" }, { format: "date" }));

const DAY_MS = 86_400_000;
/** Where a range ends: a bare date `to` means through the end of that day, a time that instant. */
export const auditRangeEnd = (to: string): number => Date.parse(to) + (to.length === 10 ? DAY_MS : 0);
const inOrder = (f: { from?: string; to?: string }) => !(f.from && f.to) || Date.parse(f.from) < auditRangeEnd(f.to);
const rangeInOrder = { message: AUDIT_MESSAGES.invalidRange, path: ["to"] };

/** `?actor=&action=&from=&to=`: the filters the list and the CSV share. A bare date `to` includes that whole day. */
const auditFilters = z.object({
  /** A member's user id. */
  actor: z.string().trim().min(1, { abort: true }).regex(NOT_BLANK).max(200).optional(),
  action: z.enum(AUDIT_ACTIONS).optional(),
  from: dateParam.optional(),
  /** Said in the document: the order of the ends is a rule between two parameters. */
  to: dateParam.optional().meta({ description: "After `from`, when both are given; a bare date means through the end of that day." }),
});
export const auditFiltersSchema = auditFilters.refine(inOrder, rangeInOrder);
export type AuditFilters = z.infer<typeof auditFiltersSchema>;

/** The filters, kept the same on every page, and the page's `?limit` and `?cursor`. */
export const auditListQuerySchema = auditFilters.extend(pageQuerySchema.shape).refine(inOrder, rangeInOrder);
export type AuditListQuery = z.infer<typeof auditListQuerySchema>;

/** The CSV's columns; `api_key_id` came last so that older readers of the file keep their positions. */
export const AUDIT_CSV_COLUMNS = ["time", "person", "via", "action", "target_type", "target_id", "target", "details", "address", "api_key_id"] as const;
