/**
 * Test scenarios and test runs of an assistant (the Tests tab): a scenario is a simulated caller —
 * a persona and goal played by a text model, or a scripted list of caller turns (a real call
 * saved as a test) — with the success criteria (rubric) a judge scores the conversation against.
 * A test run plays scenarios against one version of the assistant (or its draft) in the
 * background. Wire shapes of /api/assistants/:id/scenarios, /api/assistants/:id/test-runs and
 * /api/test-runs/:id; the form validates with the schemas the server checks bodies with.
 */
import { z } from "zod";
import { positiveInt32 } from "./bounds.js";
import { pageOf } from "./pages.js";
import { optionalText, text } from "./text-fields.js";
import { given, NOT_BLANK, rules, when } from "./wire-formats.js";
import { EXAMPLE_IDS, withExamples } from "./examples.js";

export const SCENARIO_SOURCES = ["manual", "call", "suggested"] as const;
export type ScenarioSource = (typeof SCENARIO_SOURCES)[number];
/** Only scenarios suggested from live calls have a status; the others are always run. */
export const SCENARIO_STATUSES = ["suggested", "accepted", "dismissed"] as const;
export type ScenarioStatus = (typeof SCENARIO_STATUSES)[number];

export const DEFAULT_MAX_TURNS = 8;
export const MAX_TURNS_LIMIT = 30;
export const MAX_SCENARIOS = 200;
export const MAX_CALLER_TURNS = 60;

export const SCENARIO_MESSAGES = {
  notFound: "Scenario not found",
  nameRequired: "Name is required",
  personaRequired: "Describe the caller (persona) or give the caller's turns",
  goalRequired: "Goal is required",
  rubricRequired: "Success criteria are required",
  maxTurns: `Maximum turns must be a whole number from 1 to ${MAX_TURNS_LIMIT}`,
  toolAnswers: "Tool answers must be an object: a tool's name → the JSON it answers",
  callerTurns: `Caller turns must be a list of 1 to ${MAX_CALLER_TURNS} non-empty texts`,
  tooMany: `An assistant can have at most ${MAX_SCENARIOS} scenarios`,
  onlySuggested: "Only a suggested scenario can be accepted or dismissed",
  statusInvalid: "Status must be accepted or dismissed",
  deleted: "Scenario deleted",
  saved: "Scenario saved",
  none: "No scenarios yet. Add one to test the assistant before callers meet it.",
} as const;


const maxTurns = positiveInt32(SCENARIO_MESSAGES.maxTurns).max(MAX_TURNS_LIMIT, SCENARIO_MESSAGES.maxTurns);

/** A tool's name → what it answers in a test (instead of calling the real endpoint). */
const toolAnswers = z.record(z.string().min(1, SCENARIO_MESSAGES.toolAnswers).max(64, SCENARIO_MESSAGES.toolAnswers), z.unknown(), { error: SCENARIO_MESSAGES.toolAnswers });

const callerTurns = z
  .array(z.string({ error: SCENARIO_MESSAGES.callerTurns }).trim().min(1, { error: SCENARIO_MESSAGES.callerTurns, abort: true }).regex(NOT_BLANK, SCENARIO_MESSAGES.callerTurns).max(2000, SCENARIO_MESSAGES.callerTurns), { error: SCENARIO_MESSAGES.callerTurns })
  .min(1, SCENARIO_MESSAGES.callerTurns)
  .max(MAX_CALLER_TURNS, SCENARIO_MESSAGES.callerTurns);

const fields = {
  name: text(100, "Name").min(1, { error: SCENARIO_MESSAGES.nameRequired, abort: true }).regex(NOT_BLANK, SCENARIO_MESSAGES.nameRequired),
  persona: text(4000, "Persona"),
  goal: text(2000, "Goal"),
  facts: optionalText(4000, "Caller facts"),
  rubric: text(4000, "Success criteria").min(1, { error: SCENARIO_MESSAGES.rubricRequired, abort: true }).regex(NOT_BLANK, SCENARIO_MESSAGES.rubricRequired),
  max_turns: maxTurns,
  tool_answers: toolAnswers,
  /** A scripted caller: these words, in order, instead of a model playing the persona. */
  caller_turns: callerTurns.nullable(),
};

/** A model-played caller needs a persona and a goal; a scripted one needs neither. The first gap, or null. */
export function callerGap(v: { persona?: string; goal?: string; caller_turns?: string[] | null }): { path: "persona" | "goal"; message: string } | null {
  if (v.caller_turns && v.caller_turns.length > 0) return null;
  if (!v.persona) return { path: "persona", message: SCENARIO_MESSAGES.personaRequired };
  if (!v.goal) return { path: "goal", message: SCENARIO_MESSAGES.goalRequired };
  return null;
}
const callerDescribed = (v: { persona?: string; goal?: string; caller_turns?: string[] | null }, ctx: z.RefinementCtx) => {
  const gap = callerGap(v);
  if (gap) ctx.addIssue({ code: "custom", path: [gap.path], message: gap.message });
};

/** Body of POST /api/assistants/:id/scenarios (the form's schema too). */
export const scenarioInputSchema = withExamples(
  z
    .object({
      ...fields,
      persona: fields.persona.default(""),
      goal: fields.goal.default(""),
      max_turns: maxTurns.default(DEFAULT_MAX_TURNS),
      tool_answers: toolAnswers.default({}),
      caller_turns: fields.caller_turns.default(null),
    })
    .superRefine(callerDescribed)
    // callerGap's rule: without the caller's turns, a persona and a goal.
    .meta(when({ not: { required: ["caller_turns"], properties: { caller_turns: { type: "array", minItems: 1 } } } }, rules(given("persona"), given("goal")))),
  {
    name: "Books a cleaning",
    persona: "Dana Reyes, a patient who prefers mornings and speaks briefly.",
    goal: "Book a teeth cleaning next Tuesday before 10:00.",
    facts: "Date of birth: 12 March 1988.",
    rubric: "The assistant confirms the day, the time and the patient's name before ending the call.",
    max_turns: 8,
  },
);
export type ScenarioInput = z.infer<typeof scenarioInputSchema>;
export type ScenarioFormValues = z.input<typeof scenarioInputSchema>;

/** Body of PATCH …/scenarios/:sid: any of the fields; `status` accepts or dismisses a suggestion. */
export const scenarioUpdateSchema = withExamples(
  z.object({
    name: fields.name.optional(),
    persona: fields.persona.optional(),
    goal: fields.goal.optional(),
    facts: fields.facts.optional(),
    rubric: fields.rubric.optional(),
    max_turns: fields.max_turns.optional(),
    tool_answers: fields.tool_answers.optional(),
    caller_turns: fields.caller_turns.optional(),
    status: z.enum(["accepted", "dismissed"], { error: SCENARIO_MESSAGES.statusInvalid }).optional(),
  }),
  { rubric: "The assistant confirms the day, the time and the patient's date of birth.", max_turns: 10 },
);
export type ScenarioUpdate = z.infer<typeof scenarioUpdateSchema>;

export const scenarioSchema = z.object({
  id: z.string(),
  assistant_id: z.string(),
  name: z.string(),
  persona: z.string(),
  goal: z.string(),
  facts: z.string().nullable(),
  rubric: z.string(),
  max_turns: z.number().int(),
  tool_answers: z.record(z.string(), z.unknown()),
  caller_turns: z.array(z.string()).nullable(),
  source: z.enum(SCENARIO_SOURCES),
  /** null unless suggested from a live call. */
  status: z.enum(SCENARIO_STATUSES).nullable(),
  /** The call it was saved or suggested from. */
  source_call_id: z.string().nullable(),
  created_at: z.string(),
  updated_at: z.string(),
});
export type Scenario = z.infer<typeof scenarioSchema>;
/** An assistant's scenarios, oldest first. */
export const scenarioPageSchema = pageOf(scenarioSchema);

/** Whether a run plays the scenario: suggestions count once accepted. */
export const isRunnable = (s: Pick<Scenario, "source" | "status">): boolean => s.source !== "suggested" || s.status === "accepted";

// ── Test runs ──────────────────────────────────────────────────────────────────────────────

export const TEST_RUN_STATUSES = ["running", "done", "cancelled"] as const;
export type TestRunStatus = (typeof TEST_RUN_STATUSES)[number];
export const TEST_RESULT_STATUSES = ["pending", "running", "passed", "failed", "error", "cancelled"] as const;
export type TestResultStatus = (typeof TEST_RESULT_STATUSES)[number];

export const TEST_RUN_MESSAGES = {
  notFound: "Test run not found",
  noScenarios: "Add a scenario before running tests",
  unknownScenario: "One of the scenarios does not exist for this assistant",
  versionInvalid: 'version must be a published version number or "draft"',
  unknownVersion: (n: number) => `Version ${n} does not exist for this assistant`,
  noApiKey: "Add your OpenAI API key in Settings before running tests.",
  notRunning: "This test run has already finished",
  testsFailed: (failed: number, total: number) => `${failed} of ${total} test scenarios failed against the draft. Publish anyway?`,
  testing: "Running the tests against the draft before publishing",
  noTestAnswer: "No test answer is set for this tool",
  alreadyRunning: "Tests are already running for this assistant: wait for them to finish, or cancel them, before starting again.",
  tooManyStarts: (seconds: number) => `Too many test runs were started in this organisation. Please try again in ${seconds} seconds.`,
} as const;

/**
 * Test runs an organisation may start per minute (each plays every scenario through its OpenAI
 * key): with one run in flight per assistant, this bounds a burst across assistants.
 */
export const TEST_RUN_STARTS_PER_MINUTE = 10;

/** Body of POST /api/assistants/:id/test-runs. */
export const testRunInputSchema = withExamples(
  z.object({
    version: z
      .union([z.literal("draft"), positiveInt32(TEST_RUN_MESSAGES.versionInvalid)], { error: TEST_RUN_MESSAGES.versionInvalid })
      .default("draft"),
    scenario_ids: z.array(z.string(), { error: TEST_RUN_MESSAGES.unknownScenario }).min(1, TEST_RUN_MESSAGES.noScenarios).max(MAX_SCENARIOS).optional(),
  }),
  { version: "draft", scenario_ids: [EXAMPLE_IDS.scenario] },
);
export type TestRunInput = z.infer<typeof testRunInputSchema>;

/** One line of a test conversation: what the caller or assistant said, or a tool call and its test answer. */
export const testTurnSchema = z.object({
  role: z.enum(["caller", "assistant", "tool"]),
  text: z.string(),
  /** For a tool line: the tool's name and the arguments the assistant passed. */
  tool: z.object({ name: z.string(), arguments: z.string() }).optional(),
});
export type TestTurn = z.infer<typeof testTurnSchema>;

export const testResultSchema = z.object({
  scenario_id: z.string().nullable(),
  scenario_name: z.string(),
  status: z.enum(TEST_RESULT_STATUSES),
  /** null until judged (or when it could not be). */
  passed: z.boolean().nullable(),
  /** The judge's reasons, or why the scenario could not be played. */
  reasons: z.array(z.string()),
  transcript: z.array(testTurnSchema),
  /** USD of every request of the scenario (assistant, caller, judge). */
  cost: z.number(),
  duration_ms: z.number().int().nullable(),
});
export type TestResult = z.infer<typeof testResultSchema>;

export const testRunSchema = z.object({
  id: z.string(),
  assistant_id: z.string(),
  /** null: the draft. */
  version: z.number().int().nullable(),
  status: z.enum(TEST_RUN_STATUSES),
  progress: z.object({ total: z.number().int(), finished: z.number().int(), passed: z.number().int(), failed: z.number().int() }),
  cost: z.number(),
  created_at: z.string(),
  results: z.array(testResultSchema),
});
export type TestRun = z.infer<typeof testRunSchema>;

export const testRunCreatedSchema = z.object({ id: z.string() });

/** What POST /publish answers while the draft is being tested first (202). */
export const publishTestingSchema = z.object({ status: z.literal("testing"), test_run_id: z.string(), message: z.string() });
export type PublishTesting = z.infer<typeof publishTestingSchema>;

/** A result counts as failed when judged so or when it could not be played. */
export const resultFailed = (r: Pick<TestResult, "status">): boolean => r.status === "failed" || r.status === "error";
