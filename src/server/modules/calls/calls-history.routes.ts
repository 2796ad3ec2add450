import type { FastifyBaseLogger, FastifyPluginAsync } from "fastify";
import type { ZodTypeProvider } from "fastify-type-provider-zod";
import { z } from "zod";
import { isUuid } from "../../../shared/assistants.ts";
import {
  CALL_LIST_LIMIT,
  CALL_MESSAGES,
  callRecordLogsSchema,
  RECORDING_URL_LIFETIME_MS,
  type CallRecord,
  type CallRecordLogs,
} from "../../../shared/call-records.ts";
import { toolUseSchema, transcriptEntrySchema } from "../../../shared/calls.ts";
import { AppError } from "../../errors.ts";
import type { UrlSigner } from "../../storage/signed-url.ts";
import { findCall, listCalls, type CallHistoryRow } from "./calls-history.repo.ts";

const params = z.object({ id: z.string() });

/**
 * The Calls page's read side (register inside the authenticated scope):
 * - GET /api/calls      → CallRecord[] of the signed-in user, newest start_time first (at most 200)
 * - GET /api/calls/:id  → CallRecord; another user's call (or none) → 404 "Call not found"
 * Records are written only by the call engine (calls.routes.ts); nothing here changes them.
 * Every answer signs fresh recording addresses, so a reload always gets playable ones.
 */
export const callsHistoryRoutes: FastifyPluginAsync = async (plugin) => {
  const app = plugin.withTypeProvider<ZodTypeProvider>();
  const { db, signer } = app.ctx;

  app.get("/api/calls", async (req): Promise<CallRecord[]> => {
    const rows = await listCalls(db, req.user.id, CALL_LIST_LIMIT);
    return rows.map((row) => toCallRecord(row, signer, req.log));
  });

  app.get("/api/calls/:id", { schema: { params } }, async (req): Promise<CallRecord> => {
    // A malformed id names no call; checking first also keeps it away from the uuid cast.
    const row = isUuid(req.params.id) ? await findCall(db, req.user.id, req.params.id) : null;
    if (!row) throw new AppError(404, "not_found", CALL_MESSAGES.notFound);
    return toCallRecord(row, signer, req.log);
  });
};

function toCallRecord(row: CallHistoryRow, signer: UrlSigner, log: FastifyBaseLogger): CallRecord {
  return {
    id: row.id,
    assistant_id: row.assistantId,
    assistant_name: row.assistantName,
    user_id: row.userId,
    start_time: row.startTime.toISOString(),
    end_time: row.endTime?.toISOString() ?? null,
    ended_reason: row.endedReason,
    cost: row.cost,
    recording_url: recordingUrl(row, signer, log),
    caller_number: row.callerNumber,
    called_number: row.calledNumber,
    logs: toLogs(row.logs),
  };
}

function recordingUrl(row: CallHistoryRow, signer: UrlSigner, log: FastifyBaseLogger): string | null {
  if (!row.recording) return null;
  try {
    return signer.signUrl(row.recording, { expiresInMs: RECORDING_URL_LIFETIME_MS });
  } catch (err) {
    // Only the engine writes the key, so this is a bug; the rest of the record is still worth showing.
    log.error({ err, callId: row.id }, "the call's recording key cannot be signed");
    return null;
  }
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
