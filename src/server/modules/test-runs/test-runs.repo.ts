import { and, asc, desc, eq, inArray, isNull } from "drizzle-orm";
import type { TestResultStatus, TestTurn } from "../../../shared/scenarios.ts";
import type { AssistantContent } from "../../../shared/versions.ts";
import type { Db } from "../../db/client.ts";
import { withOrganizationLock } from "../../db/organization-lock.ts";
import { testResults, testRuns } from "../../db/schema.ts";

export type TestRunRow = typeof testRuns.$inferSelect;
export type TestResultRow = typeof testResults.$inferSelect;

/** Every query here is scoped to `organizationId`, but the job's, which reads the one result its job names. */

/**
 * Inserts a run and its results, unless the assistant has one in flight (not cancelled, a result
 * still pending or running): checked and written under one lock, so two starts at the same moment
 * make one run. Null when one is in flight.
 */
export async function insertRun(
  db: Db,
  organizationId: string,
  run: { assistantId: string; version: number | null; content: AssistantContent; createdBy: string | null },
  scenarios: readonly { id: string; name: string }[],
): Promise<{ run: TestRunRow; resultIds: string[] } | null> {
  return withOrganizationLock(db, organizationId, `test-run:${run.assistantId}`, async (tx) => {
    const [inFlight] = await tx
      .select({ id: testRuns.id })
      .from(testRuns)
      .innerJoin(testResults, eq(testResults.runId, testRuns.id))
      .where(
        and(
          eq(testRuns.organizationId, organizationId),
          eq(testRuns.assistantId, run.assistantId),
          isNull(testRuns.cancelledAt),
          inArray(testResults.status, ["pending", "running"]),
        ),
      )
      .limit(1);
    if (inFlight) return null;
    const [row] = await tx
      .insert(testRuns)
      .values({ ...run, organizationId })
      .returning();
    const results = await tx
      .insert(testResults)
      .values(scenarios.map((s, position) => ({ organizationId, runId: row!.id, scenarioId: s.id, scenarioName: s.name, position })))
      .returning({ id: testResults.id });
    return { run: row!, resultIds: results.map((r) => r.id) };
  });
}

export async function findRun(db: Db, organizationId: string, id: string): Promise<TestRunRow | null> {
  const [row] = await db
    .select()
    .from(testRuns)
    .where(and(eq(testRuns.organizationId, organizationId), eq(testRuns.id, id)));
  return row ?? null;
}

/** The newest run of an assistant; of its draft only with `draftOnly`. */
export async function latestRun(db: Db, organizationId: string, assistantId: string, draftOnly = false): Promise<TestRunRow | null> {
  const [row] = await db
    .select()
    .from(testRuns)
    .where(and(eq(testRuns.organizationId, organizationId), eq(testRuns.assistantId, assistantId), draftOnly ? isNull(testRuns.version) : undefined))
    .orderBy(desc(testRuns.createdAt), desc(testRuns.id))
    .limit(1);
  return row ?? null;
}

export function resultsOf(db: Db, organizationId: string, runId: string): Promise<TestResultRow[]> {
  return db
    .select()
    .from(testResults)
    .where(and(eq(testResults.organizationId, organizationId), eq(testResults.runId, runId)))
    .orderBy(asc(testResults.position));
}

/** Cancels a run: its unfinished results are marked so, and a job still playing one writes nothing. */
export async function cancelRun(db: Db, organizationId: string, id: string, at: Date): Promise<void> {
  await db.transaction(async (tx) => {
    await tx
      .update(testRuns)
      .set({ cancelledAt: at })
      .where(and(eq(testRuns.organizationId, organizationId), eq(testRuns.id, id), isNull(testRuns.cancelledAt)));
    await tx
      .update(testResults)
      .set({ status: "cancelled", finishedAt: at })
      .where(and(eq(testResults.organizationId, organizationId), eq(testResults.runId, id), inArray(testResults.status, ["pending", "running"])));
  });
}

// ── The job's side ─────────────────────────────────────────────────────────────────────────

export interface JobResult {
  result: TestResultRow;
  run: TestRunRow;
}

export async function findForJob(db: Db, resultId: string): Promise<JobResult | null> {
  const [row] = await db.select({ result: testResults, run: testRuns }).from(testResults).innerJoin(testRuns, eq(testRuns.id, testResults.runId)).where(eq(testResults.id, resultId));
  return row ?? null;
}

/** pending → running (a repeated job finds it running already and plays it again from the start). */
export async function markRunning(db: Db, resultId: string): Promise<boolean> {
  const rows = await db
    .update(testResults)
    .set({ status: "running" })
    .where(and(eq(testResults.id, resultId), inArray(testResults.status, ["pending", "running"])))
    .returning({ id: testResults.id });
  return rows.length > 0;
}

export async function stillRunning(db: Db, resultId: string): Promise<boolean> {
  const [row] = await db.select({ status: testResults.status }).from(testResults).where(eq(testResults.id, resultId));
  return row?.status === "running";
}

/** Writes the outcome only if the result is still running (not cancelled meanwhile); false otherwise. */
export async function finishResult(
  db: Db,
  resultId: string,
  outcome: { status: Exclude<TestResultStatus, "pending" | "running" | "cancelled">; passed: boolean | null; reasons: string[]; transcript: TestTurn[]; cost: number; durationMs: number },
): Promise<boolean> {
  const rows = await db
    .update(testResults)
    .set({ ...outcome, finishedAt: new Date() })
    .where(and(eq(testResults.id, resultId), eq(testResults.status, "running")))
    .returning({ id: testResults.id });
  return rows.length > 0;
}
