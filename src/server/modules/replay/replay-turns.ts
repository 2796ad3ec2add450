/**
 * A call's transcript read as turns: the opening (before the caller first speaks), then one turn
 * per caller utterance with what the assistant said and the tools it called until the next one.
 * Both a replay and a scenario made from a call start from the caller's turns read here.
 */
import type { TranscriptEntry } from "../../../shared/calls.ts";
import type { ReplaySide, ReplayToolCall } from "../../../shared/replay.ts";
import { MAX_CALLER_TURNS } from "../../../shared/scenarios.ts";

export interface OriginalTurn {
  caller: string | null;
  original: ReplaySide;
}

/** A caller utterance the engine transcribed (a failed transcription is an error entry, not words). */
export const isCallerTurn = (entry: TranscriptEntry): boolean => entry.type === "user" && !entry.isError && entry.content.trim().length > 0;

/** The caller's words, in order. */
export const callerTurns = (transcript: readonly TranscriptEntry[]): string[] => transcript.filter(isCallerTurn).map((e) => e.content.trim());

const CALLER_TURN_MAX_CHARS = 2000;

/** The scripted caller of a scenario made from a call: its words (clipped to what a scenario holds). */
export const scriptOf = (turns: readonly string[]): string[] => turns.slice(0, MAX_CALLER_TURNS).map((t) => t.slice(0, CALLER_TURN_MAX_CHARS));

export function originalTurns(transcript: readonly TranscriptEntry[]): OriginalTurn[] {
  const turns: OriginalTurn[] = [{ caller: null, original: { said: [], tool_calls: [] } }];
  const pending = new Map<string, ReplayToolCall>();
  for (const entry of transcript) {
    const turn = turns[turns.length - 1]!;
    if (isCallerTurn(entry)) turns.push({ caller: entry.content.trim(), original: { said: [], tool_calls: [] } });
    else if (entry.type === "assistant" && entry.content.trim()) turn.original.said.push(entry.content.trim());
    else if (entry.type === "tool-request") {
      const call: ReplayToolCall = { name: entry.toolData?.toolName ?? entry.content, arguments: entry.parameters ?? {}, result: null, answered_from: "original" };
      turn.original.tool_calls.push(call);
      if (entry.toolData?.callId) pending.set(entry.toolData.callId, call);
    } else if (entry.type === "tool-response") {
      const call = entry.toolData?.callId ? pending.get(entry.toolData.callId) : undefined;
      if (call) call.result = entry.result ?? entry.content;
    }
  }
  return turns;
}

/** A tool's answer in the original call, by the tool's id (when recorded) and name. */
export interface RecordedAnswer {
  toolId: string | null;
  name: string;
  result: unknown;
}

export function recordedAnswers(transcript: readonly TranscriptEntry[]): RecordedAnswer[] {
  const requests = new Map<string, { toolId: string | null; name: string }>();
  const answers: RecordedAnswer[] = [];
  for (const entry of transcript) {
    const callId = entry.toolData?.callId;
    if (!callId) continue;
    if (entry.type === "tool-request") requests.set(callId, { toolId: entry.toolData?.toolId || null, name: entry.toolData?.toolName ?? entry.content });
    else if (entry.type === "tool-response") {
      const request = requests.get(callId);
      if (request) answers.push({ ...request, result: entry.result ?? entry.content });
    }
  }
  return answers;
}

/**
 * Hands out the original call's answers of a tool in the order it got them: the draft's first
 * call of a tool gets the original's first answer of it, and so on; past the last, the last again.
 */
export class RecordedAnswerBook {
  private readonly used = new Map<RecordedAnswer, boolean>();

  constructor(private readonly answers: readonly RecordedAnswer[]) {}

  take(tool: { id: string; name: string }): RecordedAnswer | null {
    // The same tool, or one of the same name (a tool deleted and made again since the call).
    const same = this.answers.filter((a) => (a.toolId !== null && a.toolId === tool.id) || a.name === tool.name);
    const next = same.find((a) => !this.used.get(a)) ?? same[same.length - 1] ?? null;
    if (next) this.used.set(next, true);
    return next;
  }
}
