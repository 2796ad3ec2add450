/**
 * Past and ongoing calls as the Calls page reads them (GET /api/calls, GET /api/calls/:id), and
 * the values the page derives from a record (spec §3 "calls", §4 "Call status shown", §9 display).
 * No DOM and no node:* here — both sides import this file.
 */
import { z } from "zod";
// ".js", not ".ts": the one spelling both the server's NodeNext and the web's bundler resolution accept.
import { formatDuration, toolUseSchema, transcriptEntrySchema } from "./calls.js";

/** How many calls the list returns, newest first. */
export const CALL_LIST_LIMIT = 200;

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
});
export type CallRecordLogs = z.infer<typeof callRecordLogsSchema>;

export const callRecordSchema = z.object({
  id: z.string(),
  /** null once the assistant is deleted; the record keeps its name. */
  assistant_id: z.string().nullable(),
  assistant_name: z.string().nullable(),
  user_id: z.string(),
  start_time: z.iso.datetime(),
  /** null while the call is in progress. */
  end_time: z.iso.datetime().nullable(),
  ended_reason: z.string().nullable(),
  /** USD; null until the call has ended. */
  cost: z.number().nullable(),
  /** A signed address of the recording (valid RECORDING_URL_LIFETIME_MS), or null without one. */
  recording_url: z.string().nullable(),
  /** Phone calls: the caller's number and the number called (E.164); null for browser test calls. */
  caller_number: z.string().nullable(),
  called_number: z.string().nullable(),
  /** null when the record has no logs at all. */
  logs: callRecordLogsSchema.nullable(),
});
export type CallRecord = z.infer<typeof callRecordSchema>;

export const CALL_MESSAGES = {
  notFound: "Call not found",
  loading: "Loading call data...",
  empty: "No call records found",
  fetchFailed: "Error fetching calls:",
  noTranscript: "No transcript available",
  emptyTranscript: "No transcript data available",
  recordingAvailable: "Recording available",
  noRecording: "No recording available yet",
} as const;

// ---------------------------------------------------------------------------
// Derived values

export type CallType = "Test" | "Real" | "Unknown";

/** Spec §3: Test, Real or Unknown from logs.isTest. */
export function callType(logs: CallRecordLogs | null): CallType {
  if (logs?.isTest === true) return "Test";
  if (logs?.isTest === false) return "Real";
  return "Unknown";
}

export type CallStatusKind = "in-progress" | "completed" | "error" | "other";

/**
 * Spec §4: "In progress" without an end time; otherwise the ended reason, or "Completed".
 * The kind picks the badge style: reasons mentioning an error or a failure are errors.
 */
export function callStatus(call: Pick<CallRecord, "end_time" | "ended_reason">): { label: string; kind: CallStatusKind } {
  if (!call.end_time) return { label: "In progress", kind: "in-progress" };
  const reason = call.ended_reason?.trim();
  if (!reason) return { label: "Completed", kind: "completed" };
  if (/error|fail/i.test(reason)) return { label: reason, kind: "error" };
  if (/^completed$/i.test(reason)) return { label: reason, kind: "completed" };
  return { label: reason, kind: "other" };
}

/** From start to end, or to `now` while the call is in progress; 0 for unreadable times. */
export function callDurationMs(call: Pick<CallRecord, "start_time" | "end_time">, now: number): number {
  const start = Date.parse(call.start_time);
  const end = call.end_time ? Date.parse(call.end_time) : now;
  return Number.isFinite(start) && Number.isFinite(end) ? Math.max(0, end - start) : 0;
}

/** Spec §3: minutes:seconds. */
export const callDuration = (call: Pick<CallRecord, "start_time" | "end_time">, now: number) => formatDuration(callDurationMs(call, now));

/** Spec §9: a dollar sign and 2 decimals, N/A if null. */
export function formatCost(cost: number | null): string {
  return cost === null || !Number.isFinite(cost) ? "N/A" : `$${cost.toFixed(2)}`;
}
