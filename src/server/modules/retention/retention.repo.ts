import { and, eq, inArray, isNotNull, lt, or } from "drizzle-orm";
import type { RetentionSettings } from "../../../shared/retention.ts";
import type { Db } from "../../db/client.ts";
import { callRetention, calls } from "../../db/schema.ts";

export async function readRetention(db: Db, organizationId: string): Promise<RetentionSettings> {
  const [row] = await db.select().from(callRetention).where(eq(callRetention.organizationId, organizationId));
  return { recordings_days: row?.recordingsDays ?? null, calls_days: row?.callsDays ?? null };
}

export async function saveRetention(db: Db, organizationId: string, settings: RetentionSettings): Promise<void> {
  const values = { recordingsDays: settings.recordings_days, callsDays: settings.calls_days };
  await db
    .insert(callRetention)
    .values({ organizationId, ...values })
    .onConflictDoUpdate({ target: callRetention.organizationId, set: { ...values, updatedAt: new Date() } });
}

/** The owners with a rule switched on. */
export function retentionRules(db: Db) {
  return db
    .select()
    .from(callRetention)
    .where(or(isNotNull(callRetention.recordingsDays), isNotNull(callRetention.callsDays)));
}

/**
 * Up to `batch` of the user's ended calls that started before `cutoff`, deleted; returns their
 * recording keys. Small batches keep each statement short next to live traffic.
 */
export async function deleteCallsBefore(db: Db, organizationId: string, cutoff: Date, batch: number) {
  const victims = db
    .select({ id: calls.id })
    .from(calls)
    .where(and(eq(calls.organizationId, organizationId), lt(calls.startTime, cutoff), isNotNull(calls.endTime)))
    .limit(batch);
  return db
    .delete(calls)
    .where(and(eq(calls.organizationId, organizationId), inArray(calls.id, victims)))
    .returning({ id: calls.id, recording: calls.recording });
}

/** Up to `batch` recordings of the user's calls that started before `cutoff`, detached from their records; returns the keys. */
export async function detachRecordingsBefore(db: Db, organizationId: string, cutoff: Date, batch: number) {
  // The key comes from the subquery: RETURNING of the table itself would give the new (null) value.
  const old = db
    .select({ id: calls.id, recording: calls.recording })
    .from(calls)
    .where(and(eq(calls.organizationId, organizationId), lt(calls.startTime, cutoff), isNotNull(calls.recording), isNotNull(calls.endTime)))
    .limit(batch)
    .as("old");
  return db
    .update(calls)
    .set({ recording: null })
    .from(old)
    .where(eq(calls.id, old.id))
    .returning({ id: calls.id, recording: old.recording });
}
