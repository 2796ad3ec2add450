/**
 * Test scenarios of an assistant (docs/decisions/043-test-runs.md): simulated callers with the
 * rubric a judge scores them against. Rows made here are "manual"; a call saved as a test
 * ("call") and a suggestion from a live call ("suggested", with a status) are made through
 * `createFrom` by the modules that see those calls.
 */
import { isUuid } from "../../../shared/ids.ts";
import {
  callerGap,
  isRunnable,
  MAX_SCENARIOS,
  SCENARIO_MESSAGES,
  type Scenario,
  type ScenarioInput,
  type ScenarioSource,
  type ScenarioUpdate,
} from "../../../shared/scenarios.ts";
import type { Page, PageQuery } from "../../../shared/pages.ts";
import type { Db } from "../../db/client.ts";
import { insertWithinLimit } from "../../db/organization-lock.ts";
import { AppError, badRequest, notFound } from "../../errors.ts";
import { mapPage } from "../../http/pages.ts";
import type { AssistantsService } from "../assistants/assistants.service.ts";
import * as repo from "./scenarios.repo.ts";

export type { ScenarioRow } from "./scenarios.repo.ts";

export interface ScenariosService {
  list(organizationId: string, assistantId: string): Promise<Scenario[]>;
  /** A page of them, for the API. */
  page(organizationId: string, assistantId: string, query: PageQuery): Promise<Page<Scenario>>;
  create(organizationId: string, assistantId: string, input: ScenarioInput): Promise<Scenario>;
  /** A scenario made from a call: saved by a user ("call") or suggested by a correction ("suggested", status "suggested"). */
  createFrom(organizationId: string, assistantId: string, input: ScenarioInput, origin: { source: Exclude<ScenarioSource, "manual">; callId: string | null }): Promise<Scenario>;
  update(organizationId: string, assistantId: string, id: string, input: ScenarioUpdate): Promise<Scenario>;
  remove(organizationId: string, assistantId: string, id: string): Promise<void>;
  /** What a run plays: the given ids (404 for one not of this assistant), else every runnable one. */
  forRun(organizationId: string, assistantId: string, ids?: readonly string[]): Promise<repo.ScenarioRow[]>;
}

export function createScenariosService(deps: { db: Db; assistants: Pick<AssistantsService, "forCall"> }): ScenariosService {
  const { db } = deps;

  async function assistantOr404(organizationId: string, assistantId: string): Promise<void> {
    if (!isUuid(assistantId) || !(await deps.assistants.forCall(organizationId, assistantId))) throw notFound("Assistant");
  }

  async function insert(organizationId: string, assistantId: string, input: ScenarioInput, source: ScenarioSource, callId: string | null): Promise<Scenario> {
    await assistantOr404(organizationId, assistantId);
    const values = { ...(valuesOf(input) as repo.ScenarioValues), source, status: source === "suggested" ? ("suggested" as const) : null, sourceCallId: callId };
    const row = await insertWithinLimit(
      db,
      { organizationId, purpose: `scenarios:${assistantId}`, limit: MAX_SCENARIOS },
      (tx) => repo.countScenarios(tx, organizationId, assistantId),
      (tx) => repo.insertScenario(tx, organizationId, assistantId, values),
    );
    if (!row) throw new AppError(409, "too_many_scenarios", SCENARIO_MESSAGES.tooMany);
    return toScenario(row);
  }

  return {
    async list(organizationId, assistantId) {
      await assistantOr404(organizationId, assistantId);
      return (await repo.listScenarios(db, organizationId, assistantId)).map(toScenario);
    },

    async page(organizationId, assistantId, query) {
      await assistantOr404(organizationId, assistantId);
      return mapPage(await repo.pageScenarios(db, organizationId, assistantId, query), (rows) => rows.map(toScenario));
    },

    create: (organizationId, assistantId, input) => insert(organizationId, assistantId, input, "manual", null),

    createFrom: (organizationId, assistantId, input, origin) => insert(organizationId, assistantId, input, origin.source, origin.callId),

    async update(organizationId, assistantId, id, input) {
      await assistantOr404(organizationId, assistantId);
      const current = isUuid(id) ? await repo.findScenario(db, organizationId, assistantId, id) : null;
      if (!current) throw new AppError(404, "not_found", SCENARIO_MESSAGES.notFound);
      const merged = {
        persona: input.persona ?? current.persona,
        goal: input.goal ?? current.goal,
        caller_turns: input.caller_turns !== undefined ? input.caller_turns : current.callerTurns,
      };
      const gap = callerGap(merged);
      if (gap) throw badRequest(gap.message, "validation_error");
      const { status, ...fields } = input;
      if (status && current.source !== "suggested") throw badRequest(SCENARIO_MESSAGES.onlySuggested, "validation_error");
      const row = await repo.updateScenario(db, organizationId, assistantId, id, { ...valuesOf(fields), ...(status ? { status } : {}) });
      if (!row) throw new AppError(404, "not_found", SCENARIO_MESSAGES.notFound);
      return toScenario(row);
    },

    async remove(organizationId, assistantId, id) {
      await assistantOr404(organizationId, assistantId);
      if (!isUuid(id) || !(await repo.deleteScenario(db, organizationId, assistantId, id))) throw new AppError(404, "not_found", SCENARIO_MESSAGES.notFound);
    },

    async forRun(organizationId, assistantId, ids) {
      if (ids) {
        const rows = ids.every(isUuid) ? await repo.findScenarios(db, organizationId, assistantId, ids) : [];
        if (rows.length !== new Set(ids).size) return Promise.reject(new AppError(404, "not_found", SCENARIO_MESSAGES.notFound));
        return rows;
      }
      return (await repo.listScenarios(db, organizationId, assistantId)).filter((r) => isRunnable({ source: r.source, status: r.status }));
    },
  };
}

/** Only the fields given (a PATCH leaves the others as they are). */
function valuesOf(input: Partial<ScenarioInput>): Partial<repo.ScenarioValues> {
  const v: Partial<repo.ScenarioValues> = {};
  if (input.name !== undefined) v.name = input.name;
  if (input.persona !== undefined) v.persona = input.persona;
  if (input.goal !== undefined) v.goal = input.goal;
  if (input.facts !== undefined) v.facts = input.facts;
  if (input.rubric !== undefined) v.rubric = input.rubric;
  if (input.max_turns !== undefined) v.maxTurns = input.max_turns;
  if (input.tool_answers !== undefined) v.toolAnswers = input.tool_answers;
  if (input.caller_turns !== undefined) v.callerTurns = input.caller_turns;
  return v;
}

export function toScenario(row: repo.ScenarioRow): Scenario {
  return {
    id: row.id,
    assistant_id: row.assistantId,
    name: row.name,
    persona: row.persona,
    goal: row.goal,
    facts: row.facts,
    rubric: row.rubric,
    max_turns: row.maxTurns,
    tool_answers: row.toolAnswers,
    caller_turns: row.callerTurns,
    source: row.source,
    status: row.status,
    source_call_id: row.sourceCallId,
    created_at: row.createdAt.toISOString(),
    updated_at: row.updatedAt.toISOString(),
  };
}
