/**
 * The Test Call panel's state machine (spec §4 "Test call"): not connected → connecting →
 * active → ended, driven by the user's actions and the live socket's messages. Pure: the hook
 * (use-test-call.ts) runs the side effects and dispatches what happened.
 */
import { LIVE_CALL_TEXTS, type CallState, type TranscriptEntry } from "@shared/calls";
import { withTranscript } from "@/lib/transcript";

export type CallPhase = "idle" | CallState;

export const NOT_CONNECTED = "Not connected";
export const MIC_DENIED_STATUS = "Microphone access denied";

/** A line the browser adds itself (microphone refused, socket trouble), placed after the server entries it followed. */
export interface LocalLine {
  entry: TranscriptEntry;
  after: number;
}

/** Why a call could not start, shown above the transcript (with a Settings link for a missing key). */
export interface Notice {
  title: string;
  message: string;
  settingsLink: boolean;
}

export interface CallOutcome {
  reason: string;
  durationMs: number;
  cost: number;
}

export interface CallView {
  phase: CallPhase;
  /** The user asked to end; waiting for the server's `ended`. */
  ending: boolean;
  status: string;
  micOn: boolean;
  /** The server's transcript: entries[index], with holes filled later. */
  entries: Array<TranscriptEntry | undefined>;
  local: LocalLine[];
  notice: Notice | null;
  callId: string | null;
  /** When the socket opened (ms since epoch), for the running duration. */
  startedAt: number | null;
  outcome: CallOutcome | null;
}

export type CallAction =
  | { type: "reset" }
  | { type: "starting" }
  | { type: "mic-denied"; line: string }
  | { type: "start-failed"; notice: Notice | null; line?: string }
  | { type: "opened"; at: number }
  | { type: "status"; state: CallState; text: string }
  | { type: "started"; callId: string }
  | { type: "transcript"; index: number; entry: TranscriptEntry }
  | { type: "transcript-delta"; index: number; text: string }
  | { type: "ending" }
  | { type: "mic"; on: boolean }
  | { type: "ended"; outcome: CallOutcome }
  | { type: "socket-error"; opened: boolean }
  | { type: "closed"; code: number; reason: string; opened: boolean };

export const initialCallView: CallView = {
  phase: "idle",
  ending: false,
  status: NOT_CONNECTED,
  micOn: true,
  entries: [],
  local: [],
  notice: null,
  callId: null,
  startedAt: null,
  outcome: null,
};

export function isLive(phase: CallPhase): boolean {
  return phase === "connecting" || phase === "active";
}

function systemLine(state: CallView, content: string, isError: boolean): LocalLine[] {
  const entry: TranscriptEntry = { type: "system", content, timestamp: new Date().toISOString(), ...(isError ? { isError: true } : {}) };
  return [...state.local, { entry, after: state.entries.length }];
}

/** The last row shown, to avoid saying the same thing twice (the server may say it too). */
function lastContent(state: CallView): string | undefined {
  const server = state.entries.filter(Boolean);
  const lastLocal = state.local[state.local.length - 1];
  if (lastLocal && lastLocal.after >= state.entries.length) return lastLocal.entry.content;
  return server[server.length - 1]?.content;
}

export function callReducer(state: CallView, action: CallAction): CallView {
  switch (action.type) {
    case "reset":
      return initialCallView;
    case "starting":
      return { ...initialCallView, phase: "connecting", status: "Connecting..." };
    case "mic-denied":
      return { ...state, phase: "idle", status: MIC_DENIED_STATUS, local: systemLine(state, action.line, true) };
    case "start-failed":
      return {
        ...state,
        phase: "idle",
        status: NOT_CONNECTED,
        notice: action.notice,
        local: action.line ? systemLine(state, action.line, true) : state.local,
      };
    case "opened":
      return { ...state, startedAt: action.at };
    case "status":
      // After `ended` the call stays ended whatever arrives late.
      if (state.phase === "ended" || state.phase === "idle") return state;
      return { ...state, phase: action.state, status: action.text };
    case "started":
      return { ...state, callId: action.callId };
    case "transcript":
    // A piece of an entry this view never received (cannot happen on one socket) is ignored.
    case "transcript-delta":
      return withTranscript(state, action);
    case "ending":
      return isLive(state.phase) ? { ...state, ending: true } : state;
    case "mic":
      return { ...state, micOn: action.on };
    case "ended":
      return { ...state, phase: "ended", ending: false, outcome: action.outcome };
    case "socket-error": {
      if (!isLive(state.phase)) return state;
      // Spec §4: a status containing "error" or "fail" also adds an error line.
      const text = action.opened ? "Connection error" : "Connection failed";
      return { ...state, status: text, local: systemLine(state, text, true) };
    }
    case "closed": {
      // Spec §4: a 1000 close adds "Session ended normally" — unless the server's last word was
      // a failure (its status then is the error, not "Call completed"): the socket to the browser
      // closes with 1000 either way.
      const normal = action.code === 1000 && (isLive(state.phase) || state.status === LIVE_CALL_TEXTS.callCompleted);
      let next = state;
      if (isLive(state.phase)) {
        next = {
          ...state,
          phase: "ended",
          ending: false,
          // A socket that never opened keeps its "Connection failed".
          status: action.opened ? `Disconnected (${action.code}) - ${action.reason}` : state.status,
        };
      }
      if (normal && lastContent(next) !== LIVE_CALL_TEXTS.sessionEndedNormally) {
        next = { ...next, local: systemLine(next, LIVE_CALL_TEXTS.sessionEndedNormally, false) };
      }
      return next;
    }
  }
}

export type TranscriptRow = { key: string; entry: TranscriptEntry };

/** The transcript as shown: server entries in index order (holes skipped), local lines where they happened. */
export function transcriptRows(entries: ReadonlyArray<TranscriptEntry | undefined>, local: readonly LocalLine[]): TranscriptRow[] {
  const rows: TranscriptRow[] = [];
  let next = 0;
  const flushLocal = (upTo: number) => {
    while (next < local.length && local[next]!.after <= upTo) {
      rows.push({ key: `local-${next}`, entry: local[next]!.entry });
      next += 1;
    }
  };
  entries.forEach((entry, index) => {
    flushLocal(index);
    if (entry) rows.push({ key: `entry-${index}`, entry });
  });
  flushLocal(Number.POSITIVE_INFINITY);
  return rows;
}
