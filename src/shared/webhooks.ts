import { z } from "zod";
import { httpUrlFormat, NOT_BLANK } from "./wire-formats.js";
import { pageOf } from "./pages.js";
import { withExamples } from "./examples.js";

// ── Events ─────────────────────────────────────────────────────────────────────────────────

/**
 * Every event type an endpoint can subscribe to: one list, extended by each feature that emits
 * (analysis adds call.analyzed, outbound campaign.*). `webhook.test` is sent only on demand.
 */
export const WEBHOOK_EVENT_TYPES = ["call.started", "call.ended", "call.transferred", "call.analyzed", "campaign.started", "campaign.completed"] as const;
export type WebhookEventType = (typeof WEBHOOK_EVENT_TYPES)[number];
export const WEBHOOK_TEST_EVENT = "webhook.test";
export type WebhookEmittedType = WebhookEventType | typeof WEBHOOK_TEST_EVENT;

export const WEBHOOK_EVENT_DESCRIPTIONS: Record<WebhookEventType, string> = {
  "call.started": "A call was answered (phone or browser)",
  "call.ended": "The end-of-call report: transcript, tool calls, cost, recording",
  "call.transferred": "A call was handed to a person",
  "campaign.started": "A campaign was started",
  "campaign.completed": "A campaign called every contact",
  "call.analyzed": "A call's post-call analysis finished: summary, extracted data, success (or why it failed)",
};

// ── Limits (the issue's numbers) ───────────────────────────────────────────────────────────

export const MAX_WEBHOOK_ENDPOINTS = 20;
/** After the first attempt, each retry waits this long; then the delivery is failed. */
export const WEBHOOK_RETRY_DELAYS_MS = [5_000, 30_000, 120_000, 600_000, 3_600_000, 21_600_000, 43_200_000] as const;
export const WEBHOOK_ATTEMPT_TIMEOUT_MS = 10_000;
/** An endpoint whose deliveries have failed without a success for this long is disabled. */
export const WEBHOOK_DISABLE_AFTER_MS = 3 * 24 * 3_600_000;
/** After a rotation the old secret signs too for this long, so receivers can switch over. */
export const WEBHOOK_SECRET_GRACE_MS = 24 * 3_600_000;
/** "Send test event" per organisation and minute: each one is a request to the endpoint's host. */
export const WEBHOOK_TESTS_PER_MINUTE = 10;

export const WEBHOOK_MESSAGES = {
  urlRequired: "URL is required",
  invalidUrl: "Must be a valid URL",
  httpsRequired: "The URL must start with https:// (other schemes only for hosts in WEBHOOK_ALLOWED_HOSTS)",
  credentialsInUrl: "The URL must not contain a user name or password. Check the webhook-signature header to know a delivery is ours.",
  eventsRequired: "Choose at least one event",
  unknownEvent: (type: string) => `Unknown event type: ${type}`,
  tooMany: `You can have at most ${MAX_WEBHOOK_ENDPOINTS} webhook endpoints.`,
  created: "Webhook endpoint created",
  updated: "Webhook endpoint updated",
  deleted: "Webhook endpoint deleted",
  rotated: "Signing secret rotated. The old one keeps working for 24 hours.",
  secretShownOnce: "Copy this secret now: it is not shown again. Verify each delivery's webhook-signature with it.",
  testsLimited: (after: string) => `Too many test events. Please try again in ${after}.`,
  testSent: "Test event queued",
  resent: "Delivery queued again",
  disabledForFailures: "Disabled after failing for 3 days. Fix the endpoint, then enable it again.",
} as const;

// ── JSON fields ────────────────────────────────────────────────────────────────────────────

const eventTypeSchema = z
  .string()
  .refine((t): t is WebhookEventType => (WEBHOOK_EVENT_TYPES as readonly string[]).includes(t), {
    error: (issue) => WEBHOOK_MESSAGES.unknownEvent(String(issue.input)),
  })
  .meta({ enum: [...WEBHOOK_EVENT_TYPES] });

const eventsSchema = z
  .array(eventTypeSchema, { error: WEBHOOK_MESSAGES.eventsRequired })
  .min(1, WEBHOOK_MESSAGES.eventsRequired)
  .max(WEBHOOK_EVENT_TYPES.length * 4)
  .transform((list) => [...new Set(list)] as WebhookEventType[]);

export const webhookUrlSchema = z
  .string({ error: WEBHOOK_MESSAGES.urlRequired })
  .trim()
  .min(1, { error: WEBHOOK_MESSAGES.urlRequired, abort: true })
  .regex(NOT_BLANK, WEBHOOK_MESSAGES.urlRequired)
  .max(2048)
  .pipe(z.url({ protocol: /^https?$/, error: WEBHOOK_MESSAGES.invalidUrl }))
  // Credentials in the URL would be stored, listed and written to the audit log in clear.
  // (Refinements run after a failed check too: what is no URL was refused above.)
  .refine((u) => {
    const parsed = URL.canParse(u) ? new URL(u) : null;
    return !parsed || (parsed.username === "" && parsed.password === "");
  }, WEBHOOK_MESSAGES.credentialsInUrl)
  // https://, or http:// for a host in WEBHOOK_ALLOWED_HOSTS (said in the field's description).
  .meta(httpUrlFormat("https"));

const descriptionSchema = z.string().trim().max(500).transform((d) => d || null).nullable();

export const webhookInputSchema = withExamples(
  z.object({
    url: webhookUrlSchema,
    events: eventsSchema,
    description: descriptionSchema.optional(),
    enabled: z.boolean().optional(),
  }),
  { url: "https://crm.example.com/hooks/switchboard", events: ["call.ended", "call.analyzed"], enabled: true },
);
export type WebhookInput = z.infer<typeof webhookInputSchema>;

/** PATCH: any of the fields, each as on creation (as the knowledge bases', assistants' and trunks' updates). */
export const webhookUpdateSchema = withExamples(webhookInputSchema.partial(), { events: ["call.started", "call.ended"], enabled: false });
export type WebhookUpdate = z.infer<typeof webhookUpdateSchema>;

export const webhookEndpointSchema = z.object({
  id: z.string(),
  url: z.string(),
  events: z.array(z.string()),
  description: z.string().nullable(),
  enabled: z.boolean(),
  /** Set when the server disabled the endpoint after 3 days of failures. */
  disabled_reason: z.string().nullable(),
  created_at: z.iso.datetime(),
});
/** GET list: a page of these (src/shared/pages.ts). */
export const webhookEndpointPageSchema = pageOf(webhookEndpointSchema);
export type WebhookEndpoint = z.infer<typeof webhookEndpointSchema>;

/** Creation and rotation answer the secret, once; nothing else ever does. */
export const webhookWithSecretSchema = webhookEndpointSchema.extend({ secret: withExamples(z.string(), "whsec_CzBVep/E6Q4zWH2ix+wRNluApcrvFDleg6jN8hc8YYY=") });
export type WebhookWithSecret = z.infer<typeof webhookWithSecretSchema>;

export const WEBHOOK_DELIVERY_STATUSES = ["pending", "delivered", "failed"] as const;
export type WebhookDeliveryStatus = (typeof WEBHOOK_DELIVERY_STATUSES)[number];

export const webhookDeliverySchema = z.object({
  id: z.string(),
  event_type: z.string(),
  status: z.enum(WEBHOOK_DELIVERY_STATUSES),
  attempts: z.number().int(),
  last_status_code: z.number().int().nullable(),
  /** Why the last attempt failed (the endpoint's status and the start of its answer, or the network error); null once delivered. */
  last_error: z.string().nullable(),
  next_attempt_at: z.iso.datetime().nullable(),
  created_at: z.iso.datetime(),
});
export type WebhookDelivery = z.infer<typeof webhookDeliverySchema>;
/** GET /api/webhooks/:id/deliveries: a page of an endpoint's deliveries, newest first (src/shared/pages.ts). */
export const webhookDeliveryPageSchema = pageOf(webhookDeliverySchema);

/** The body every delivery carries (Standard Webhooks' recommended shape). */
export interface WebhookPayload<T = unknown> {
  type: WebhookEmittedType;
  timestamp: string;
  data: T;
}
