/**
 * The end of a call record's life: save the recording, write the final fields, then re-read
 * the record to verify the write (spec §4 "Test call"). Failures are logged and reported in
 * the result, never thrown: a call must end even when the database or storage cannot.
 */
import type { CallLogs } from "../../shared/calls.ts";
import type { CallRecorder } from "./recorder.ts";
import type { CallStore, SaveRecording, SessionLogger } from "./seams.ts";

export interface FinishCallRecord {
  store: CallStore;
  saveRecording: SaveRecording;
  recorder: CallRecorder;
  logger: SessionLogger;
  callId: string;
  endedAt: number;
  reason: string;
  cost: number;
  logs: CallLogs;
}

/**
 * Saves the transcript and tool calls so far (after a finished turn) once the record exists.
 * Failures are logged, never thrown: the call goes on, and its end writes everything anyway.
 */
export function saveCallProgress(
  o: { store: CallStore; logger: SessionLogger },
  record: Promise<string | null>,
  logs: CallLogs,
): Promise<void> {
  return record
    .then((callId) => (callId ? o.store.saveProgress(callId, logs) : undefined))
    .catch((err: unknown) => o.logger.warn({ err }, "saving the call's progress failed"));
}

export function recordingKey(callId: string): string {
  return `recordings/${callId}.wav`;
}

export async function finishCallRecord(input: FinishCallRecord): Promise<{ recording: string | null; verified: boolean }> {
  const { store, recorder, logger, callId, endedAt, cost } = input;
  let recording: string | null = null;
  if (!recorder.isEmpty) {
    try {
      await input.saveRecording(recordingKey(callId), await recorder.toWavInSlices());
      recording = recordingKey(callId);
    } catch (err) {
      logger.error({ err, callId }, "saving the recording failed");
    }
  }
  const endTime = new Date(endedAt).toISOString();
  try {
    await store.finish(callId, { endTime, endedReason: input.reason, cost, logs: input.logs, recording });
    const check = await store.read(callId);
    // Compared as instants and numbers: a database may format timestamps or numerics its own way.
    const verified = check !== null && check.endTime !== null && Date.parse(check.endTime) === endedAt && Number(check.cost) === cost;
    if (!verified) logger.error({ callId, check }, "the call record does not hold what was written");
    return { recording, verified };
  } catch (err) {
    logger.error({ err, callId }, "finalising the call record failed");
    return { recording, verified: false };
  }
}
