/** Rows of the calls table as the wire shapes of src/shared/call-records.ts. */
import type { FastifyBaseLogger } from "fastify";
import type { z } from "zod";
import {
  CALL_STATUS_FILTERS,
  callRecordLogsSchema,
  providerCostSchema,
  RECORDING_URL_LIFETIME_MS,
  type CallRecord,
  type CallRecordLogs,
  type CallStatusFilter,
  type CallSummary,
  type ProviderCost,
} from "../../../shared/call-records.ts";
import { toolUseSchema, transcriptEntrySchema } from "../../../shared/calls.ts";
import type { UrlSigner } from "../../storage/signed-url.ts";
import type { CallRecordRow, CallSummaryRow } from "./calls-history.repo.ts";

/** `customer` names the signed-in user: the Customer of a test call made from the browser. */
export function toCallSummary(row: CallSummaryRow, customer: string): CallSummary {
  return {
    id: row.id,
    assistant_id: row.assistantId,
    assistant_name: row.assistantName,
    type: row.isTest === true ? "Test" : row.isTest === false ? "Real" : "Unknown",
    customer: row.callerNumber ?? customer,
    called_number: row.calledNumber,
    start_time: row.startTime.toISOString(),
    end_time: row.endTime?.toISOString() ?? null,
    duration_ms: row.endTime ? Math.max(0, row.endTime.getTime() - row.startTime.getTime()) : null,
    cost: row.cost,
    status: (CALL_STATUS_FILTERS as readonly string[]).includes(row.status ?? "") ? (row.status as CallStatusFilter) : "completed",
    ended_reason: row.endedReason,
    has_recording: row.hasRecording,
  };
}

export function toCallRecord(row: CallRecordRow, customer: string, signer: UrlSigner, log: FastifyBaseLogger): CallRecord {
  return {
    ...toCallSummary(row, customer),
    user_id: row.userId,
    recording_url: recordingUrl(row, signer, log),
    caller_number: row.callerNumber,
    logs: toLogs(row.logs),
    provider_cost: toProviderCost(row.providerCost),
  };
}

function recordingUrl(row: CallRecordRow, signer: UrlSigner, log: FastifyBaseLogger): string | null {
  if (!row.recording) return null;
  try {
    return signer.signUrl(row.recording, { expiresInMs: RECORDING_URL_LIFETIME_MS });
  } catch (err) {
    // Only the engine writes the key, so this is a bug; the rest of the record is still worth showing.
    log.error({ err, callId: row.id }, "the call's recording key cannot be signed");
    return null;
  }
}

function toProviderCost(raw: unknown): ProviderCost | null {
  const parsed = providerCostSchema.safeParse(raw);
  return parsed.success ? parsed.data : null;
}

/**
 * An empty object is "no logs". A record the engine wrote parses as is; anything unreadable in an
 * older or damaged one is dropped entry by entry rather than hiding the whole transcript.
 */
function toLogs(raw: unknown): CallRecordLogs | null {
  if (!raw || typeof raw !== "object" || Array.isArray(raw) || Object.keys(raw).length === 0) return null;
  const parsed = callRecordLogsSchema.safeParse(raw);
  if (parsed.success) return parsed.data;
  const logs = raw as Record<string, unknown>;
  return {
    ...logs,
    isTest: typeof logs["isTest"] === "boolean" ? logs["isTest"] : undefined,
    transcript: readable(logs["transcript"], transcriptEntrySchema),
    toolsUsed: readable(logs["toolsUsed"], toolUseSchema),
  };
}

function readable<T>(value: unknown, schema: z.ZodType<T>): T[] | undefined {
  if (!Array.isArray(value)) return undefined;
  return value.flatMap((item) => {
    const parsed = schema.safeParse(item);
    return parsed.success ? [parsed.data] : [];
  });
}
