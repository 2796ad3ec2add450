/**
 * Replaying a real call against the assistant's draft (POST /api/calls/:id/replay): the caller's
 * real turns, in order, fed to the draft as a text conversation, and both conversations aligned
 * turn by turn (docs/decisions/044-replay-against-draft.md).
 */
import { z } from "zod";
import type { CallAnalysis } from "./analysis.js";
import { MAX_TURNS_LIMIT, SCENARIO_MESSAGES } from "./scenarios.js";
import { NOT_BLANK } from "./wire-formats.js";
import { withExamples } from "./examples.js";

/** Where the answer a tool call got in the replay came from: tools never run in a replay. */
export const REPLAY_TOOL_ANSWERS = ["original", "simulated", "unavailable"] as const;
export type ReplayToolAnswer = (typeof REPLAY_TOOL_ANSWERS)[number];

export const replayToolCallSchema = z.object({
  name: z.string(),
  arguments: z.unknown(),
  result: z.unknown(),
  /**
   * original: the original call's result of the same tool (the draft's call was not sent);
   * simulated: a built-in acknowledged without acting (end_call, transfer_call, do-not-call);
   * unavailable: the original call never called this tool, so the model was told there is no answer.
   * Always "original" on the original call's side (what really happened).
   */
  answered_from: z.enum(REPLAY_TOOL_ANSWERS),
});
export type ReplayToolCall = z.infer<typeof replayToolCallSchema>;

/** One side of a turn: what the assistant said (in order) and the tools it called. */
export const replaySideSchema = z.object({
  said: z.array(z.string()),
  tool_calls: z.array(replayToolCallSchema),
});
export type ReplaySide = z.infer<typeof replaySideSchema>;

export const replayTurnSchema = z.object({
  /** What the caller said to open this turn; null for the opening (the greeting before the caller speaks). */
  caller: z.string().nullable(),
  original: replaySideSchema,
  /** null: the draft had already ended or handed off the call, or the replay stopped before this turn. */
  draft: replaySideSchema.nullable(),
});
export type ReplayTurn = z.infer<typeof replayTurnSchema>;

export const callReplaySchema = z.object({
  call_id: z.string(),
  assistant: z.object({ id: z.string(), name: z.string() }),
  /** The text model that played the draft (a realtime model has no text-only endpoint). */
  model: z.string(),
  turns: z.array(replayTurnSchema),
  /** Why the draft's conversation stopped before the caller's last turn, if it did. */
  stopped: z.string().nullable(),
  /** USD of the replay's requests; null when the model is unpriced. */
  cost: z.number().nullable(),
  duration_ms: z.number(),
});
export type CallReplay = z.infer<typeof callReplaySchema>;

/** Caller turns replayed at most (a longer call is replayed up to here). */
export const MAX_REPLAY_TURNS = 40;
/** Model requests per turn at most (each tool round is one). */
export const MAX_REPLAY_ROUNDS_PER_TURN = 5;

/**
 * The text model that plays a realtime model's part: realtime models have no text-only endpoint,
 * so the nearest fast, function-calling text model of the same size class stands in.
 */
export function replayTextModel(realtimeModel: string): string {
  return /mini/.test(realtimeModel) ? "gpt-4.1-mini" : "gpt-4.1";
}

export const REPLAY_MESSAGES = {
  button: "Replay against draft",
  running: "Replaying…",
  title: "Replay against draft",
  description: "The caller's real words, turn by turn, said to the assistant's current draft. Tools are not called: the draft gets the original call's answers.",
  original: "Original call",
  draft: "Draft",
  opening: "Opening",
  notReached: "Not reached: the draft's conversation had ended",
  noCallerTurns: "This call has no caller turns to replay",
  inProgress: "A call in progress cannot be replayed; wait until it ends",
  noAssistant: "The call's assistant no longer exists",
  noApiKey: "Add your OpenAI API key in Settings before replaying a call.",
  failed: (why: string) => `The replay failed: ${why}`,
  endedByDraft: "The draft ended the call",
  transferredByDraft: (label: string) => `The draft transferred the call to ${label}`,
  tooManyRounds: "The draft kept calling tools without answering; the replay stopped",
  truncated: (n: number) => `Only the first ${n} caller turns were replayed`,
  answeredFrom: {
    original: "answered from the original call",
    simulated: "not carried out (replay)",
    unavailable: "no answer: not called in the original call",
  } satisfies Record<ReplayToolAnswer, string>,
} as const;

// ---------------------------------------------------------------------------
// "Save as test": POST /api/calls/:id/scenario → 201 Scenario (source "call")

/** Body: the scenario's name and rubric; the caller's turns and tool answers come from the call. */
export const saveCallAsTestSchema = withExamples(
  z.object({
    name: z.string({ error: "Name must be text" }).trim().min(1, { error: SCENARIO_MESSAGES.nameRequired, abort: true }).regex(NOT_BLANK, SCENARIO_MESSAGES.nameRequired).max(100, "Name must be at most 100 characters"),
    rubric: z.string({ error: "Success criteria must be text" }).trim().min(1, { error: SCENARIO_MESSAGES.rubricRequired, abort: true }).regex(NOT_BLANK, SCENARIO_MESSAGES.rubricRequired).max(4000, "Success criteria must be at most 4000 characters"),
  }),
  { name: "Reschedules a cleaning", rubric: "The assistant offers two free slots and confirms the one the caller picks." },
);
export type SaveCallAsTestInput = z.infer<typeof saveCallAsTestSchema>;

export const SAVE_AS_TEST_MESSAGES = {
  button: "Save as test",
  title: "Save this call as a test",
  description: "A test whose caller says this call's words, in order, to the assistant. Write what the assistant must do for the test to pass.",
  rubricHint: "Prefilled from the call's analysis, if it has one.",
  saved: "Saved as a test of the assistant",
  noAssistant: REPLAY_MESSAGES.noAssistant,
} as const;

/** The form's first rubric: what the analysis said of the call (its summary and success reason), else empty. */
export function rubricFromAnalysis(analysis: Pick<CallAnalysis, "summary" | "success"> | null): string {
  if (!analysis) return "";
  const parts = [analysis.summary ? `The caller's situation: ${analysis.summary}` : "", analysis.success?.reason ? `As judged on the real call: ${analysis.success.reason}` : ""];
  return parts.filter(Boolean).join("\n");
}

/** A scripted caller plays each of its turns once; the scenario allows that many turns (within the limit). */
export const scriptedMaxTurns = (callerTurns: number): number => Math.min(Math.max(callerTurns, 1), MAX_TURNS_LIMIT);

// ---------------------------------------------------------------------------
// Supervisor corrections become suggested tests (listed under the assistant's Tests)

/** Suggestions made from one call at most (one per guidance or take-over, in order). */
export const MAX_SUGGESTIONS_PER_CALL = 5;

const quote = (text: string) => `"${text}"`;
const clip = (text: string, max: number) => (text.length <= max ? text : `${text.slice(0, max - 1)}…`);

/** The name and rubric of a suggested scenario (the Tests tab lists them under "Suggested from live calls"). */
export const SUGGESTION_TEXTS = {
  guideName: (guidance: string) => clip(`Guidance: ${guidance}`, 100),
  takeOverName: (supervisor: string) => clip(`Take-over by ${supervisor}`, 100),
  guideRubric: (supervisor: string, guidance: string) =>
    `After the caller's last turn here, a supervisor (${supervisor}) had to tell the assistant: ${quote(guidance)}. ` +
    "The test passes if the assistant does this by itself, without being told.",
  takeOverRubric: (supervisor: string, callerWentOn: readonly string[]) =>
    `After the caller's last turn here, a supervisor (${supervisor}) had to take the call over from the assistant. ` +
    (callerWentOn.length > 0 ? `The supervisor's words were not transcribed; the caller went on to say: ${callerWentOn.map(quote).join(" / ")}. ` : "") +
    "The test passes if the assistant handles the caller's request itself, so that no supervisor has to step in.",
} as const;
