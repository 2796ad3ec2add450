import { describe, expect, it } from "vitest";
import type { LiveCallSummary, SupervisorControl } from "@shared/live";
import { boardReducer, initialBoard, initialWatch, reconnectDelayMs, takeOverState, watchReducer, watchRows, type WatchView } from "./live-state";

function summary(callId: string, startedAt: string, extra: Partial<LiveCallSummary> = {}): LiveCallSummary {
  return {
    callId,
    assistant: { id: "a1", name: "Ava" },
    kind: "phone",
    callerNumber: "+14155550123",
    calledNumber: "+14155550188",
    startedAt,
    lastSaid: null,
    stuck: [],
    takenOverBy: null,
    bridgedTo: null,
    watchers: 0,
    ...extra,
  };
}

const control = (extra: Partial<SupervisorControl> = {}): SupervisorControl => ({ takenOverBy: null, youHaveControl: false, listening: false, watchers: 1, ...extra });
const at = (s: number) => new Date(Date.UTC(2026, 10, 22, 20, 0, s)).toISOString();

describe("board list", () => {
  it("is not loaded until the first snapshot, which it keeps oldest first", () => {
    expect(initialBoard.loaded).toBe(false);
    const state = boardReducer(initialBoard, { type: "calls", calls: [summary("b", at(5)), summary("a", at(1))] });
    expect(state.loaded).toBe(true);
    expect(state.calls.map((c) => c.callId)).toEqual(["a", "b"]);
  });

  it("adds a new call, replaces an updated one in place, and drops an ended one", () => {
    let state = boardReducer(initialBoard, { type: "calls", calls: [summary("a", at(1))] });
    state = boardReducer(state, { type: "call_updated", call: summary("c", at(9)) });
    state = boardReducer(state, { type: "call_updated", call: summary("a", at(1), { stuck: ["silence"], watchers: 2 }) });
    expect(state.calls.map((c) => [c.callId, c.watchers])).toEqual([
      ["a", 2],
      ["c", 0],
    ]);
    expect(state.calls[0]!.stuck).toEqual(["silence"]);
    state = boardReducer(state, { type: "call_removed", callId: "a" });
    expect(state.calls.map((c) => c.callId)).toEqual(["c"]);
    // Removing what is not there changes nothing (an update raced the removal).
    expect(boardReducer(state, { type: "call_removed", callId: "zz" })).toBe(state);
  });

  it("a snapshot after a reconnect replaces the stale list", () => {
    let state = boardReducer(initialBoard, { type: "calls", calls: [summary("a", at(1)), summary("b", at(2))] });
    state = boardReducer(state, { type: "disconnected" });
    state = boardReducer(state, { type: "calls", calls: [summary("b", at(2))] });
    expect(state.calls.map((c) => c.callId)).toEqual(["b"]);
  });

  it("backs off when reconnecting, up to a cap", () => {
    expect([0, 1, 2, 3, 10, 50].map(reconnectDelayMs)).toEqual([500, 1000, 2000, 4000, 10_000, 10_000]);
  });
});

describe("watched call", () => {
  const watching = (extra: Partial<SupervisorControl> = {}): WatchView =>
    watchReducer(initialWatch, {
      type: "watching",
      call: summary("a", at(1)),
      transcript: [{ type: "assistant", content: "Hello", timestamp: at(1) }, null],
      toolsUsed: [],
      control: control(extra),
      sampleRate: 8000,
    });

  it("keeps the snapshot's indexes, then applies entries and deltas by index", () => {
    let state = watching();
    expect(state.sampleRate).toBe(8000);
    state = watchReducer(state, { type: "transcript", index: 2, entry: { type: "user", content: "Where is", timestamp: at(3) } });
    state = watchReducer(state, { type: "transcript_delta", index: 2, text: " my order?" });
    state = watchReducer(state, {
      type: "transcript",
      index: 3,
      entry: { type: "system", content: "Supervisor: offer a refund", timestamp: at(4), supervisor: { name: "Ada", action: "guide" } },
    });
    expect(watchRows(state.entries).map((r) => [r.key, r.entry.content])).toEqual([
      [0, "Hello"],
      [2, "Where is my order?"],
      [3, "Supervisor: offer a refund"],
    ]);
  });

  it("says who may take over: nobody has it, I have it, someone else has it, the call ended", () => {
    expect(takeOverState(watching())).toEqual({ canTakeOver: true, canHandBack: false, blockedBy: null });
    expect(takeOverState(watching({ takenOverBy: "Me", youHaveControl: true }))).toEqual({ canTakeOver: false, canHandBack: true, blockedBy: null });
    expect(takeOverState(watching({ takenOverBy: "Ada" }))).toEqual({ canTakeOver: false, canHandBack: false, blockedBy: "Ada" });
    const ended = watchReducer(watching({ takenOverBy: "Me", youHaveControl: true, listening: true }), { type: "ended", callId: "a", reason: "Ended by supervisor" });
    expect(ended.ended).toEqual({ reason: "Ended by supervisor" });
    expect(takeOverState(ended)).toEqual({ canTakeOver: false, canHandBack: false, blockedBy: null });
    expect(ended.control?.listening).toBe(false);
  });

  it("a close after `ended` keeps the ended reason; a close without one is a lost connection, not an end", () => {
    const ended = watchReducer(watching(), { type: "ended", callId: "a", reason: "Caller hung up" });
    expect(watchReducer(ended, { type: "closed", reason: "gone" })).toMatchObject({ ended: { reason: "Caller hung up" }, lost: null });
    const lost = watchReducer(watching(), { type: "closed", reason: "Connection lost" });
    expect(lost).toMatchObject({ ended: null, lost: "Connection lost" });
    expect(takeOverState(lost).canTakeOver).toBe(false);
  });
});
