/** What a replay (and a scenario made from a call) reads of a call record, scoped by its organisation. */
import { and, eq } from "drizzle-orm";
import type { Db } from "../../db/client.ts";
import { calls } from "../../db/schema.ts";

export async function findCallToReplay(db: Db, organizationId: string, callId: string) {
  const [row] = await db
    .select({
      id: calls.id,
      assistantId: calls.assistantId,
      endTime: calls.endTime,
      logs: calls.logs,
      callerNumber: calls.callerNumber,
      calledNumber: calls.calledNumber,
      direction: calls.direction,
      variables: calls.variables,
      analysis: calls.analysis,
    })
    .from(calls)
    .where(and(eq(calls.organizationId, organizationId), eq(calls.id, callId)));
  return row ?? null;
}

/** A call closed by a sweep (its instance died), read by id alone: the sweep acts for every organisation. */
export async function findClosedCall(db: Db, callId: string) {
  const [row] = await db.select({ organizationId: calls.organizationId, logs: calls.logs, endTime: calls.endTime }).from(calls).where(eq(calls.id, callId));
  return row ?? null;
}
