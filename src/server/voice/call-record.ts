/**
 * The end of a call record's life: write the final fields, then re-read the record to verify
 * the write (spec §4 "Test call"). Failures are logged and reported in the result, never
 * thrown: a call must end even when the database cannot.
 *
 * Every string is cleaned first (clean-text.ts). A write that fails is retried a bounded number
 * of times, each attempt time-limited; if it still fails, the record is closed with what can be
 * stored (end time, reason, cost, recording, without the logs), so it never stays "In progress".
 */
import type { ProviderCost } from "../../shared/call-records.ts";
import type { CallLogs } from "../../shared/calls.ts";
import { cleanForStorage, cleanText } from "./clean-text.ts";
import type { CallEntryWrite, CallFinish, CallStore, SessionLogger } from "./seams.ts";

export interface FinishCallRecord {
  store: CallStore;
  logger: SessionLogger;
  callId: string;
  endedAt: number;
  reason: string;
  cost: number;
  logs: CallLogs;
  /** Storage key of the finished recording, or null. */
  recording: string | null;
  /** Pauses before each retry of the full write (default 250 ms, 1 s, 3 s). */
  retryDelaysMs?: readonly number[];
  /** One attempt (write + re-read) that takes longer counts as failed (default 5 s). */
  attemptTimeoutMs?: number;
  providerCost?: ProviderCost | null;
}

export type RecordWrite = "full" | "without-logs" | "failed";

/**
 * Saves the transcript entries and tool calls changed since the last save (after a finished
 * turn) once the record exists; `entries` come cleaned (call-progress.ts). Failures are logged,
 * never thrown: the call goes on, and its end writes everything anyway.
 */
export function saveCallProgress(
  o: { store: CallStore; logger: SessionLogger },
  record: Promise<string | null>,
  entries: readonly CallEntryWrite[],
): Promise<void> {
  if (entries.length === 0) return Promise.resolve();
  return record
    .then((callId) => (callId ? o.store.saveProgress(callId, entries) : undefined))
    .catch((err: unknown) => o.logger.warn({ err }, "saving the call's progress failed"));
}

export function recordingKey(callId: string): string {
  return `recordings/${callId}.wav`;
}

const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

function withTimeout<T>(promise: Promise<T>, ms: number): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`timed out after ${ms} ms`)), ms);
  });
  return Promise.race([promise, timeout]).finally(() => clearTimeout(timer));
}

export async function finishCallRecord(input: FinishCallRecord): Promise<{ verified: boolean; written: RecordWrite }> {
  const { store, logger, callId, endedAt, cost } = input;
  const delays = input.retryDelaysMs ?? [250, 1000, 3000];
  const attemptTimeoutMs = input.attemptTimeoutMs ?? 5000;
  const endTime = new Date(endedAt).toISOString();
  const update: CallFinish = {
    endTime,
    endedReason: cleanText(input.reason),
    cost,
    logs: cleanForStorage(input.logs),
    recording: input.recording,
    providerCost: input.providerCost ?? null,
  };

  const attempt = async (values: CallFinish): Promise<boolean> => {
    await store.finish(callId, values);
    const check = await store.read(callId);
    // Compared as instants and numbers: a database may format timestamps or numerics its own way.
    const verified = check !== null && check.endTime !== null && Date.parse(check.endTime) === endedAt && Number(check.cost) === cost;
    if (!verified) logger.error({ callId, check }, "the call record does not hold what was written");
    return verified;
  };

  for (let i = 0; i <= delays.length; i += 1) {
    if (i > 0) await sleep(delays[i - 1]!);
    try {
      return { verified: await withTimeout(attempt(update), attemptTimeoutMs), written: "full" };
    } catch (err) {
      logger.error({ err, callId, attempt: i + 1 }, "finalising the call record failed");
    }
  }
  try {
    const bare: CallFinish = { ...update, logs: { isTest: update.logs.isTest, transcript: [], toolsUsed: [] } };
    await withTimeout(attempt(bare), attemptTimeoutMs);
    logger.warn({ callId }, "call record closed without its logs");
    return { verified: false, written: "without-logs" };
  } catch (err) {
    logger.error({ err, callId }, "closing the call record failed");
    return { verified: false, written: "failed" };
  }
}
