/**
 * Post-call analysis: once a call has ended, its transcript goes to the account's text model
 * through the Responses API (Structured Outputs) off the call path, as a job on the one durable
 * queue (src/server/jobs): retried with backoff on 429, 5xx and timeouts, kept across restarts,
 * taken by one instance. The record's `analysis` says pending, done, failed (with why) or
 * skipped; its cost becomes the call's "analysis" cost line. Nothing else of the record changes.
 */
import { randomUUID } from "node:crypto";
import {
  ANALYSIS_MESSAGES,
  callAnalysisSchema,
  MAX_BACKFILL_CALLS,
  type AnalysisBackfillInput,
  type AnalysisRun,
  type AnalysisSettings,
  type CallAnalysis,
} from "../../../shared/analysis.ts";
import { callRecordLogsSchema } from "../../../shared/call-records.ts";
import type { TranscriptEntry } from "../../../shared/calls.ts";
import { isUuid } from "../../../shared/ids.ts";
import type { Db } from "../../db/client.ts";
import { AppError, notFound } from "../../errors.ts";
import { nextPeriod, type JobContext, type JobQueue } from "../../jobs/job-queue.ts";
import { createResponsesClient, openAiFailureText, ResponsesError } from "../../openai/responses-client.ts";
import { textCost } from "../../voice/provider-prices.ts";
import { analysisSettingsOf } from "../assistants/assistants.repo.ts";
import type { EmitEvent } from "../calls/call-events.ts";
import type { AssistantsService } from "../assistants/assistants.service.ts";
import type { CredentialsService } from "../credentials/credentials.service.ts";
import { analysisRequest, hasCallerTurn, readAnswer } from "./analysis-request.ts";
import * as repo from "./analysis.repo.ts";

export const ANALYSIS_JOB = "call-analysis";
/** Fans an "Analyse past calls" run out into one analysis job per call. */
export const ANALYSIS_BACKFILL_JOB = "call-analysis-backfill";
/** The backoff between attempts of one analysis: a rate limit or an outage usually passes within these. */
export const ANALYSIS_RETRY_DELAYS_MS = [5_000, 30_000, 120_000, 600_000, 1_800_000] as const;
/** Queues pending analyses that have no job (at every start, then every ANALYSIS_RECOVER_EVERY_MS). */
export const ANALYSIS_RECOVER_JOB = "call-analysis-recover";
export const ANALYSIS_RECOVER_EVERY_MS = 5 * 60_000;

export interface AnalysisJob {
  callId: string;
  /** Which request of the call this is (the pending analysis names it). */
  run: string;
  /** The assistant's settings when it was asked for (the end of the call, or "Run again"). */
  settings: AnalysisSettings;
  /** The "Analyse past calls" run it belongs to (absent on jobs queued before it existed). */
  batch?: string;
}

export interface AnalysisServiceDeps {
  db: Db;
  openaiBaseUrl: string;
  jobs: Pick<JobQueue, "send" | "register" | "unfinished">;
  assistants: Pick<AssistantsService, "forCall">;
  credentials: Pick<CredentialsService, "readUsable">;
  logger: { info(obj: object, msg: string): void; warn(obj: object, msg: string): void };
  /** call.analyzed goes out as a webhook (the webhooks module's emit). */
  emit: EmitEvent;
  /** Analyses run at once per instance. */
  concurrency: number;
  /** One Responses request longer than this is a (retryable) timeout. */
  requestTimeoutMs?: number;
  retryDelaysMs?: readonly number[];
  /** How often the recovery looks for pending analyses without a job (default ANALYSIS_RECOVER_EVERY_MS). */
  recoverEveryMs?: number;
}

export interface AnalysisBackfillJob {
  batch: string;
  callIds: string[];
  settings: AnalysisSettings;
}

/** A call as the analysis read it (repo.findCallForAnalysis). */
type PendingCall = Pick<NonNullable<Awaited<ReturnType<typeof repo.findCallForAnalysis>>>, "id" | "organizationId" | "assistantId" | "analysis">;

/** What the end of a call tells the analysis. */
export interface EndedCall {
  callId: string | null;
  organizationId: string;
  assistantId: string | null;
  transcript: readonly TranscriptEntry[];
}

const pending = (settings: AnalysisSettings, run: string, batch?: string): repo.StoredAnalysis => ({
  status: "pending",
  summary: null,
  data: {},
  success: null,
  model: settings.model,
  cost: null,
  completed_at: null,
  run,
  ...(batch ? { batch } : {}),
});

/** Why an analysis failed, in words a user can act on. */
function failureText(err: unknown): string {
  if (err instanceof ResponsesError) {
    const known = openAiFailureText(err, "try again later");
    if (known) return known;
    if (err.status >= 500 || err.status === 0) return `OpenAI could not be reached or failed (${err.status || err.code}); try again later.`;
    return `OpenAI refused the analysis: ${err.message}`;
  }
  return "The analysis failed unexpectedly; try again.";
}

function toRun(row: repo.AnalysisRunRow): AnalysisRun {
  return {
    id: row.id,
    assistant_id: row.assistantId,
    status: row.finished >= row.total ? "done" : "running",
    total: row.total,
    finished: Math.min(row.finished, row.total),
    created_at: row.createdAt.toISOString(),
  };
}

export function createAnalysisService(deps: AnalysisServiceDeps) {
  const { db, jobs, logger } = deps;

  async function settingsFor(organizationId: string, assistantId: string | null): Promise<AnalysisSettings> {
    const assistant = assistantId ? await deps.assistants.forCall(organizationId, assistantId) : null;
    return analysisSettingsOf(assistant ?? { analysis: null });
  }

  /**
   * Marks the call pending and queues its job. The job's key is the run id, so sending the same
   * run twice (a backfill resumed after a restart names its runs by batch and call) queues once.
   */
  async function request(callId: string, settings: AnalysisSettings, batch?: string): Promise<repo.StoredAnalysis> {
    const analysis = pending(settings, batch ? `${batch}:${callId}` : randomUUID(), batch);
    // A call deleted meanwhile gets no job (its run already counted it).
    if (await repo.beginAnalysis(db, callId, analysis)) await queue(callId, analysis.run, settings, batch);
    return analysis;
  }

  /** Writes the outcome of run `run` of `call` (as read when the run began: its owner, assistant and pending analysis). */
  async function finish(call: PendingCall, run: string, settings: AnalysisSettings, outcome: Partial<repo.StoredAnalysis> & Pick<CallAnalysis, "status">, usage?: { input_tokens: number; cached_tokens: number; output_tokens: number }) {
    const callId = call.id;
    const cost = usage ? textCost(settings.model, usage) : null;
    const analysis: repo.StoredAnalysis = {
      ...pending(settings, run, call.analysis?.batch),
      ...outcome,
      cost: usage ? cost : outcome.status === "skipped" ? 0 : null,
      completed_at: new Date().toISOString(),
    };
    const line = usage
      ? { model: settings.model, kind: "analysis" as const, text_in: usage.input_tokens - usage.cached_tokens, text_cached: usage.cached_tokens, audio_in: 0, audio_cached: 0, text_out: usage.output_tokens, audio_out: 0, seconds: 0, cost }
      : null;
    const written = await repo.completeAnalysis(db, callId, run, analysis, line);
    if (written) await analyzed(call.organizationId, callId, call.assistantId, analysis);
    return written;
  }

  /** call.analyzed: the call's id and its analysis, once per finished analysis (never throws). */
  async function analyzed(organizationId: string, callId: string, assistantId: string | null, analysis: repo.StoredAnalysis) {
    try {
      const { campaignId, variables } = await repo.campaignOfCall(db, callId);
      await deps.emit(organizationId, "call.analyzed", { call_id: callId, assistant_id: assistantId, campaign_id: campaignId, variables, analysis: callAnalysisSchema.parse(analysis) });
    } catch (err) {
      logger.warn({ err, callId }, "emitting call.analyzed failed");
    }
  }

  /** The queue's handler: one attempt at one analysis. Throws only to be retried. */
  async function handle(job: AnalysisJob, context: JobContext): Promise<void> {
    const call = await repo.findCallForAnalysis(db, job.callId);
    // A call deleted since still counts as finished in its "Analyse past calls" run, which would
    // otherwise never end (and refuse every later run as one still running).
    if (!call && job.batch) await repo.countFinished(db, job.batch);
    // Deleted, superseded by "Run again", or already written by an earlier delivery of this job.
    if (!call || call.analysis?.run !== job.run || call.analysis.status !== "pending") return;
    const logs = callRecordLogsSchema.safeParse(call.logs);
    const transcript = logs.success ? (logs.data.transcript ?? []) : [];
    if (!hasCallerTurn(transcript)) {
      await finish(call, job.run, job.settings, { status: "skipped" });
      return;
    }
    const apiKey = await deps.credentials.readUsable(call.organizationId, "openai_api_key");
    if (!apiKey) {
      await finish(call, job.run, job.settings, { status: "failed", error: ANALYSIS_MESSAGES.noApiKey });
      return;
    }
    const client = createResponsesClient({ baseUrl: deps.openaiBaseUrl, apiKey, timeoutMs: deps.requestTimeoutMs });
    try {
      const { value, result } = await client.createJson(analysisRequest(job.settings, call.assistantName ?? "the assistant", transcript));
      const answer = readAnswer(value, job.settings);
      const usage = { input_tokens: result.usage.input_tokens, cached_tokens: result.usage.input_tokens_details?.cached_tokens ?? 0, output_tokens: result.usage.output_tokens };
      await finish(call, job.run, job.settings, { status: "done", ...answer }, usage);
    } catch (err) {
      const retry = err instanceof ResponsesError && err.retryable && !context.lastAttempt;
      logger.warn({ callId: job.callId, attempt: context.attempt, retry, code: err instanceof ResponsesError ? err.code : undefined, err }, "call analysis attempt failed");
      if (retry) {
        // A 429's Retry-After (or the rate-limit reset): retrying sooner would only be refused again.
        if (err.retryAfterMs !== null) context.retryNoSoonerThan(err.retryAfterMs);
        throw err;
      }
      await finish(call, job.run, job.settings, { status: "failed", error: failureText(err) });
    }
  }

  async function fanOut(job: AnalysisBackfillJob): Promise<void> {
    for (const callId of job.callIds) await request(callId, job.settings, job.batch);
  }

  jobs.register<AnalysisBackfillJob>(ANALYSIS_BACKFILL_JOB, fanOut, { retryDelaysMs: [5_000, 30_000, 120_000] });
  jobs.register<AnalysisJob>(ANALYSIS_JOB, handle, {
    concurrency: deps.concurrency,
    retryDelaysMs: deps.retryDelaysMs ?? ANALYSIS_RETRY_DELAYS_MS,
    // Longer than one request may take, so a run is failed over only when its instance died.
    timeoutMs: Math.max(5 * 60_000, (deps.requestTimeoutMs ?? 60_000) * 2),
  });

  /** Queues the job of a pending analysis (keyed by its run: sent twice, queued once). */
  async function queue(callId: string, run: string, settings: AnalysisSettings, batch?: string): Promise<boolean> {
    return (await jobs.send<AnalysisJob>(ANALYSIS_JOB, { callId, run, settings, ...(batch ? { batch } : {}) }, { key: run })) !== null;
  }

  /**
   * After a call has ended and its record is written (never throws: a failure here must not
   * touch the call). The close made its analysis pending (repo.pendingAnalysisOnClose); this
   * queues its job. Without a caller turn the call is "skipped" at once, with no job.
   */
  async function afterCall(call: EndedCall): Promise<void> {
    if (!call.callId) return;
    try {
      const record = await repo.findCallForAnalysis(db, call.callId);
      // Finished already (the recovery got there first), or a record the close did not mark.
      if (record?.analysis?.status !== "pending") return;
      const { run } = record.analysis;
      const settings = await settingsFor(call.organizationId, call.assistantId);
      if (hasCallerTurn(call.transcript)) await queue(call.callId, run, settings);
      else await finish(record, run, settings, { status: "skipped" });
    } catch (err) {
      logger.warn({ err, callId: call.callId }, "queueing the call's analysis failed");
    }
  }

  const recoverEveryMs = deps.recoverEveryMs ?? ANALYSIS_RECOVER_EVERY_MS;

  /** The next recovery of the chain, at the next boundary of the period; keyed by it, so one per period across instances. */
  function scheduleRecovery() {
    return jobs.send(ANALYSIS_RECOVER_JOB, { chain: true }, nextPeriod(recoverEveryMs));
  }

  /**
   * Queues every pending analysis no unfinished job carries: its instance died between the
   * close (or "Run again", or a backfill's mark) and the queueing. Pending rows are read before
   * the jobs, so a job that finishes in between is only sent again harmlessly (the key dedupes
   * a job still kept; the handler skips a run no longer pending).
   */
  async function recover({ chain }: { chain?: boolean }): Promise<void> {
    try {
      const pendingRows = await repo.pendingAnalyses(db);
      if (pendingRows.length === 0) return;
      const carried = new Set((await jobs.unfinished<AnalysisJob>(ANALYSIS_JOB)).map((j) => j.run));
      const orphans = pendingRows.filter((r) => !carried.has(r.analysis.run));
      let queued = 0;
      for (const row of orphans) if (await queue(row.callId, row.analysis.run, await settingsFor(row.organizationId, row.assistantId), row.analysis.batch)) queued += 1;
      if (queued > 0) logger.warn({ count: queued }, "queued pending call analyses that had no job");
    } finally {
      if (chain) await scheduleRecovery();
    }
  }
  jobs.register<{ chain?: boolean }>(ANALYSIS_RECOVER_JOB, recover, { timeoutMs: 5 * 60_000 });

  return {
    afterCall,

    /** Once the job queue runs: a recovery now, and the periodic one (kept once across instances). */
    async startRecovery(): Promise<void> {
      await jobs.send(ANALYSIS_RECOVER_JOB, {});
      await scheduleRecovery();
    },

    /**
     * Calls closed by a sweep, not by their engine (the instance carrying them died): analysed
     * from what the record kept, like any ended call. One not yet analysed only, so a call handed
     * over twice is queued once. Never throws.
     */
    async afterClosedCalls(callIds: readonly string[]): Promise<void> {
      for (const callId of callIds) {
        try {
          const call = await repo.findCallForAnalysis(db, callId);
          if (!call?.endTime || call.analysis?.status !== "pending") continue;
          const logs = callRecordLogsSchema.safeParse(call.logs);
          await afterCall({ callId, organizationId: call.organizationId, assistantId: call.assistantId, transcript: logs.success ? (logs.data.transcript ?? []) : [] });
        } catch (err) {
          logger.warn({ err, callId }, "queueing the analysis of a closed call failed");
        }
      }
    },

    /** "Run again": with the assistant's current settings (after a rubric change, say). */
    async runAgain(organizationId: string, callId: string): Promise<CallAnalysis> {
      const call = isUuid(callId) ? await repo.findOwnEndedCall(db, organizationId, callId) : null;
      if (!call) throw notFound("Call");
      if (!call.endTime) throw new AppError(409, "call_in_progress", ANALYSIS_MESSAGES.inProgress);
      const analysis = await request(call.id, await settingsFor(organizationId, call.assistantId));
      // Parsing drops the run ids, which stay on the server.
      return callAnalysisSchema.parse(analysis);
    },

    /** "Analyse past calls": the assistant's last N ended calls or those of a date range, at most MAX_BACKFILL_CALLS. */
    async analysePast(organizationId: string, assistantId: string, input: AnalysisBackfillInput): Promise<AnalysisRun> {
      const assistant = isUuid(assistantId) ? await deps.assistants.forCall(organizationId, assistantId) : null;
      if (!assistant) throw notFound("Assistant");
      const latest = await repo.latestRun(db, organizationId, assistantId);
      if (latest && latest.finished < latest.total) throw new AppError(409, "analysis_running", ANALYSIS_MESSAGES.backfillRunning);
      const ids = await repo.callsForBackfill(db, organizationId, assistantId, input, MAX_BACKFILL_CALLS);
      const run = await repo.insertRun(db, organizationId, assistantId, ids.length);
      // Each call becomes its own job, queued in the background: the queue's concurrency bounds the
      // work, and the run's progress counts the calls as they finish.
      if (ids.length > 0) await jobs.send<AnalysisBackfillJob>(ANALYSIS_BACKFILL_JOB, { batch: run.id, callIds: ids, settings: analysisSettingsOf(assistant) }, { key: run.id });
      logger.info({ assistantId, runId: run.id, calls: ids.length }, "analysing past calls");
      return toRun((await repo.findRun(db, organizationId, assistantId, run.id))!);
    },

    async pastRun(organizationId: string, assistantId: string, runId: string | null): Promise<AnalysisRun | null> {
      if (!isUuid(assistantId) || (runId !== null && !isUuid(runId))) throw notFound(runId ? "Analysis run" : "Assistant");
      // Another user's assistant answers 404, like every other route of it, not an empty progress.
      if (!(await deps.assistants.forCall(organizationId, assistantId))) throw notFound("Assistant");
      const row = runId ? await repo.findRun(db, organizationId, assistantId, runId) : await repo.latestRun(db, organizationId, assistantId);
      if (runId && !row) throw notFound("Analysis run");
      return row ? toRun(row) : null;
    },
  };
}

export type AnalysisService = ReturnType<typeof createAnalysisService>;
