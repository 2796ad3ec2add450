/**
 * The live board's state, pure (the hooks run the sockets and dispatch what arrived): the list of
 * calls in progress from `WS /api/live/board`, and one watched call from `WS /api/live/calls/:id`.
 * The wire shapes are src/shared/live.ts.
 */
import type { TranscriptEntry } from "@shared/calls";
import { withTranscript } from "@/lib/transcript";
import type { BoardServerMessage, CallServerMessage, LiveCallSummary, SupervisorControl } from "@shared/live";

// ---------------------------------------------------------------------------
// The list

export interface BoardView {
  /** False until the first snapshot (the page shows a skeleton, not "No calls in progress"). */
  loaded: boolean;
  /** The board socket is open; false while it reconnects (the list then may be stale). */
  connected: boolean;
  /** Oldest call first: the one waiting longest stays on top. */
  calls: LiveCallSummary[];
}

export type BoardAction = BoardServerMessage | { type: "connected" } | { type: "disconnected" };

export const initialBoard: BoardView = { loaded: false, connected: false, calls: [] };

const byStart = (a: LiveCallSummary, b: LiveCallSummary) => a.startedAt.localeCompare(b.startedAt) || a.callId.localeCompare(b.callId);

export function boardReducer(state: BoardView, action: BoardAction): BoardView {
  switch (action.type) {
    case "connected":
      return { ...state, connected: true };
    case "disconnected":
      return state.connected ? { ...state, connected: false } : state;
    case "calls":
      // A fresh snapshot (also after a reconnect) replaces whatever the list held.
      return { ...state, loaded: true, calls: [...action.calls].sort(byStart) };
    case "call_updated": {
      const others = state.calls.filter((c) => c.callId !== action.call.callId);
      return { ...state, calls: [...others, action.call].sort(byStart) };
    }
    case "call_removed": {
      if (!state.calls.some((c) => c.callId === action.callId)) return state;
      return { ...state, calls: state.calls.filter((c) => c.callId !== action.callId) };
    }
  }
}

/** Reconnect delays of the board socket: 0.5 s, 1 s, 2 s, … capped at 10 s; back to the start once it opens. */
export function reconnectDelayMs(attempt: number): number {
  return Math.min(10_000, 500 * 2 ** Math.max(0, attempt));
}

// ---------------------------------------------------------------------------
// One watched call

export interface WatchView {
  /** Null until the `watching` snapshot. */
  call: LiveCallSummary | null;
  /** The server's transcript by index (holes stay undefined). */
  entries: Array<TranscriptEntry | undefined>;
  control: SupervisorControl | null;
  /** Rate of the binary PCM16 frames both ways. */
  sampleRate: number | null;
  /** The server said the call is over, and why. */
  ended: { reason: string } | null;
  /** The socket closed without that (refused, or the connection dropped): what to tell the supervisor. */
  lost: string | null;
}

export type WatchAction = Exclude<CallServerMessage, { type: "error" }> | { type: "closed"; reason: string } | { type: "reset" };

export const initialWatch: WatchView = { call: null, entries: [], control: null, sampleRate: null, ended: null, lost: null };

/** Nothing more can be done on this call from here. */
export const isOver = (view: WatchView) => view.ended !== null || view.lost !== null;

export function watchReducer(state: WatchView, action: WatchAction): WatchView {
  switch (action.type) {
    case "reset":
      return initialWatch;
    case "watching":
      return {
        call: action.call,
        entries: action.transcript.map((entry) => entry ?? undefined),
        control: action.control,
        sampleRate: action.sampleRate,
        ended: null,
        lost: null,
      };
    case "transcript":
    case "transcript_delta":
      return withTranscript(state, action);
    case "call_updated":
      return { ...state, call: action.call };
    case "control":
      return { ...state, control: action.control };
    case "ended":
      return { ...state, ended: { reason: action.reason }, control: state.control && { ...state.control, listening: false, youHaveControl: false } };
    case "closed":
      // A close without `ended` (the call finished before the socket opened, the server went away).
      return state.ended ? state : { ...state, lost: action.reason };
  }
}

/** The transcript as shown: entries in index order, holes skipped, keyed by index. */
export function watchRows(entries: ReadonlyArray<TranscriptEntry | undefined>): Array<{ key: number; entry: TranscriptEntry }> {
  const rows: Array<{ key: number; entry: TranscriptEntry }> = [];
  entries.forEach((entry, key) => entry && rows.push({ key, entry }));
  return rows;
}

/** What a supervisor may do now, and why not (the Take over button's explanation). */
export function takeOverState(view: WatchView): { canTakeOver: boolean; canHandBack: boolean; blockedBy: string | null } {
  const control = view.control;
  if (!control || isOver(view)) return { canTakeOver: false, canHandBack: false, blockedBy: null };
  if (control.youHaveControl) return { canTakeOver: false, canHandBack: true, blockedBy: null };
  if (control.takenOverBy) return { canTakeOver: false, canHandBack: false, blockedBy: control.takenOverBy };
  return { canTakeOver: true, canHandBack: false, blockedBy: null };
}
