import { and, eq, isNotNull, sql } from "drizzle-orm";
import type { CallFilters } from "../../../shared/call-records.ts";
import { HANDOFF_TEXTS } from "../../../shared/calls.ts";
import type { Db } from "../../db/client.ts";
import { assistants, calls, campaigns } from "../../db/schema.ts";
import { keyColumn, orderByKey } from "../../db/keyset.ts";
import type { Keyset } from "../../http/pages.ts";
import { callConditions, callOrder } from "./calls-query.ts";
import { savedEntries } from "./calls.repo.ts";

// Which instance carries a live call is an operational detail, not part of the user's record.
export type CallHistoryRow = Omit<typeof calls.$inferSelect, "instanceId">;

/**
 * The assistant's current name while it exists (it may have been renamed since the call), else
 * the name copied onto the record when the call started. The join is scoped to the same owner.
 */
const assistantName = sql<string | null>`coalesce(${assistants.name}, ${calls.assistantName})`;
const assistantOfCall = and(eq(assistants.id, calls.assistantId), eq(assistants.organizationId, calls.organizationId));

/**
 * The cost a call shows (and the stats sum): a browser test call's tariff (spec "Billing"), a phone
 * call's real cost — what the AI provider charged for its usage plus Twilio's price once Twilio
 * has rated the call (telephony/call-price.ts). The stored tariff of a phone call is not shown.
 */
export const shownCost = sql<number | null>`(CASE
  WHEN ${calls.isTest} IS DISTINCT FROM false THEN ${calls.cost}
  WHEN ${calls.endTime} IS NULL THEN NULL
  -- Older records (and calls Twilio finalised without the engine) have no figure of their own.
  WHEN ${calls.providerCost} IS NULL AND ${calls.telephonyCost} IS NULL THEN NULL
  ELSE coalesce((${calls.providerCost}->>'total')::float8, CASE WHEN ${calls.providerCost} IS NULL THEN 0 END) + coalesce(${calls.telephonyCost}, 0)
END)`;

/** What a row of the list needs: never the logs, which hold the whole transcript. */
const summaryColumns = {
  id: calls.id,
  assistantId: calls.assistantId,
  assistantName,
  assistantVersion: calls.assistantVersion,
  startTime: calls.startTime,
  // The row's place in the list, as its cursor spells it (start to the microsecond, id).
  page_key: keyColumn(callOrder),
  endTime: calls.endTime,
  endedReason: calls.endedReason,
  cost: shownCost,
  isTest: calls.isTest,
  status: calls.status,
  callerNumber: calls.callerNumber,
  calledNumber: calls.calledNumber,
  direction: calls.direction,
  providerStatus: calls.providerStatus,
  campaignId: calls.campaignId,
  hasRecording: sql<boolean>`${calls.recording} IS NOT NULL`,
  // Summary, data and success: small, and the CSV's columns.
  analysis: calls.analysis,
};

const recordColumns = {
  ...summaryColumns,
  organizationId: calls.organizationId,
  recording: calls.recording,
  logs: calls.logs,
  providerCost: calls.providerCost,
  telephonyCost: calls.telephonyCost,
  providerCallSid: calls.providerCallSid,
  carrier: calls.carrier,
  sipCallId: calls.sipCallId,
  variables: calls.variables,
  // Scoped to the call's own organisation, like the assistant's join.
  campaignName: sql<string | null>`(SELECT ${campaigns.name} FROM ${campaigns} WHERE ${campaigns.id} = ${calls.campaignId} AND ${campaigns.organizationId} = ${calls.organizationId})`,
};

/**
 * A page of the user's calls, newest start first, after the keyset `after` (no gaps or repeats as
 * calls arrive). Returns the query itself (await it), so npm run bench:api can EXPLAIN it.
 */
export function listCallSummaries(db: Db, organizationId: string, filters: CallFilters, limit: number, after?: Keyset) {
  return db
    .select(summaryColumns)
    .from(calls)
    .leftJoin(assistants, assistantOfCall)
    .where(callConditions(organizationId, filters, after))
    .orderBy(...orderByKey(callOrder))
    .limit(limit);
}

export type CallSummaryRow = Awaited<ReturnType<typeof listCallSummaries>>[number];

/**
 * One of the user's calls; another user's call is absent, like one that does not exist. A call
 * in progress shows the transcript and tool calls its engine has saved so far (call_entries).
 */
export async function findCall(db: Db, organizationId: string, id: string) {
  const [row] = await db
    .select(recordColumns)
    .from(calls)
    .leftJoin(assistants, assistantOfCall)
    .where(and(eq(calls.organizationId, organizationId), eq(calls.id, id)));
  if (!row) return null;
  const saved = row.endTime === null ? await savedEntries(db, row.id) : null;
  return saved ? { ...row, logs: { ...row.logs, ...saved } } : row;
}
export type CallRecordRow = NonNullable<Awaited<ReturnType<typeof findCall>>>;

/** How a handed-off call's ended reason starts ("Transferred to <label>"). */
export const TRANSFERRED_PREFIX = HANDOFF_TEXTS.transferredTo("");

export interface CallTotals {
  calls: number;
  ended: number;
  endedMs: number;
  cost: number;
  errors: number;
  /** Ended calls handed to a person. */
  transferred: number;
}

/** Sums over the filtered calls in one pass of the index range. */
export async function callTotals(db: Db, organizationId: string, filters: CallFilters): Promise<CallTotals> {
  const [row] = await callTotalsQuery(db, organizationId, filters);
  return row!;
}

export function callTotalsQuery(db: Db, organizationId: string, filters: CallFilters) {
  return db
    .select({
      calls: sql<number>`count(*)::int`,
      ended: sql<number>`count(${calls.endTime})::int`,
      endedMs: sql<number>`coalesce(sum(extract(epoch from ${calls.endTime} - ${calls.startTime}) * 1000), 0)::float8`,
      // Summed as exact numerics, as the roll-ups are: any split of the calls adds up to the same value.
      cost: sql<number>`coalesce(sum((${shownCost})::numeric), 0)::float8`,
      errors: sql<number>`(count(*) filter (where ${calls.status} = 'error'))::int`,
      transferred: sql<number>`(count(*) filter (where ${calls.endTime} IS NOT NULL AND starts_with(${calls.endedReason}, ${TRANSFERRED_PREFIX})))::int`,
    })
    .from(calls)
    .where(callConditions(organizationId, filters));
}

/**
 * The median over the filtered calls' turns of end of caller speech → first audio sent (the same
 * figure as medianTurnLatency of src/shared/calls.ts), read from the calls; the roll-ups' counts of each
 * value (call_latency_rollups) give the same median.
 */
export async function callsMedianTurnLatency(db: Db, organizationId: string, filters: CallFilters): Promise<number | null> {
  const [row] = await db
    .select({ median: sql<number | null>`percentile_cont(0.5) WITHIN GROUP (ORDER BY (turn ->> 'firstAudioSentMs')::float8)` })
    .from(sql`${calls} CROSS JOIN LATERAL jsonb_array_elements(CASE WHEN jsonb_typeof(${calls.logs} -> 'turns') = 'array' THEN ${calls.logs} -> 'turns' ELSE '[]'::jsonb END) AS turn`)
    .where(and(callConditions(organizationId, filters), sql`jsonb_typeof(turn -> 'firstAudioSentMs') = 'number'`));
  return row?.median === null || row?.median === undefined ? null : Math.round(Number(row.median));
}

/** Calls per day in `timeZone` (validated by the caller), oldest first; days without calls are absent. */
export async function callsPerDay(db: Db, organizationId: string, filters: CallFilters, timeZone: string) {
  const day = sql<string>`to_char(${calls.startTime} AT TIME ZONE ${timeZone}, 'YYYY-MM-DD')`;
  return await db
    .select({ day, calls: sql<number>`count(*)::int` })
    .from(calls)
    .where(callConditions(organizationId, filters))
    // By position: the zone is a parameter, and "$1" in the select and "$2" in GROUP BY are not the same expression to PostgreSQL.
    .groupBy(sql`1`)
    .orderBy(sql`1`);
}

export type DeleteOutcome = { deleted: true; recording: string | null } | { deleted: false; inProgress: boolean };

/** Removes an ended call of the user's; a call in progress stays (its engine still writes to it). */
export async function deleteCall(db: Db, organizationId: string, id: string): Promise<DeleteOutcome> {
  const [row] = await db
    .delete(calls)
    .where(and(eq(calls.organizationId, organizationId), eq(calls.id, id), isNotNull(calls.endTime)))
    .returning({ recording: calls.recording });
  if (row) return { deleted: true, recording: row.recording };
  const [live] = await db
    .select({ id: calls.id })
    .from(calls)
    .where(and(eq(calls.organizationId, organizationId), eq(calls.id, id)));
  return { deleted: false, inProgress: live !== undefined };
}

/** The names of the fields the owner's assistants (or the one given) extract, in order, once each. */
export async function analysisFieldNames(db: Db, organizationId: string, assistantId?: string): Promise<string[]> {
  const rows = await db
    .select({ analysis: assistants.analysis })
    .from(assistants)
    .where(assistantId ? and(eq(assistants.organizationId, organizationId), eq(assistants.id, assistantId)) : eq(assistants.organizationId, organizationId))
    .orderBy(assistants.createdAt, assistants.id);
  return [...new Set(rows.flatMap((r) => r.analysis?.fields.map((f) => f.name) ?? []))];
}
