import { and, desc, eq, sql } from "drizzle-orm";
import type { Db } from "../../db/client.ts";
import { assistants, calls } from "../../db/schema.ts";

// Which instance carries a live call is an operational detail, not part of the user's record.
export type CallHistoryRow = Omit<typeof calls.$inferSelect, "instanceId">;

/**
 * The assistant's current name while it exists (it may have been renamed since the call), else
 * the name copied onto the record when the call started. The join is scoped to the same owner.
 */
const columns = {
  id: calls.id,
  userId: calls.userId,
  assistantId: calls.assistantId,
  assistantName: sql<string | null>`coalesce(${assistants.name}, ${calls.assistantName})`,
  startTime: calls.startTime,
  endTime: calls.endTime,
  endedReason: calls.endedReason,
  cost: calls.cost,
  recording: calls.recording,
  logs: calls.logs,
  callerNumber: calls.callerNumber,
  calledNumber: calls.calledNumber,
  phoneNumberId: calls.phoneNumberId,
  providerCallSid: calls.providerCallSid,
};

const assistantOfCall = and(eq(assistants.id, calls.assistantId), eq(assistants.userId, calls.userId));

/** The user's calls, newest start first. */
export function listCalls(db: Db, userId: string, limit: number): Promise<CallHistoryRow[]> {
  return db
    .select(columns)
    .from(calls)
    .leftJoin(assistants, assistantOfCall)
    .where(eq(calls.userId, userId))
    .orderBy(desc(calls.startTime), desc(calls.id))
    .limit(limit);
}

/** One of the user's calls; another user's call is absent, like one that does not exist. */
export async function findCall(db: Db, userId: string, id: string): Promise<CallHistoryRow | null> {
  const [row] = await db
    .select(columns)
    .from(calls)
    .leftJoin(assistants, assistantOfCall)
    .where(and(eq(calls.userId, userId), eq(calls.id, id)));
  return row ?? null;
}
