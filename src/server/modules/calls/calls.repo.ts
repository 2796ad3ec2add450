import { and, eq, inArray, isNull } from "drizzle-orm";
import type { Db } from "../../db/client.ts";
import { assistants, calls, tools } from "../../db/schema.ts";
import type { CallStore } from "../../voice/seams.ts";

/** The call engine's record of a call, in the `calls` table. Written by the server only. */
export function createDbCallStore(db: Db): CallStore {
  return {
    async insert(start) {
      // The name is copied so the record still says who answered after the assistant is deleted.
      const [assistant] = await db.select({ name: assistants.name }).from(assistants).where(eq(assistants.id, start.assistantId));
      const [row] = await db
        .insert(calls)
        .values({
          userId: start.userId,
          assistantId: start.assistantId,
          assistantName: assistant?.name ?? null,
          startTime: new Date(start.startTime),
          logs: start.logs as unknown as Record<string, unknown>,
          callerNumber: start.phone?.callerNumber ?? null,
          calledNumber: start.phone?.calledNumber ?? null,
          phoneNumberId: start.phone?.phoneNumberId ?? null,
          providerCallSid: start.phone?.providerCallSid ?? null,
        })
        .returning({ id: calls.id });
      return row!.id;
    },
    async finish(id, update) {
      await db
        .update(calls)
        .set({
          endTime: new Date(update.endTime),
          endedReason: update.endedReason,
          cost: update.cost,
          logs: update.logs as unknown as Record<string, unknown>,
          recording: update.recording,
          providerCost: update.providerCost ?? null,
        })
        .where(eq(calls.id, id));
    },
    async read(id) {
      const [row] = await db.select({ endTime: calls.endTime, cost: calls.cost }).from(calls).where(eq(calls.id, id));
      return row ? { endTime: row.endTime?.toISOString() ?? null, cost: row.cost } : null;
    },
  };
}

/**
 * Calls still "in progress" when the server starts were cut off by a crash or a kill: no process
 * is carrying them any more. Closes them so they don't stay in progress forever.
 */
export async function closeInterruptedCalls(db: Db, now = new Date()): Promise<number> {
  const rows = await db
    .update(calls)
    .set({ endTime: now, endedReason: "Server stopped during the call" })
    .where(isNull(calls.endTime))
    .returning({ id: calls.id });
  return rows.length;
}

/** The user's tools among `ids`, in the order of `ids` (an assistant's tool_ids); unknown ids are absent. */
export async function findCallTools(db: Db, userId: string, ids: readonly string[]): Promise<Array<typeof tools.$inferSelect>> {
  if (ids.length === 0) return [];
  const rows = await db
    .select()
    .from(tools)
    .where(and(eq(tools.userId, userId), inArray(tools.id, [...ids])));
  const byId = new Map(rows.map((row) => [row.id, row]));
  return ids.flatMap((id) => byId.get(id) ?? []);
}
