/**
 * Supervisor corrections become suggested tests: when a supervisor guided or took over a call on
 * the live board, the ended call's record is read by a job (off the call path, on the one
 * durable queue) and each correction becomes a suggested scenario of the call's assistant — the
 * caller's turns up to it as the scripted caller, what the supervisor did as the expected
 * behaviour in the rubric — which the Tests tab offers to accept or dismiss.
 */
import { callRecordLogsSchema } from "../../../shared/call-records.ts";
import type { TranscriptEntry } from "../../../shared/calls.ts";
import { LIVE_TEXTS } from "../../../shared/live.ts";
import { MAX_SUGGESTIONS_PER_CALL, scriptedMaxTurns, SUGGESTION_TEXTS } from "../../../shared/replay.ts";
import { scenarioInputSchema, type ScenarioInput } from "../../../shared/scenarios.ts";
import type { Db } from "../../db/client.ts";
import { AppError } from "../../errors.ts";
import type { JobQueue } from "../../jobs/job-queue.ts";
import type { EndedCall } from "../analysis/analysis.service.ts";
import type { ScenariosService } from "../scenarios/scenarios.service.ts";
import { callerTurns, isCallerTurn, scriptOf } from "./replay-turns.ts";
import { findCallToReplay, findClosedCall } from "./replay.repo.ts";

export const CORRECTIONS_JOB = "correction-suggestions";

interface CorrectionsJob {
  callId: string;
  organizationId: string;
}

const GUIDE_PREFIX = LIVE_TEXTS.guide("");
const isCorrection = (e: TranscriptEntry) => e.type === "system" && (e.supervisor?.action === "guide" || e.supervisor?.action === "take_over");

/** The suggested scenarios of a transcript: one per guidance or take-over that followed a caller turn. */
export function suggestionsOf(transcript: readonly TranscriptEntry[]): ScenarioInput[] {
  const suggestions: ScenarioInput[] = [];
  transcript.forEach((entry, i) => {
    if (!isCorrection(entry) || suggestions.length >= MAX_SUGGESTIONS_PER_CALL) return;
    const script = scriptOf(callerTurns(transcript.slice(0, i)));
    if (script.length === 0) return;
    const who = entry.supervisor!.name;
    let name: string;
    let rubric: string;
    if (entry.supervisor!.action === "guide") {
      const guidance = entry.content.startsWith(GUIDE_PREFIX) ? entry.content.slice(GUIDE_PREFIX.length) : entry.content;
      name = SUGGESTION_TEXTS.guideName(guidance);
      rubric = SUGGESTION_TEXTS.guideRubric(who, guidance);
    } else {
      // What the caller said while the supervisor had the call: until the hand-back, or the end.
      const rest = transcript.slice(i + 1);
      const back = rest.findIndex((e) => e.supervisor?.action === "hand_back");
      const during = (back < 0 ? rest : rest.slice(0, back)).filter(isCallerTurn).map((e) => e.content.trim());
      name = SUGGESTION_TEXTS.takeOverName(who);
      rubric = SUGGESTION_TEXTS.takeOverRubric(who, during);
    }
    suggestions.push(scenarioInputSchema.parse({ name, rubric: rubric.slice(0, 4000), caller_turns: script, max_turns: scriptedMaxTurns(script.length) }));
  });
  return suggestions;
}

export function createCorrectionsService(deps: {
  db: Db;
  jobs: Pick<JobQueue, "send" | "register">;
  scenarios: Pick<ScenariosService, "createFrom" | "list">;
  logger: { warn(obj: object, msg: string): void };
}) {
  const { db, jobs, scenarios, logger } = deps;

  /** Safe to repeat (delivery is at least once): a call whose suggestions exist gets none again. */
  async function handle(job: CorrectionsJob): Promise<void> {
    const call = await findCallToReplay(db, job.organizationId, job.callId);
    if (!call?.assistantId) return;
    const logs = callRecordLogsSchema.safeParse(call.logs);
    const suggestions = suggestionsOf(logs.success ? (logs.data.transcript ?? []) : []);
    if (suggestions.length === 0) return;
    try {
      const existing = await scenarios.list(job.organizationId, call.assistantId);
      if (existing.some((s) => s.source === "suggested" && s.source_call_id === call.id)) return;
      for (const suggestion of suggestions) await scenarios.createFrom(job.organizationId, call.assistantId, suggestion, { source: "suggested", callId: call.id });
    } catch (err) {
      // The assistant was deleted, or holds as many scenarios as it may: nothing to suggest to.
      if (err instanceof AppError && err.status < 500) return;
      throw err;
    }
  }

  jobs.register<CorrectionsJob>(CORRECTIONS_JOB, handle, { retryDelaysMs: [5_000, 30_000, 120_000] });

  /** After a call has ended and its record is written (never throws): queues the job when a supervisor corrected it. */
  async function afterCall(call: EndedCall): Promise<void> {
    if (!call.callId || !call.transcript.some(isCorrection)) return;
    try {
      // Keyed by the call: a call handed over twice (ended, then swept) is queued once.
      await jobs.send<CorrectionsJob>(CORRECTIONS_JOB, { callId: call.callId, organizationId: call.organizationId }, { key: call.callId });
    } catch (err) {
      logger.warn({ err, callId: call.callId }, "queueing the call's suggested tests failed");
    }
  }

  return {
    afterCall,

    /** Calls closed by a sweep, not by their engine (their instance died): read from the record like any ended call. Never throws. */
    async afterClosedCalls(callIds: readonly string[]): Promise<void> {
      for (const callId of callIds) {
        try {
          const call = await findClosedCall(db, callId);
          if (!call?.endTime) continue;
          const logs = callRecordLogsSchema.safeParse(call.logs);
          await afterCall({ callId, organizationId: call.organizationId, assistantId: null, transcript: logs.success ? (logs.data.transcript ?? []) : [] });
        } catch (err) {
          logger.warn({ err, callId }, "queueing the suggested tests of a closed call failed");
        }
      }
    },
  };
}

export type CorrectionsService = ReturnType<typeof createCorrectionsService>;
