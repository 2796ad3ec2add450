import type { FastifyPluginAsync, FastifyRequest } from "fastify";
import type { ZodTypeProvider } from "fastify-type-provider-zod";
import { z } from "zod";
import { isUuid } from "../../../shared/ids.ts";
import { can } from "../../../shared/roles.ts";
import {
  CALL_MESSAGES,
  callFiltersSchema,
  callListQuerySchema,
  callPageSchema,
  callRecordSchema,
  callStatsSchema,
  callStatsQuerySchema,
  type CallPage,
  type CallRecord,
  withDataFilters,
  RECORDING_URL_LIFETIME_MS,
} from "../../../shared/call-records.ts";
import { AppError, badRequest } from "../../errors.ts";
import { downloadBody, sendCsv } from "../../http/download-body.ts";
import { deleteCall, findCall, listCallSummaries } from "./calls-history.repo.ts";
import { callStats } from "./calls-stats.ts";
import { exportCallsCsv } from "./calls-export.ts";
import { decodeKey, keysetPage } from "../../db/keyset.ts";
import { callOrder } from "./calls-query.ts";
import { toCallRecord, toCallSummary } from "./calls-wire.ts";

const params = z.object({ id: z.string() });
const notFound = () => new AppError(404, "not_found", CALL_MESSAGES.notFound);

/**
 * Summing and exporting read every call of the filter, so each user gets a budget per minute
 * (429 with Retry-After beyond it): the Calls page asks for stats on each filter change, an
 * export is a click. Counted in the shared store, so the budget holds across instances, and
 * after the query is checked: a refused filter costs no work and keeps its own 400.
 */
export const CALLS_STATS_PER_MINUTE = 60;
export const CALLS_EXPORTS_PER_MINUTE = 10;
const perUser = (max: number) => ({ rateLimit: { max, timeWindow: 60_000, hook: "preHandler" as const, keyGenerator: (req: FastifyRequest) => req.actor.organizationId } });

/** Who a browser test call's Customer is: the signed-in person; an API key has none (empty). */
const customerOf = (req: FastifyRequest): string | null => (req.actor.via === "session" ? req.user.name || req.user.email : null);

/**
 * The Calls page's side of the calls table (register inside the authenticated scope). Records are
 * written only by the call engine (calls.routes.ts); here they are read, summed, exported, deleted.
 * - GET    /api/calls             → { data: CallSummary[], next_cursor }, newest start first (keyset)
 * - GET    /api/calls/stats       → CallStats of the filtered calls
 * - GET    /api/calls/export.csv  → the filtered calls as CSV, streamed
 * - GET    /api/calls/:id         → CallRecord (logs, transcript, signed recording address)
 * - DELETE /api/calls/:id         → 204; the record and its recording are gone
 * Another user's call (or none) → 404 "Call not found".
 */
export const callsHistoryRoutes: FastifyPluginAsync = async (plugin) => {
  const app = plugin.withTypeProvider<ZodTypeProvider>();
  const { db, signer, storage } = app.ctx;

  app.get("/api/calls", { schema: { querystring: withDataFilters(callListQuerySchema), response: { 200: callPageSchema } } }, async (req): Promise<CallPage> => {
    const { limit, cursor, ...filters } = req.query;
    // One row more than asked tells whether another page exists without a count.
    const rows = await listCallSummaries(db, req.actor.organizationId, filters, limit + 1, cursor === undefined ? undefined : decodeKey(callOrder, cursor));
    const page = keysetPage(rows, limit);
    return { data: page.data.map((row) => toCallSummary(row, customerOf(req))), next_cursor: page.next_cursor };
  });

  app.get("/api/calls/stats", { schema: { querystring: withDataFilters(callStatsQuerySchema), response: { 200: callStatsSchema } }, config: perUser(CALLS_STATS_PER_MINUTE) }, async (req) => {
    const { tz = "UTC", ...filters } = req.query;
    if (!isTimeZone(tz)) throw badRequest(CALL_MESSAGES.badTimeZone);
    return callStats(db, req.actor.organizationId, filters, tz, app.ctx.config.statsRollups);
  });

  app.get("/api/calls/export.csv", { schema: { querystring: withDataFilters(callFiltersSchema) }, config: perUser(CALLS_EXPORTS_PER_MINUTE) }, async (req, reply) => {
    // The filters (the range's order included) were checked by the schema before this line.
    const stream = downloadBody(exportCallsCsv(db, req.actor.organizationId, customerOf(req), req.query), req.log, "calls export");
    const day = new Date().toISOString().slice(0, 10);
    return sendCsv(reply, `calls-${day}.csv`, stream);
  });

  app.get("/api/calls/:id", { schema: { params, response: { 200: callRecordSchema } } }, async (req): Promise<CallRecord> => {
    // A malformed id names no call; checking first also keeps it away from the uuid cast.
    const row = isUuid(req.params.id) ? await findCall(db, req.actor.organizationId, req.params.id) : null;
    if (!row) throw notFound();
    const record = toCallRecord(row, customerOf(req), signer, req.log);
    // A viewer reads the call but may not play its recording (that is a supervisor's).
    return can(req.actor.role, "supervise") ? record : { ...record, recording_url: null };
  });

  // A stable address for the recording (the call.ended webhook names it): redirects to a fresh
  // signed link, so it works for as long as the recording exists, with a session or an API key.
  app.get("/api/calls/:id/recording", { schema: { params } }, async (req, reply) => {
    const row = isUuid(req.params.id) ? await findCall(db, req.actor.organizationId, req.params.id) : null;
    if (!row?.recording) throw new AppError(404, "not_found", "Recording not found");
    return reply.header("cache-control", "no-store").redirect(signer.signUrl(row.recording, { expiresInMs: RECORDING_URL_LIFETIME_MS }), 302);
  });

  app.delete("/api/calls/:id", { schema: { params } }, async (req, reply) => {
    if (!isUuid(req.params.id)) throw notFound();
    const outcome = await deleteCall(db, req.actor.organizationId, req.params.id);
    if (!outcome.deleted) throw outcome.inProgress ? new AppError(409, "call_in_progress", CALL_MESSAGES.inProgressDelete) : notFound();
    if (outcome.recording) {
      // The record is gone either way; an object left behind is logged for the operator, not shown as a failure.
      await storage.delete(outcome.recording).catch((err: unknown) => req.log.error({ err, key: outcome.recording }, "deleting a call's recording failed"));
    }
    req.log.info({ callId: req.params.id, recording: outcome.recording !== null }, "call deleted by its owner");
    return reply.status(204).send();
  });
};

function isTimeZone(tz: string): boolean {
  try {
    new Intl.DateTimeFormat("en-US", { timeZone: tz });
    return true;
  } catch {
    return false;
  }
}
