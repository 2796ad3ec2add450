import { and, eq, isNull } from "drizzle-orm";
import type { CallLogs } from "../../../shared/calls.ts";
import type { Db } from "../../db/client.ts";
import { assistants, calls } from "../../db/schema.ts";
import type { CallStore } from "../../voice/seams.ts";

/**
 * The call engine's record of a call, in the `calls` table. Written by the server only.
 * `instanceId` is the instance carrying the calls (instances/instance-lease.ts): the record names
 * it while the call is live, so another instance closes it only once this one's lease lapsed.
 */
export function createDbCallStore(db: Db, instanceId: string): CallStore {
  // Progress writes of one call run one after another, so an older snapshot never lands last.
  const progress = new Map<string, Promise<void>>();
  const writeProgress = async (id: string, logs: CallLogs) => {
    // Only while the call is open: never over the final record, nor over one a sweep closed.
    await db
      .update(calls)
      .set({ logs })
      .where(and(eq(calls.id, id), isNull(calls.endTime)));
  };
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
          assistantVersion: start.assistantVersion ?? null,
          startTime: new Date(start.startTime),
          logs: start.logs,
          callerNumber: start.phone?.callerNumber ?? null,
          calledNumber: start.phone?.calledNumber ?? null,
          phoneNumberId: start.phone?.phoneNumberId ?? null,
          providerCallSid: start.phone?.providerCallSid ?? null,
          instanceId,
        })
        .returning({ id: calls.id });
      return row!.id;
    },
    saveProgress(id, logs) {
      const snapshot = structuredClone(logs);
      const next = (progress.get(id) ?? Promise.resolve()).then(() => writeProgress(id, snapshot));
      // The chain itself never rejects: the caller handles `next`, and a failed snapshot must
      // neither block the later ones nor surface as an unhandled rejection.
      const tracked = next.catch(() => undefined).finally(() => {
        if (progress.get(id) === tracked) progress.delete(id);
      });
      progress.set(id, tracked);
      return next;
    },
    async finish(id, update) {
      // The final write waits for progress writes in flight, so it is the last word.
      await progress.get(id);
      await db
        .update(calls)
        .set({
          endTime: new Date(update.endTime),
          endedReason: update.endedReason,
          cost: update.cost,
          logs: update.logs,
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
