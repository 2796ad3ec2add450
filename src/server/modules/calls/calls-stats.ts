/**
 * The Calls page's figures (`GET /api/calls/stats`): from the roll-ups where they can answer
 * (calls-rollups.repo.ts, ADR 061; the median turn latency: ADR 073), else from the calls
 * themselves. Both give the same numbers; the raw path stays for the extracted-data filters and
 * for zones whose offset is not whole hours.
 */
import type { CallFilters, CallStats } from "../../../shared/call-records.ts";
import type { Db } from "../../db/client.ts";
import { analysisFromGroups, analysisStats } from "./calls-analysis-stats.ts";
import { callsMedianTurnLatency, callsPerDay, callTotals, type CallTotals } from "./calls-history.repo.ts";
import { canRollUp, rolledUpStats } from "./calls-rollups.repo.ts";

export async function callStats(db: Db, organizationId: string, filters: CallFilters, tz: string, useRollups: boolean): Promise<CallStats> {
  const rolled = useRollups && canRollUp(filters) ? await rolledUpStats(db, organizationId, filters, tz) : null;
  if (rolled) return statsOf(rolled.totals, rolled.perDay, analysisFromGroups(rolled.groups), rolled.medianTurnLatencyMs);
  return rawCallStats(db, organizationId, filters, tz);
}

/** The stats summed over the filtered calls themselves. */
export async function rawCallStats(db: Db, organizationId: string, filters: CallFilters, tz: string): Promise<CallStats> {
  const [totals, perDay, success, medianTurn] = await Promise.all([
    callTotals(db, organizationId, filters),
    callsPerDay(db, organizationId, filters, tz),
    analysisStats(db, organizationId, filters, tz),
    callsMedianTurnLatency(db, organizationId, filters),
  ]);
  return statsOf(totals, perDay, success, medianTurn);
}

function statsOf(totals: CallTotals, perDay: CallStats["per_day"], success: CallStats["success"], medianTurnLatencyMs: number | null): CallStats {
  return {
    calls: totals.calls,
    minutes: Math.round((totals.endedMs / 60_000) * 100) / 100,
    cost: Math.round(totals.cost * 100) / 100,
    average_duration_ms: totals.ended > 0 ? Math.round(totals.endedMs / totals.ended) : null,
    median_turn_latency_ms: medianTurnLatencyMs,
    error_share: totals.ended > 0 ? totals.errors / totals.ended : null,
    per_day: perDay,
    transfer_rate: totals.ended > 0 ? totals.transferred / totals.ended : null,
    containment: totals.ended > 0 ? (totals.ended - totals.transferred) / totals.ended : null,
    success,
  };
}
