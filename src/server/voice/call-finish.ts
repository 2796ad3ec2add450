/**
 * The end of a call as the caller and the record see it: the figures (duration, cost), the
 * caller's side told first, then the recording and the record finished (call-record.ts) and
 * the caller's connection closed.
 *
 * The CallSession (call-session.ts) calls this once, from its one exit path, after it has let go
 * of the call's timers, tool calls and provider session; nothing here throws.
 */
import { callTariffs, LIVE_CALL_TEXTS, type CallLogs } from "../../shared/calls.ts";
import type { ProviderCost } from "../../shared/call-records.ts";
import { finishCallRecord } from "./call-record.ts";
import type { CallOutcome } from "./call-session-types.ts";
import type { CallRecorder } from "./recorder.ts";
import type { RecordingStream } from "./recording-stream.ts";
import type { CallStore, SessionLogger, Transport } from "./seams.ts";
import type { UsageMeter } from "./usage-meter.ts";

export interface CallEnd {
  transport: Transport;
  store: CallStore;
  logger: SessionLogger;
  /** Pauses before each retry of a failed final write of the record (call-record.ts). */
  finalWriteRetryDelaysMs?: readonly number[];
  isTest: boolean;
  /** The call reached the assistant (session configured). */
  connected: boolean;
  reason: string;
  /** A failure ended the call: the caller is left with the last status line, which says why. */
  failed: boolean;
  lastStatus: string;
  /** Unix ms. */
  startedAt: number;
  endedAt: number;
  /** The record's id once inserted (null: the insert failed). */
  record: Promise<string | null>;
  recorder: CallRecorder;
  recording: RecordingStream;
  usage: UsageMeter;
  /** The engine's own pricing of the call (a pipeline's services); null: the usage meter's. */
  providerCost?(): ProviderCost | null;
  /** The transcript and tool calls, read once the record exists. */
  logs(): CallLogs;
}

export async function finishCall(end: CallEnd): Promise<CallOutcome> {
  const { transport, reason, startedAt, endedAt } = end;
  const durationMs = Math.max(0, endedAt - startedAt);
  // A call that never reached the assistant is recorded (with its reason) but not billed.
  const cost = end.connected ? callTariffs[end.isTest ? "test" : "phone"](durationMs) : 0;
  const startTime = new Date(startedAt).toISOString();
  const endTime = new Date(endedAt).toISOString();
  end.recorder.trimAssistant(durationMs);
  const callId = await end.record;

  const logs = end.logs();
  // The caller's side learns the outcome first: the recording and the database may be slow,
  // and the browser may hang up as soon as it has its figures.
  transport.send({ type: "status", state: "ended", text: end.failed && end.lastStatus ? end.lastStatus : LIVE_CALL_TEXTS.callCompleted });
  transport.send({ type: "ended", callId, reason, durationMs, cost });

  const recording = await end.recording.finish();
  const { verified } = callId
    ? await finishCallRecord({ store: end.store, logger: end.logger, callId, endedAt, reason, cost, logs, recording, providerCost: end.providerCost?.() ?? end.usage.summary(), retryDelaysMs: end.finalWriteRetryDelaysMs })
    : { verified: false };
  if (callId && !verified) transport.send({ type: "error", message: "Failed to update call record" });
  transport.close(1000, reason);
  end.logger.info({ callId, reason, durationMs, cost, verified }, "call ended");
  return { callId, reason, startTime, endTime, durationMs, cost, recording, logs, verified };
}
