/**
 * Replay a real call against the assistant's draft (docs/decisions/044-replay-against-draft.md):
 * the caller's transcribed turns, in order, said to the draft as a text conversation through the
 * organisation's OpenAI key, and both conversations returned aligned turn by turn. Synchronous:
 * a replay is a preview the user waits for, bounded in turns and requests, and kept nowhere.
 */
import { callRecordLogsSchema } from "../../../shared/call-records.ts";
import type { TranscriptEntry } from "../../../shared/calls.ts";
import { isUuid } from "../../../shared/ids.ts";
import { MAX_REPLAY_TURNS, REPLAY_MESSAGES, replayTextModel, scriptedMaxTurns, type CallReplay, type SaveCallAsTestInput } from "../../../shared/replay.ts";
import { scenarioInputSchema, type Scenario } from "../../../shared/scenarios.ts";
import type { Db } from "../../db/client.ts";
import { AppError, notFound } from "../../errors.ts";
import { accountRefusalText, createResponsesClient, ResponsesError } from "../../openai/responses-client.ts";
import { textCost } from "../../voice/provider-prices.ts";
import type { CallsService } from "../calls/calls.service.ts";
import type { ScenariosService } from "../scenarios/scenarios.service.ts";
import { playDraft } from "./replay-draft.ts";
import { callerTurns, originalTurns, recordedAnswers, RecordedAnswerBook, scriptOf } from "./replay-turns.ts";
import { findCallToReplay } from "./replay.repo.ts";

export interface ReplayServiceDeps {
  db: Db;
  openaiBaseUrl: string;
  /** The draft as a call runs it (instructions and first message filled, tools, built-ins) and the key. */
  calls: Pick<CallsService, "loadCall">;
  /** "Save as test" makes its scenario through the scenarios module. */
  scenarios: Pick<ScenariosService, "createFrom">;
  /** One request longer than this fails the replay. */
  requestTimeoutMs?: number;
}

/** The whole replay's budget: past it the request is abandoned (a browser does not wait longer). */
export const REPLAY_TIMEOUT_MS = 180_000;

const TOOL_NAME_MAX = 64;

/** The original call's first answer of each tool, as a scenario's tool answers (a test never calls the endpoints either). */
export function toolAnswersOf(transcript: readonly TranscriptEntry[]): Record<string, unknown> {
  const answers: Record<string, unknown> = {};
  for (const a of recordedAnswers(transcript)) if (a.name.length <= TOOL_NAME_MAX && !(a.name in answers)) answers[a.name] = a.result ?? null;
  return answers;
}

/** Why the replay failed, in words a user can act on. */
function failure(err: ResponsesError): AppError {
  const refused = accountRefusalText(err);
  if (refused) return new AppError(400, "openai_refused", refused);
  if (err.status === 400 || err.status === 404) return new AppError(400, "openai_refused", REPLAY_MESSAGES.failed(err.message));
  return new AppError(502, "openai_unavailable", REPLAY_MESSAGES.failed(err.status === 429 ? "OpenAI's rate limit was reached; try again in a minute." : "OpenAI could not be reached or failed; try again."));
}

export function createReplayService(deps: ReplayServiceDeps) {
  const { db } = deps;

  /** The organisation's ended call with its transcript; 404 for another's, 409 while it runs. */
  async function endedCall(organizationId: string, callId: string) {
    const row = isUuid(callId) ? await findCallToReplay(db, organizationId, callId) : null;
    if (!row) throw notFound("Call");
    if (!row.endTime) throw new AppError(409, "call_in_progress", REPLAY_MESSAGES.inProgress);
    const logs = callRecordLogsSchema.safeParse(row.logs);
    return { ...row, transcript: logs.success ? (logs.data.transcript ?? []) : [] };
  }

  return {
    endedCall,

    /** "Save as test": a scenario of the call's assistant whose scripted caller says the call's caller turns. */
    async saveAsTest(organizationId: string, callId: string, input: SaveCallAsTestInput): Promise<Scenario> {
      const call = await endedCall(organizationId, callId);
      const script = scriptOf(callerTurns(call.transcript));
      if (script.length === 0) throw new AppError(400, "no_caller_turns", REPLAY_MESSAGES.noCallerTurns);
      if (!call.assistantId) throw new AppError(409, "assistant_gone", REPLAY_MESSAGES.noAssistant);
      const scenario = scenarioInputSchema.parse({
        name: input.name,
        rubric: input.rubric,
        caller_turns: script,
        max_turns: scriptedMaxTurns(script.length),
        tool_answers: toolAnswersOf(call.transcript),
      });
      return deps.scenarios.createFrom(organizationId, call.assistantId, scenario, { source: "call", callId: call.id });
    },

    async replay(organizationId: string, callId: string, signal?: AbortSignal): Promise<CallReplay> {
      const started = Date.now();
      const call = await endedCall(organizationId, callId);
      const turns = originalTurns(call.transcript);
      if (turns.length <= 1) throw new AppError(400, "no_caller_turns", REPLAY_MESSAGES.noCallerTurns);
      if (!call.assistantId) throw new AppError(409, "assistant_gone", REPLAY_MESSAGES.noAssistant);
      const loaded = await deps.calls.loadCall(organizationId, call.assistantId, "draft", {
        callerNumber: call.callerNumber ?? "",
        calledNumber: call.calledNumber ?? "",
        direction: call.direction,
        given: call.variables ?? {},
      });
      if (!loaded.ok) {
        if (loaded.code === 4400) throw new AppError(400, "missing_api_key", REPLAY_MESSAGES.noApiKey);
        throw new AppError(409, "assistant_gone", REPLAY_MESSAGES.noAssistant);
      }
      const { assistant, apiKey } = loaded.call;
      const model = replayTextModel(assistant.model);
      const replayed = turns.slice(0, MAX_REPLAY_TURNS + 1);
      const client = createResponsesClient({ baseUrl: deps.openaiBaseUrl, apiKey, timeoutMs: deps.requestTimeoutMs });
      const budget = AbortSignal.timeout(REPLAY_TIMEOUT_MS);
      let play;
      try {
        play = await playDraft({
          client,
          model,
          assistant,
          callerTurns: replayed.slice(1).map((t) => t.caller ?? ""),
          answers: new RecordedAnswerBook(recordedAnswers(call.transcript)),
          signal: signal ? AbortSignal.any([signal, budget]) : budget,
        });
      } catch (err) {
        if (err instanceof ResponsesError) throw failure(err);
        throw err;
      }
      const truncated = turns.length > replayed.length ? REPLAY_MESSAGES.truncated(MAX_REPLAY_TURNS) : null;
      return {
        call_id: call.id,
        assistant: { id: assistant.id, name: assistant.name },
        model,
        turns: replayed.map((turn, i) => ({ caller: turn.caller, original: turn.original, draft: play.sides[i] ?? null })),
        stopped: play.stopped ?? truncated,
        cost: textCost(model, play.usage),
        duration_ms: Date.now() - started,
      };
    },
  };
}

export type ReplayService = ReturnType<typeof createReplayService>;
