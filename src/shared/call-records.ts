/**
 * Past and ongoing calls as the Calls page reads them (GET /api/calls, GET /api/calls/:id), and
 * the values the page derives from a record (spec §3 "calls", §4 "Call status shown", §9 display).
 * No DOM and no node:* here — both sides import this file.
 */
import { z } from "zod";
import { CARRIERS } from "./sip-trunks.js";
import { DATE_BOUNDS_DESCRIPTION, isoDateTime } from "./bounds.js";

// ".js", not ".ts": the one spelling both the server's NodeNext and the web's bundler resolution accept.
import { formatDuration, toolUseSchema, serviceUsageSchema, transcriptEntrySchema, turnLatencySchema } from "./calls.js";
import { CALL_DIRECTIONS, isUnanswered, neverConnected, UNANSWERED_LABELS } from "./outbound.js";
import { ANALYSIS_STATUSES, callAnalysisSchema, SCORE_MAX, SCORE_MIN, successValueSchema } from "./analysis.js";
import { uuidSchema } from "./ids.js";
import { pageOf, pageQuerySchema } from "./pages.js";
import { versionLabel } from "./versions.js";
import { NOT_BLANK, timeZoneFormat } from "./wire-formats.js";

/** How long a recording's signed address stays valid. */
export const RECORDING_URL_LIFETIME_MS = 3_600_000;

/** The list is re-read this often while any call is still in progress. */
export const CALLS_REFRESH_MS = 5_000;

/**
 * The logs of a record: the call engine writes `callLogsSchema` of ./calls.ts, but a record may
 * predate a field (isTest missing makes the type "Unknown"), so every part is optional here.
 * Unknown keys are kept: the raw-logs view shows the record as stored.
 */
export const callRecordLogsSchema = z.looseObject({
  isTest: z.boolean().optional(),
  transcript: z.array(transcriptEntrySchema).optional(),
  toolsUsed: z.array(toolUseSchema).optional(),
  turns: z.array(turnLatencySchema).optional(),
  serviceUsage: serviceUsageSchema.optional(),
});
export type CallRecordLogs = z.infer<typeof callRecordLogsSchema>;

export const CALL_TYPES = ["Test", "Real", "Unknown"] as const;
export type CallType = (typeof CALL_TYPES)[number];

/** The status filter's classes (the badge shows the reason itself; see callStatus). */
export const CALL_STATUS_FILTERS = ["in_progress", "completed", "error"] as const;
export type CallStatusFilter = (typeof CALL_STATUS_FILTERS)[number];

// ---------------------------------------------------------------------------
// Cost: which figure a call's `cost` is, and how the pages name it

/** "tariff": the specification's test-call tariff; "provider": what the call really cost (AI provider + Twilio). */
export const COST_BASES = ["tariff", "provider"] as const;
export type CostBasis = (typeof COST_BASES)[number];

export const COST_TEXTS = {
  /** The Calls table's column and the stats card: each call counts with the figure that applies to it. */
  column: "Cost",
  basis: { tariff: "Tariff", provider: "Provider cost" } satisfies Record<CostBasis, string>,
  basisHint: {
    tariff: "The test-call tariff: $0.05 for the first minute, then $0.01 for each 12 seconds",
    provider: "What the call cost at the AI provider (its usage) plus Twilio's price for the call",
  } satisfies Record<CostBasis, string>,
  statsHint: "Test calls at the test-call tariff; phone calls at their real cost (AI provider + Twilio)",
  telephony: "Twilio",
  telephonyPending: "Waiting for Twilio's price (Twilio rates a call a few minutes after it ends)",
  aiProvider: "AI provider",
} as const;

/** Provider costs are fractions of a cent: four decimals for the real cost, two for the tariff. */
export function formatCallCost(cost: number | null, basis: CostBasis): string {
  if (cost === null || !Number.isFinite(cost)) return "N/A";
  return basis === "provider" ? `$${cost.toFixed(4)}` : `$${cost.toFixed(2)}`;
}

// ---------------------------------------------------------------------------
// Provider cost (stored on the record when the call ends)

/**
 * One model's share: tokens by kind (per protocols §1.10), seconds for duration-billed ASR, or
 * characters for a pipeline's voice.
 */
export const providerCostLineSchema = z.object({
  model: z.string(),
  /**
   * "analysis": the post-call analysis's text model (every run of it, summed); "transcriber",
   * "model", "voice": a pipeline's three services (shared/service-prices.ts).
   */
  kind: z.enum(["realtime", "transcription", "analysis", "transcriber", "model", "voice"]),
  text_in: z.number(),
  text_cached: z.number(),
  audio_in: z.number(),
  audio_cached: z.number(),
  text_out: z.number(),
  audio_out: z.number(),
  seconds: z.number(),
  /** A pipeline's voice: characters voiced. */
  characters: z.number().optional(),
  /** USD; null when the price table has no entry for the model. */
  cost: z.number().nullable(),
});
export type ProviderCostLine = z.infer<typeof providerCostLineSchema>;

export const providerCostSchema = z.object({
  /** USD; null when any line's model is unpriced. */
  total: z.number().nullable(),
  lines: z.array(providerCostLineSchema),
});
export type ProviderCost = z.infer<typeof providerCostSchema>;

// ---------------------------------------------------------------------------
// GET /api/calls (a page of summaries), GET /api/calls/:id (the whole record)

/** A row of the Calls table: no transcript, so a page of 100 stays small. */
export const callSummarySchema = z.object({
  id: z.string(),
  /** null once the assistant is deleted; the record keeps its name. */
  assistant_id: z.string().nullable(),
  assistant_name: z.string().nullable(),
  /** The published version of the assistant the call ran; null for a test call of the draft (and older records). */
  assistant_version: z.number().nullable(),
  type: z.enum(CALL_TYPES),
  /** The caller's number for phone calls; for browser test calls the user who made them. */
  customer: z.string().nullable(),
  /** The number called (phone calls, E.164); null for test calls. */
  called_number: z.string().nullable(),
  start_time: z.iso.datetime(),
  /** null while the call is in progress. */
  end_time: z.iso.datetime().nullable(),
  /** null while in progress (the page counts it up from start_time), and for an outbound call that never connected (no talk time). */
  duration_ms: z.number().nullable(),
  /**
   * USD; null until the call has ended. Which figure it is says `cost_basis`: the tariff for a
   * browser test call, the real cost (AI provider usage + Twilio's price) for a phone call.
   */
  cost: z.number().nullable(),
  cost_basis: z.enum(COST_BASES),
  status: z.enum(CALL_STATUS_FILTERS),
  ended_reason: z.string().nullable(),
  has_recording: z.boolean(),
  /** inbound (callers and browser test calls) or outbound (dialled by the assistant). */
  direction: z.enum(CALL_DIRECTIONS),
  /** Outbound calls: Twilio's status of the call (queued, ringing, in-progress, completed, busy, ...); null otherwise. */
  twilio_status: z.string().nullable(),
  /** The campaign that dialled the call; null for any other call. */
  campaign_id: z.string().nullable(),
  /** The post-call analysis's state (null: never analysed, e.g. before analysis existed). */
  analysis_status: z.enum(ANALYSIS_STATUSES).nullable(),
  /** Its success value ("pass" | "fail", a score or a category) once done. */
  success: successValueSchema.nullable(),
});
export type CallSummary = z.infer<typeof callSummarySchema>;

/** GET /api/calls: a page of these, newest start first (src/shared/pages.ts). */
export const callPageSchema = pageOf(callSummarySchema);
export type CallPage = z.infer<typeof callPageSchema>;

export const callRecordSchema = callSummarySchema.extend({
  organization_id: z.string(),
  /** A signed address of the recording (valid RECORDING_URL_LIFETIME_MS); null without one, or for a viewer. */
  recording_url: z.string().nullable(),
  /** Phone calls: the caller's number (E.164); null for browser test calls. */
  caller_number: z.string().nullable(),
  /** Phone calls: Twilio's CallSid (CA…), how Twilio's console and support name the call; null for test calls. */
  call_sid: z.string().nullable(),
  /** Who carried the phone call: Twilio, or a SIP trunk ("twilio" for browser test calls too). */
  carrier: z.enum(CARRIERS),
  /** SIP calls: the Call-ID header of the call's dialog, how the trunk's and PBX's logs name it; null otherwise. */
  sip_call_id: z.string().nullable(),
  /** null when the record has no logs at all. */
  logs: callRecordLogsSchema.nullable(),
  provider_cost: providerCostSchema.nullable(),
  /** Phone calls: Twilio's price (USD), once Twilio has rated the call (a while after it ended); null until then and for test calls. */
  telephony_cost: z.number().nullable(),
  /** The `{{name}}` values the call ran with; null for calls that had none recorded. */
  variables: z.record(z.string(), z.string()).nullable(),
  analysis: callAnalysisSchema.nullable(),
  /** The name of the campaign that dialled the call (campaign_id), while it exists. */
  campaign_name: z.string().nullable(),
});
export type CallRecord = z.infer<typeof callRecordSchema>;

// ---------------------------------------------------------------------------
// Filters: the same query string drives the list, the stats, the CSV and the page's URL.

const CALL_TYPE_FILTERS = ["test", "real"] as const;
export type CallTypeFilter = (typeof CALL_TYPE_FILTERS)[number];
export const CALL_QUERY_MAX_LENGTH = 100;

const blankAsUndefined = (value: unknown) => (value === "" ? undefined : value);
const optional = <T extends z.ZodType>(schema: T) => z.preprocess(blankAsUndefined, schema.optional());

/** Said in the document: the order of a range's ends is a rule between two parameters. */
const RANGE_END_DESCRIPTION = `After \`from\`, when both are given. ${DATE_BOUNDS_DESCRIPTION}`;
const DATA_FILTER_KEY = /^[a-z][a-z0-9]*(?:_[a-z0-9]+)*(?:\.contains)?$/;
export const MAX_DATA_FILTERS = 10;
const scoreFilter = (name: string) =>
  z.coerce
    .number({ message: `${name} must be a score from ${SCORE_MIN} to ${SCORE_MAX}` })
    .min(SCORE_MIN, `${name} must be a score from ${SCORE_MIN} to ${SCORE_MAX}`)
    .max(SCORE_MAX, `${name} must be a score from ${SCORE_MIN} to ${SCORE_MAX}`);

export const callFiltersSchema = z.object({
  assistant_id: optional(uuidSchema("assistant_id must be an assistant's id")),
  /** The version a call ran: a number, or "draft" for test calls of the draft (with assistant_id, compares versions). */
  assistant_version: optional(z.string().regex(/^(draft|[1-9]\d{0,8})$/, "assistant_version must be a version number or draft")),
  type: optional(z.enum(CALL_TYPE_FILTERS, { message: "type must be test or real" })),
  status: optional(z.enum(CALL_STATUS_FILTERS, { message: "status must be in_progress, completed or error" })),
  direction: optional(z.enum(CALL_DIRECTIONS, { message: "direction must be inbound or outbound" })),
  /** Calls that started at or after `from`, and before `to`. */
  from: optional(isoDateTime("from must be an ISO date-time")),
  to: optional(isoDateTime("to must be an ISO date-time").meta({ description: RANGE_END_DESCRIPTION })),
  q: optional(z.string().trim().max(CALL_QUERY_MAX_LENGTH, `q must be at most ${CALL_QUERY_MAX_LENGTH} characters`)),
  /** The analysis's success value: pass, fail, a category, or a score (as text). */
  success: optional(z.string().trim().min(1, { abort: true }).regex(NOT_BLANK).max(60, "success must be at most 60 characters")),
  success_min: optional(scoreFilter("success_min")),
  success_max: optional(scoreFilter("success_max")),
  /**
   * Extracted data: `data[<field>]=value` (equals, ignoring case) and `data[<field>.contains]=text`
   * in the query string (or `data.<field>…`), gathered here under their keys by `withDataFilters`.
   */
  data: optional(
    z
      .record(z.string(), z.string({ error: "A data filter's value must be text" }).max(200, "A data filter's value must be at most 200 characters"))
      // Keys checked here rather than by the record's key schema, whose error would not say which rule.
      .refine((d) => Object.keys(d).every((key) => DATA_FILTER_KEY.test(key)), "data filters are data.<field> or data.<field>.contains, with a snake_case field name")
      .refine((d) => Object.keys(d).length <= MAX_DATA_FILTERS, `At most ${MAX_DATA_FILTERS} data filters`)
      .meta({
        description:
          "Extracted-data filters, one query key each: `data[<field>]=value` (equals, ignoring case) or `data[<field>.contains]=text` (deepObject, as generated clients send it); `data.<field>=value` and `data.<field>.contains=text` are read the same.",
        style: "deepObject",
        explode: true,
        propertyNames: { type: "string", pattern: DATA_FILTER_KEY.source },
        maxProperties: MAX_DATA_FILTERS,
      }),
  ),
});
export type CallFilters = z.infer<typeof callFiltersSchema>;

/**
 * A data filter's query key, in either spelling: `data.<field>[.contains]`, as the web app writes
 * it, or `data[<field>[.contains]]`, OpenAPI's deepObject, as generated clients (openapi-fetch) send
 * it. The query string stays flat on the server, so both are read here, by their key.
 */
const DATA_FILTER_QUERY_KEY = /^data(?:\.(.+)|\[([^\]]+)\])$/;

/**
 * The query string's data filter keys (DATA_FILTER_QUERY_KEY) moved under `data` (a query string is flat),
 * before `schema` validates it; every other key is left as is. Then `from` must come before `to`:
 * checked here, with the schema, so an inverted range is a 400 before any query runs or any byte
 * of an export is sent.
 */
export function withDataFilters<T extends z.ZodType<{ from?: string; to?: string }>>(schema: T) {
  return z.preprocess((raw) => {
    if (!raw || typeof raw !== "object" || Array.isArray(raw)) return raw;
    const rest: Record<string, unknown> = {};
    const data: Record<string, unknown> = {};
    for (const [key, value] of Object.entries(raw)) {
      const filter = DATA_FILTER_QUERY_KEY.exec(key);
      if (filter) data[(filter[1] ?? filter[2])!] = value;
      else rest[key] = value;
    }
    return Object.keys(data).length > 0 ? { ...rest, data } : rest;
  }, schema).refine(rangeInOrder, { message: CALL_MESSAGES.badRange, path: ["to"] });
}

/** A range whose `from` is not before its `to` holds no call. */
export const rangeInOrder = (f: { from?: string; to?: string }): boolean => !(f.from && f.to) || Date.parse(f.from) < Date.parse(f.to);

/** The filters, kept the same on every page, and the page's `?limit` and `?cursor`. */
export const callListQuerySchema = callFiltersSchema.extend(pageQuerySchema.shape);
export type CallListQuery = z.infer<typeof callListQuerySchema>;

export const callStatsQuerySchema = callFiltersSchema.omit({ q: true, status: true }).extend({
  /** IANA zone the days of the chart are counted in (the browser's); UTC by default. Checked by the route (isTimeZone). */
  tz: optional(z.string().max(64).meta(timeZoneFormat)),
});
export type CallStatsQuery = z.infer<typeof callStatsQuerySchema>;

/** Success figures of a set of analysed calls. */
export const analysisStatsSchema = z.object({
  /** Calls with a success value. */
  analysed: z.number(),
  /** 0..1 of the pass/fail ones that passed; null without any. */
  success_rate: z.number().nullable(),
  /** Mean of the scored ones; null without any. */
  average_score: z.number().nullable(),
  /** Each category's calls and share of the categorised ones, most first. */
  categories: z.array(z.object({ category: z.string(), calls: z.number(), share: z.number() })),
});
export type AnalysisStats = z.infer<typeof analysisStatsSchema>;

/** The stats cards this file names (the others are spelled in call-stats-cards.tsx). */
export const STATS_TEXTS = {
  medianTurnLatency: "Median turn latency",
  medianTurnLatencyHint: "Pipeline calls: from the end of the caller's speech to the first audio sent back, the median over their turns",
} as const;

export const callStatsSchema = z.object({
  calls: z.number(),
  /** Of ended calls. */
  minutes: z.number(),
  cost: z.number(),
  /** ms, of ended calls; null without any. */
  average_duration_ms: z.number().nullable(),
  /** ms, the median over the calls' pipeline turns of end of caller speech → first audio sent; null without any. */
  median_turn_latency_ms: z.number().nullable(),
  /** 0..1 of ended calls whose reason is an error; null without any. */
  error_share: z.number().nullable(),
  /** Every day of the period that has calls, oldest first, as YYYY-MM-DD in `tz`. */
  per_day: z.array(z.object({ day: z.string(), calls: z.number() })),
  /** 0..1 of ended calls handed to a person; null without any. */
  transfer_rate: z.number().nullable(),
  /** 0..1 of ended calls that ended without being handed to a person; null without any. */
  containment: z.number().nullable(),
  /** The post-call analysis: over all the filtered calls, per assistant and per day. */
  success: analysisStatsSchema.extend({
    per_assistant: z.array(analysisStatsSchema.extend({ assistant_id: z.string().nullable(), assistant_name: z.string().nullable() })),
    per_day: z.array(analysisStatsSchema.extend({ day: z.string() })),
  }),
});
export type CallStats = z.infer<typeof callStatsSchema>;

type QueryValue = string | number | undefined | null;

/** The query string of a filter set, without empty values (for URLs and API calls alike); `data` as `data.<key>`. */
export function callFiltersQuery(filters: Partial<Record<string, QueryValue | Record<string, QueryValue>>>): string {
  const params = new URLSearchParams();
  const add = (key: string, value: QueryValue) => {
    if (value !== undefined && value !== null && value !== "") params.set(key, String(value));
  };
  for (const [key, value] of Object.entries(filters)) {
    if (value !== null && typeof value === "object") for (const [field, v] of Object.entries(value)) add(`data.${field}`, v);
    else add(key, value);
  }
  return params.toString();
}

export const CALL_MESSAGES = {
  notFound: "Call not found",
  loading: "Loading call data...",
  empty: "No call records found",
  fetchFailed: "Error fetching calls:",
  noTranscript: "No transcript available",
  emptyTranscript: "No transcript data available",
  recordingAvailable: "Recording available",
  noRecording: "No recording available yet",
  inProgressDelete: "A call in progress cannot be deleted",
  badTimeZone: "tz must be an IANA time zone such as Europe/Paris",
  badRange: "from must be before to",
  invertedRange: "“From” is later than “To”: the date range is ignored until you fix it.",
} as const;

// ---------------------------------------------------------------------------
// Derived values

/** Spec §3: Test, Real or Unknown from logs.isTest. */
export function callType(logs: CallRecordLogs | null): CallType {
  if (logs?.isTest === true) return "Test";
  if (logs?.isTest === false) return "Real";
  return "Unknown";
}

export type CallStatusKind = "waiting" | "in-progress" | "completed" | "error" | "other";

type StatusFields = Pick<CallSummary, "end_time" | "ended_reason"> & Partial<Pick<CallSummary, "twilio_status">>;

/**
 * Spec §4: "In progress" without an end time; otherwise the ended reason, or "Completed".
 * An outbound call the callee has not answered yet is Queued or Ringing, not in progress.
 * The kind picks the badge style: reasons mentioning an error or a failure are errors.
 */
export function callStatus(call: StatusFields): { label: string; kind: CallStatusKind } {
  const waiting = call.twilio_status ?? null;
  if (!call.end_time && isUnanswered(waiting)) return { label: UNANSWERED_LABELS[waiting], kind: "waiting" };
  if (!call.end_time) return { label: "In progress", kind: "in-progress" };
  const reason = call.ended_reason?.trim();
  if (!reason) return { label: "Completed", kind: "completed" };
  if (/error|fail/i.test(reason)) return { label: reason, kind: "error" };
  if (/^completed$/i.test(reason)) return { label: reason, kind: "completed" };
  return { label: reason, kind: "other" };
}

/** From start to end, or to `now` while the call is in progress; 0 for unreadable times. */
export function callDurationMs(call: Pick<CallSummary, "start_time" | "end_time">, now: number): number {
  const start = Date.parse(call.start_time);
  const end = call.end_time ? Date.parse(call.end_time) : now;
  return Number.isFinite(start) && Number.isFinite(end) ? Math.max(0, end - start) : 0;
}

/** A call's version (spec §16): v<N>, Draft for a browser test call, none for a phone call not answered yet. */
export function callVersionLabel(call: Pick<CallSummary, "assistant_version" | "type">): string {
  if (call.assistant_version === null && call.type === "Real") return NO_TALK_TIME;
  return versionLabel(call.assistant_version);
}

/** What a call that never connected shows for its duration: it had no talk time. */
export const NO_TALK_TIME = "—";

/** Spec §3: minutes:seconds; none for an outbound call that never connected (queued, ringing, busy, no answer...). */
export const callDuration = (call: Pick<CallSummary, "start_time" | "end_time"> & Partial<Pick<CallSummary, "twilio_status">>, now: number) =>
  neverConnected(call.twilio_status ?? null) ? NO_TALK_TIME : formatDuration(callDurationMs(call, now));

/** Spec §9: a dollar sign and 2 decimals, N/A if null. */
export function formatCost(cost: number | null): string {
  return cost === null || !Number.isFinite(cost) ? "N/A" : `$${cost.toFixed(2)}`;
}
