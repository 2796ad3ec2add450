/**
 * The analysis's SQL: the `analysis` column of `calls` (and its line in `provider_cost`), and
 * the "Analyse past calls" runs. Writes of a result are compare-and-set on the run id stored in
 * the pending analysis, so a job that runs twice (at-least-once delivery) or a run superseded by
 * "Run again" never writes twice nor over a newer one; nothing else of the record is touched.
 */
import { and, desc, eq, gte, isNotNull, lt, sql, type SQL } from "drizzle-orm";
import { DEFAULT_ANALYSIS_MODEL, type CallAnalysis } from "../../../shared/analysis.ts";
import type { ProviderCost, ProviderCostLine } from "../../../shared/call-records.ts";
import type { Db } from "../../db/client.ts";
import { analysisRuns, assistants, calls } from "../../db/schema.ts";

/** What the column holds: the wire shape plus which request it answers (never sent to clients). */
export type StoredAnalysis = CallAnalysis & {
  /** The request this analysis belongs to; only its job may complete it. */
  run: string;
  /** The "Analyse past calls" run that asked for it, whose progress it counts in. */
  batch?: string;
};

/**
 * The pending analysis a call gets in the very write that closes it (the engine's final write,
 * a lease sweep): durable before any job is queued, so an instance dying between the close and
 * the queueing leaves a pending analysis that the recovery finds and queues, never a call
 * silently left unanalysed. An analysis already there (a sweep closed it first) is kept. The
 * model is the assistant's analysis model (analysisSettingsOf's default when it has none).
 */
export const pendingAnalysisOnClose: SQL = sql`coalesce(${calls.analysis}, jsonb_build_object(
  'status', 'pending', 'summary', null, 'data', '{}'::jsonb, 'success', null,
  'model', coalesce((SELECT a.analysis ->> 'model' FROM ${assistants} a WHERE a.id = ${calls.assistantId}), ${DEFAULT_ANALYSIS_MODEL}::text),
  'cost', null, 'completed_at', null, 'run', gen_random_uuid()::text))`;

/** Every pending analysis (across organisations): what the recovery compares with the queue's jobs. */
export async function pendingAnalyses(db: Db) {
  const rows = await db
    .select({ callId: calls.id, organizationId: calls.organizationId, assistantId: calls.assistantId, analysis: calls.analysis })
    .from(calls)
    .where(sql`(${calls.analysis} ->> 'status') = 'pending'`);
  return rows.map((r) => ({ ...r, analysis: r.analysis as StoredAnalysis }));
}

export async function findCallForAnalysis(db: Db, callId: string) {
  const [row] = await db
    .select({
      id: calls.id,
      organizationId: calls.organizationId,
      assistantId: calls.assistantId,
      assistantName: sql<string | null>`coalesce(${assistants.name}, ${calls.assistantName})`,
      endTime: calls.endTime,
      logs: calls.logs,
      analysis: calls.analysis,
    })
    .from(calls)
    .leftJoin(assistants, and(eq(assistants.id, calls.assistantId), eq(assistants.organizationId, calls.organizationId)))
    .where(eq(calls.id, callId));
  return row ? { ...row, analysis: row.analysis as StoredAnalysis | null } : null;
}

/** A campaign's call: its campaign and the variables it ran with (call.analyzed carries them as every call.* event does). */
export async function campaignOfCall(db: Db, callId: string): Promise<{ campaignId: string | null; variables: Record<string, string> | null }> {
  const [row] = await db.select({ campaignId: calls.campaignId, variables: calls.variables }).from(calls).where(eq(calls.id, callId));
  return row ?? { campaignId: null, variables: null };
}

/** The owner's ended call, for "Run again" (another user's call is absent). */
export async function findOwnEndedCall(db: Db, organizationId: string, callId: string) {
  const [row] = await db
    .select({ id: calls.id, endTime: calls.endTime, assistantId: calls.assistantId })
    .from(calls)
    .where(and(eq(calls.organizationId, organizationId), eq(calls.id, callId)));
  return row ?? null;
}

/**
 * Makes `analysis` (pending, or skipped) the call's, replacing any earlier one. A pending one it
 * supersedes is counted as finished in its own "Analyse past calls" run, whose job will now
 * find itself superseded and write nothing. The same run begun again changes nothing. False
 * when the call is gone.
 */
export async function beginAnalysis(db: Db, callId: string, analysis: StoredAnalysis): Promise<boolean> {
  return db.transaction(async (tx) => {
    const [row] = await tx.select({ analysis: calls.analysis }).from(calls).where(eq(calls.id, callId)).for("update");
    const previous = row?.analysis as StoredAnalysis | null | undefined;
    // A call deleted before its turn in "Analyse past calls" counts as finished there.
    if (!row && analysis.batch) await countFinished(tx, analysis.batch);
    if (!row) return false;
    if (previous?.run === analysis.run) return true;
    await tx.update(calls).set({ analysis }).where(eq(calls.id, callId));
    if (previous?.status === "pending" && previous.batch) await countFinished(tx, previous.batch);
    if (analysis.status !== "pending" && analysis.batch) await countFinished(tx, analysis.batch);
    return true;
  });
}

type Tx = Parameters<Parameters<Db["transaction"]>[0]>[0];
/** One more call of the "Analyse past calls" run `batch` finished (its progress). */
export const countFinished = (tx: Tx | Db, batch: string) =>
  tx
    .update(analysisRuns)
    .set({ finished: sql`${analysisRuns.finished} + 1` })
    .where(eq(analysisRuns.id, batch));

function withAnalysisLine(cost: ProviderCost | null, line: ProviderCostLine): ProviderCost {
  const lines = [...(cost?.lines ?? [])];
  const i = lines.findIndex((l) => l.kind === "analysis" && l.model === line.model);
  if (i < 0) lines.push(line);
  else {
    const old = lines[i]!;
    lines[i] = {
      ...old,
      text_in: old.text_in + line.text_in,
      text_cached: old.text_cached + line.text_cached,
      text_out: old.text_out + line.text_out,
      cost: old.cost === null || line.cost === null ? null : old.cost + line.cost,
    };
  }
  const total = lines.some((l) => l.cost === null) ? null : lines.reduce((sum, l) => sum + l.cost!, 0);
  return { total, lines };
}

/**
 * Writes the outcome of run `run` if it is still the call's pending analysis; with a cost line,
 * adds it to the call's provider cost. Returns false when the run was superseded or already written.
 */
export async function completeAnalysis(db: Db, callId: string, run: string, analysis: StoredAnalysis, costLine: ProviderCostLine | null): Promise<boolean> {
  return db.transaction(async (tx) => {
    const [row] = await tx
      .select({ analysis: calls.analysis, providerCost: calls.providerCost })
      .from(calls)
      .where(eq(calls.id, callId))
      .for("update");
    const current = row?.analysis as StoredAnalysis | null | undefined;
    // Deleted while it was being analysed: still one finished in its "Analyse past calls" run.
    if (!row && analysis.batch) await countFinished(tx, analysis.batch);
    if (!row || current?.run !== run || current.status !== "pending") return false;
    await tx
      .update(calls)
      .set(costLine ? { analysis, providerCost: withAnalysisLine(row.providerCost, costLine) } : { analysis })
      .where(eq(calls.id, callId));
    if (analysis.batch) await countFinished(tx, analysis.batch);
    return true;
  });
}

/** The assistant's ended calls for "Analyse past calls": the last `last`, or those started in [from, to). */
export async function callsForBackfill(db: Db, organizationId: string, assistantId: string, choice: { last?: number; from?: string; to?: string }, max: number): Promise<string[]> {
  const parts = [eq(calls.organizationId, organizationId), eq(calls.assistantId, assistantId), isNotNull(calls.endTime)];
  if (choice.from) parts.push(gte(calls.startTime, new Date(choice.from)));
  if (choice.to) parts.push(lt(calls.startTime, new Date(choice.to)));
  const rows = await db
    .select({ id: calls.id })
    .from(calls)
    .where(and(...parts))
    .orderBy(desc(calls.startTime), desc(calls.id))
    .limit(Math.min(choice.last ?? max, max));
  return rows.map((r) => r.id);
}

export async function insertRun(db: Db, organizationId: string, assistantId: string, total: number) {
  const [row] = await db.insert(analysisRuns).values({ organizationId, assistantId, total, finished: 0 }).returning();
  return row!;
}

export async function findRun(db: Db, organizationId: string, assistantId: string, runId: string) {
  const [row] = await db
    .select()
    .from(analysisRuns)
    .where(and(eq(analysisRuns.organizationId, organizationId), eq(analysisRuns.assistantId, assistantId), eq(analysisRuns.id, runId)));
  return row ?? null;
}

/** The assistant's most recent run (what the page shows progress of). */
export async function latestRun(db: Db, organizationId: string, assistantId: string) {
  const [row] = await db
    .select()
    .from(analysisRuns)
    .where(and(eq(analysisRuns.organizationId, organizationId), eq(analysisRuns.assistantId, assistantId)))
    .orderBy(desc(analysisRuns.createdAt))
    .limit(1);
  return row ?? null;
}

export type AnalysisRunRow = typeof analysisRuns.$inferSelect;
