/**
 * Enforces Settings → Data retention: every hour, for each owner with a rule, removes recordings
 * and calls older than their limits, and logs what went. Runs in every instance; two instances
 * racing only find less to remove (each row goes in one statement).
 */
import { RETENTION_INTERVAL_MS } from "../../../shared/retention.ts";
import type { Db } from "../../db/client.ts";
import type { Storage } from "../../storage/storage.ts";
import { deleteCallsBefore, detachRecordingsBefore, retentionRules } from "./retention.repo.ts";

const DAY_MS = 86_400_000;
const BATCH = 500;

export interface RetentionLogger {
  info(obj: object, msg?: string): void;
  error(obj: object, msg?: string): void;
}

export interface RetentionRun {
  users: number;
  calls: number;
  recordings: number;
}

export async function runRetention(db: Db, storage: Storage, log: RetentionLogger, now = Date.now()): Promise<RetentionRun> {
  const total: RetentionRun = { users: 0, calls: 0, recordings: 0 };
  for (const rule of await retentionRules(db)) {
    let removedCalls = 0;
    let removedRecordings = 0;
    const removeObjects = async (keys: Array<string | null>) => {
      for (const key of keys) {
        if (!key) continue;
        // The record no longer points at it either way; a leftover object is the operator's to see.
        if (await storage.delete(key).catch((err: unknown) => (log.error({ err, key }, "retention: deleting a recording failed"), false))) removedRecordings++;
      }
    };
    if (rule.callsDays !== null) {
      const cutoff = new Date(now - rule.callsDays * DAY_MS);
      for (;;) {
        const rows = await deleteCallsBefore(db, rule.organizationId, cutoff, BATCH);
        removedCalls += rows.length;
        await removeObjects(rows.map((r) => r.recording));
        if (rows.length < BATCH) break;
      }
    }
    if (rule.recordingsDays !== null) {
      const cutoff = new Date(now - rule.recordingsDays * DAY_MS);
      for (;;) {
        const rows = await detachRecordingsBefore(db, rule.organizationId, cutoff, BATCH);
        await removeObjects(rows.map((r) => r.recording));
        if (rows.length < BATCH) break;
      }
    }
    if (removedCalls + removedRecordings > 0) {
      total.users++;
      log.info({ organizationId: rule.organizationId, calls: removedCalls, recordings: removedRecordings, callsDays: rule.callsDays, recordingsDays: rule.recordingsDays }, "retention removed old call data");
    }
    total.calls += removedCalls;
    total.recordings += removedRecordings;
  }
  return total;
}

/**
 * Starts the hourly run (first one a minute after start-up); returns the stop function. `alsoPurge`
 * runs after it: another table's own keep-time purge (the audit log), on the same schedule.
 */
export function scheduleRetention(
  db: Db,
  storage: Storage,
  log: RetentionLogger,
  intervalMs = RETENTION_INTERVAL_MS,
  alsoPurge?: () => Promise<number>,
): () => void {
  let running = false;
  const tick = async () => {
    if (running) return;
    running = true;
    try {
      const run = await runRetention(db, storage, log);
      const auditEntries = alsoPurge ? await alsoPurge() : 0;
      log.info({ ...run, auditEntries }, "retention run finished");
    } catch (err) {
      log.error({ err }, "retention run failed");
    } finally {
      running = false;
    }
  };
  const first = setTimeout(() => void tick(), Math.min(60_000, intervalMs));
  const every = setInterval(() => void tick(), intervalMs);
  first.unref();
  every.unref();
  return () => {
    clearTimeout(first);
    clearInterval(every);
  };
}
