/**
 * Test runs (docs/decisions/043-test-runs.md): "Run tests" fixes the content under test (a
 * published version, or the draft as it is now) and queues one job per scenario on the durable
 * queue; `TEST_RUN_CONCURRENCY` of them play at once per instance. Each job plays its scenario
 * (conversation.ts) through the organisation's OpenAI key and writes its result once, unless the
 * run was cancelled meanwhile. Publishing asks `beforePublish` first: the draft's scenarios must
 * have run against exactly this draft, and a failure needs the user's confirmation.
 */
import { isUuid } from "../../../shared/ids.ts";
import { DEFAULT_ANALYSIS_MODEL } from "../../../shared/analysis.ts";
import { resultFailed, TEST_RUN_MESSAGES, TEST_RUN_STARTS_PER_MINUTE, type PublishTesting, type TestRun, type TestRunInput } from "../../../shared/scenarios.ts";
import type { Db } from "../../db/client.ts";
import { AppError, notFound, RateLimitedError } from "../../errors.ts";
import type { JobContext, JobQueue } from "../../jobs/job-queue.ts";
import { counterKey, type CounterStore } from "../../shared-state/index.ts";
import { createResponsesClient, openAiFailureText, ResponsesError } from "../../openai/responses-client.ts";
import { builtInTools, RESERVED_TOOL_NAMES } from "../../voice/builtins.ts";
import { textCost } from "../../voice/provider-prices.ts";
import { ToolCatalog } from "../../voice/tool-resolution.ts";
import type { CredentialsService } from "../credentials/credentials.service.ts";
import type { ScenariosService } from "../scenarios/scenarios.service.ts";
import type { ToolsService } from "../tools/tools.service.ts";
import { sameContent } from "../versions/version-content.ts";
import type { VersionsService } from "../versions/versions.service.ts";
import { playConversation, type Ask, type Conversation } from "./conversation.ts";
import * as repo from "./test-runs.repo.ts";

export const TEST_SCENARIO_JOB = "test-run.scenario";
/** The text model that plays the assistant, the caller and the judge. */
export const TEST_MODEL = DEFAULT_ANALYSIS_MODEL;

export interface TestRunsServiceDeps {
  db: Db;
  openaiBaseUrl: string;
  jobs: Pick<JobQueue, "send" | "register">;
  versions: Pick<VersionsService, "forCall" | "exists">;
  scenarios: Pick<ScenariosService, "forRun">;
  tools: Pick<ToolsService, "forCall">;
  credentials: Pick<CredentialsService, "readUsable">;
  /** The shared counters: the per-organisation window of run starts. */
  counters: Pick<CounterStore, "increment">;
  logger: { warn(obj: object, msg: string): void };
  /** Scenarios played at once per instance. */
  concurrency: number;
  requestTimeoutMs?: number;
  retryDelaysMs?: readonly number[];
}

/** What a publish may do: go ahead (recording whether tests failed), or wait for the draft's run. */
export type PublishGate = { publish: true; withFailures: boolean } | { publish: false; testing: PublishTesting };

export interface TestRunsService {
  start(organizationId: string, assistantId: string, input: TestRunInput, by: string | null): Promise<{ id: string }>;
  get(organizationId: string, runId: string): Promise<TestRun>;
  latest(organizationId: string, assistantId: string): Promise<TestRun | null>;
  cancel(organizationId: string, runId: string): Promise<TestRun>;
  beforePublish(organizationId: string, assistantId: string, confirmFailures: boolean, by: string | null): Promise<PublishGate>;
}

class Cancelled extends Error {}

/** Why a scenario could not be played, in words a user can act on. */
function failureText(err: unknown): string {
  if (err instanceof ResponsesError) {
    return openAiFailureText(err, "run the tests again later") ?? `OpenAI could not play the scenario: ${err.message}`;
  }
  return "The scenario could not be played; run the tests again.";
}

export function createTestRunsService(deps: TestRunsServiceDeps): TestRunsService {
  const { db, jobs, logger } = deps;

  async function view(organizationId: string, run: repo.TestRunRow): Promise<TestRun> {
    const results = await repo.resultsOf(db, organizationId, run.id);
    const finished = results.filter((r) => r.status !== "pending" && r.status !== "running");
    return {
      id: run.id,
      assistant_id: run.assistantId,
      version: run.version,
      status: run.cancelledAt ? "cancelled" : finished.length === results.length ? "done" : "running",
      progress: { total: results.length, finished: finished.length, passed: results.filter((r) => r.status === "passed").length, failed: results.filter(resultFailed).length },
      cost: round(results.reduce((sum, r) => sum + r.cost, 0)),
      created_at: run.createdAt.toISOString(),
      results: results.map((r) => ({
        scenario_id: r.scenarioId,
        scenario_name: r.scenarioName,
        status: r.status,
        passed: r.passed,
        reasons: r.reasons,
        transcript: r.transcript,
        cost: round(r.cost),
        duration_ms: r.durationMs,
      })),
    };
  }

  async function runOr404(organizationId: string, runId: string): Promise<repo.TestRunRow> {
    const run = isUuid(runId) ? await repo.findRun(db, organizationId, runId) : null;
    if (!run) throw new AppError(404, "not_found", TEST_RUN_MESSAGES.notFound);
    return run;
  }

  async function start(organizationId: string, assistantId: string, input: TestRunInput, by: string | null): Promise<{ id: string }> {
    if (!isUuid(assistantId)) throw notFound("Assistant");
    const version = input.version === "draft" ? null : input.version;
    if (version !== null && !(await deps.versions.exists(organizationId, assistantId, version))) {
      // Another organisation's assistant is not found, whatever the version.
      if (!(await deps.versions.forCall(organizationId, assistantId, "draft"))) throw notFound("Assistant");
      throw new AppError(400, "unknown_version", TEST_RUN_MESSAGES.unknownVersion(version));
    }
    const runnable = await deps.versions.forCall(organizationId, assistantId, version === null ? "draft" : { pinned: version });
    if (!runnable) throw notFound("Assistant");
    const scenarios = await deps.scenarios.forRun(organizationId, assistantId, input.scenario_ids);
    if (scenarios.length === 0) throw new AppError(400, "no_scenarios", TEST_RUN_MESSAGES.noScenarios);
    const window = await deps.counters.increment(counterKey.rateLimit("test-run-start", organizationId), 60_000);
    if (window.count > TEST_RUN_STARTS_PER_MINUTE) {
      const seconds = Math.max(1, Math.ceil(window.resetInMs / 1000));
      throw new RateLimitedError(TEST_RUN_MESSAGES.tooManyStarts(seconds), seconds);
    }
    const inserted = await repo.insertRun(db, organizationId, { assistantId, version, content: runnable.content, createdBy: by }, scenarios);
    if (!inserted) throw new AppError(409, "test_run_in_progress", TEST_RUN_MESSAGES.alreadyRunning);
    const { run, resultIds } = inserted;
    for (const resultId of resultIds) await jobs.send<{ resultId: string }>(TEST_SCENARIO_JOB, { resultId }, { key: resultId });
    return { id: run.id };
  }

  /** One attempt at one scenario of a run. Throws only to be retried. */
  async function play(data: { resultId: string }, context: JobContext): Promise<void> {
    const found = await repo.findForJob(db, data.resultId);
    if (!found || found.run.cancelledAt || !(await repo.markRunning(db, data.resultId))) return;
    const { result, run } = found;
    const startedAt = Date.now();
    let cost = 0;
    const finish = (outcome: { status: "passed" | "failed" | "error"; passed: boolean | null; reasons: string[]; transcript?: repo.TestResultRow["transcript"] }) =>
      repo.finishResult(db, data.resultId, { transcript: [], ...outcome, cost: round(cost), durationMs: Date.now() - startedAt });

    const [scenario] = result.scenarioId ? await deps.scenarios.forRun(run.organizationId, run.assistantId, [result.scenarioId]).catch(() => []) : [];
    if (!scenario) return void (await finish({ status: "error", passed: null, reasons: ["The scenario was deleted before it was played."] }));
    const apiKey = await deps.credentials.readUsable(run.organizationId, "openai_api_key");
    if (!apiKey) return void (await finish({ status: "error", passed: null, reasons: [TEST_RUN_MESSAGES.noApiKey] }));

    const client = createResponsesClient({ baseUrl: deps.openaiBaseUrl, apiKey, timeoutMs: deps.requestTimeoutMs });
    const ask: Ask = async <T>(request: Parameters<Ask>[0]): Promise<T> => {
      if (!(await repo.stillRunning(db, data.resultId))) throw new Cancelled();
      const { value, result: answer } = await client.createJson<T>(request);
      const usage = answer.usage;
      cost += textCost(request.model, { input_tokens: usage.input_tokens, cached_tokens: usage.input_tokens_details?.cached_tokens ?? 0, output_tokens: usage.output_tokens }) ?? 0;
      return value;
    };
    try {
      const outcome = await playConversation(await conversationOf(run), {
        persona: scenario.persona,
        goal: scenario.goal,
        facts: scenario.facts,
        rubric: scenario.rubric,
        maxTurns: scenario.maxTurns,
        toolAnswers: scenario.toolAnswers,
        callerTurns: scenario.callerTurns,
      }, ask);
      await finish({ status: outcome.passed ? "passed" : "failed", passed: outcome.passed, reasons: outcome.reasons, transcript: outcome.transcript });
    } catch (err) {
      if (err instanceof Cancelled) return;
      const retry = err instanceof ResponsesError && err.retryable && !context.lastAttempt;
      logger.warn({ resultId: data.resultId, attempt: context.attempt, retry, code: err instanceof ResponsesError ? err.code : undefined, err }, "test scenario attempt failed");
      if (retry) {
        if (err.retryAfterMs !== null) context.retryNoSoonerThan(err.retryAfterMs);
        throw err;
      }
      await finish({ status: "error", passed: null, reasons: [failureText(err)] });
    }
  }

  /** The assistant as the run fixed it: its instructions, first message, tools and built-ins. */
  async function conversationOf(run: repo.TestRunRow): Promise<Conversation> {
    const { content } = run;
    const { definitions } = await deps.tools.forCall(run.organizationId, content.tool_ids);
    const catalog = new ToolCatalog(definitions, RESERVED_TOOL_NAMES);
    const userTools = catalog.providerTools().map((t, i) => ({ ...t, userName: definitions[i]!.name }));
    const builtIns = builtInTools({ transferDestinations: content.transfer_destinations, allowEndCall: content.allow_end_call, keypadInput: content.keypad_input });
    return { model: TEST_MODEL, firstMessage: content.first_message, instructions: content.instructions, tools: [...userTools, ...builtIns] };
  }

  jobs.register<{ resultId: string }>(TEST_SCENARIO_JOB, play, {
    concurrency: deps.concurrency,
    retryDelaysMs: deps.retryDelaysMs ?? [5_000, 30_000, 120_000],
    // A scenario is tens of requests: its instance must have died for it to take this long.
    timeoutMs: 30 * 60_000,
  });

  return {
    start,

    async get(organizationId, runId) {
      return view(organizationId, await runOr404(organizationId, runId));
    },

    async latest(organizationId, assistantId) {
      if (!isUuid(assistantId) || !(await deps.versions.forCall(organizationId, assistantId, "draft"))) throw notFound("Assistant");
      const run = await repo.latestRun(db, organizationId, assistantId);
      return run ? view(organizationId, run) : null;
    },

    async cancel(organizationId, runId) {
      const run = await runOr404(organizationId, runId);
      const current = await view(organizationId, run);
      if (current.status !== "running") throw new AppError(409, "not_running", TEST_RUN_MESSAGES.notRunning);
      await repo.cancelRun(db, organizationId, runId, new Date());
      return view(organizationId, await runOr404(organizationId, runId));
    },

    async beforePublish(organizationId, assistantId, confirmFailures, by) {
      const scenarios = isUuid(assistantId) ? await deps.scenarios.forRun(organizationId, assistantId) : [];
      if (scenarios.length === 0) return { publish: true, withFailures: false };
      const draft = await deps.versions.forCall(organizationId, assistantId, "draft");
      if (!draft) throw notFound("Assistant");
      // A run counts if it played exactly this draft, after the scenarios last changed, and every one of them.
      const latest = await repo.latestRun(db, organizationId, assistantId, true);
      const changed = Math.max(...scenarios.map((s) => s.updatedAt.getTime()));
      let run = latest && !latest.cancelledAt && sameContent(latest.content, draft.content) && latest.createdAt.getTime() >= changed ? await view(organizationId, latest) : null;
      if (run && !scenarios.every((s) => run!.results.some((r) => r.scenario_id === s.id))) run = null;
      if (!run) run = await view(organizationId, await runOr404(organizationId, (await start(organizationId, assistantId, { version: "draft" }, by)).id));
      if (run.status === "running") return { publish: false, testing: { status: "testing", test_run_id: run.id, message: TEST_RUN_MESSAGES.testing } };
      if (run.progress.failed === 0) return { publish: true, withFailures: false };
      if (!confirmFailures) throw new AppError(409, "tests_failed", TEST_RUN_MESSAGES.testsFailed(run.progress.failed, run.progress.total));
      return { publish: true, withFailures: true };
    },
  };
}

const round = (usd: number) => Math.round(usd * 1e6) / 1e6;
