import { describe, expect, it } from "vitest";
import { LIVE_CALL_TEXTS, type TranscriptEntry } from "@shared/calls";
import { callReducer, initialCallView, MIC_DENIED_STATUS, NOT_CONNECTED, transcriptRows, type CallAction, type CallView } from "./call-state";

const run = (...actions: CallAction[]): CallView => actions.reduce(callReducer, initialCallView);
const said = (type: TranscriptEntry["type"], content: string): TranscriptEntry => ({ type, content, timestamp: "2026-11-22T10:00:00.000Z" });
const lines = (view: CallView) => transcriptRows(view.entries, view.local).map((r) => r.entry.content);
const live: CallAction[] = [{ type: "starting" }, { type: "opened", at: 1_000 }, { type: "status", state: "active", text: "Connected to Ava" }];

describe("the call-state reducer", () => {
  it("goes not connected → connecting → active → ended on the server's word", () => {
    expect(run()).toMatchObject({ phase: "idle", status: NOT_CONNECTED });
    expect(run({ type: "starting" })).toMatchObject({ phase: "connecting", status: "Connecting..." });
    const active = run(...live, { type: "started", callId: "call-1" });
    expect(active).toMatchObject({ phase: "active", status: "Connected to Ava", startedAt: 1_000, callId: "call-1" });
    const ended = run(...live, { type: "ending" }, { type: "ended", outcome: { reason: "User ended call", durationMs: 4_000, cost: 0.01 } });
    expect(ended).toMatchObject({ phase: "ended", ending: false, outcome: { reason: "User ended call", durationMs: 4_000, cost: 0.01 } });
  });

  it("starting again clears the previous call", () => {
    const before = run(...live, { type: "transcript", index: 0, entry: said("user", "Hi") }, { type: "mic", on: false });
    expect(callReducer(before, { type: "starting" })).toEqual({ ...initialCallView, phase: "connecting", status: "Connecting..." });
  });

  it("keeps an ended call ended whatever status arrives late, and ignores statuses before any start", () => {
    const ended = run(...live, { type: "ended", outcome: { reason: "Call completed", durationMs: 1, cost: 0 } });
    expect(callReducer(ended, { type: "status", state: "active", text: "Late" })).toBe(ended);
    expect(run({ type: "status", state: "active", text: "Stray" })).toBe(initialCallView);
  });

  it("marks ending only while live", () => {
    expect(run(...live, { type: "ending" }).ending).toBe(true);
    expect(run({ type: "ending" })).toBe(initialCallView);
  });

  it("a refused microphone leaves the panel idle with the error line and status", () => {
    const view = run({ type: "starting" }, { type: "mic-denied", line: "Microphone access is required" });
    expect(view).toMatchObject({ phase: "idle", status: MIC_DENIED_STATUS });
    expect(view.local.map((l) => l.entry)).toMatchObject([{ type: "system", content: "Microphone access is required", isError: true }]);
  });

  it("a failed start is idle again with its notice, and a line only when given one", () => {
    const notice = { title: LIVE_CALL_TEXTS.startFailed, message: "No key", settingsLink: true };
    expect(run({ type: "starting" }, { type: "start-failed", notice })).toMatchObject({ phase: "idle", status: NOT_CONNECTED, notice, local: [] });
    expect(lines(run({ type: "starting" }, { type: "start-failed", notice: null, line: "Mic broke" }))).toEqual(["Mic broke"]);
  });

  it("fills transcript entries by index and appends deltas to the entry they belong to", () => {
    const view = run(
      ...live,
      { type: "transcript", index: 1, entry: said("assistant", "Hel") },
      { type: "transcript-delta", index: 1, text: "lo" },
      { type: "transcript-delta", index: 5, text: "lost" },
      { type: "transcript", index: 0, entry: said("user", "Hi") },
    );
    expect(lines(view)).toEqual(["Hi", "Hello"]);
  });

  it("a socket error while live adds one error line; before any start it changes nothing", () => {
    expect(run({ type: "starting" }, { type: "socket-error", opened: false })).toMatchObject({ status: "Connection failed", local: [{ entry: { content: "Connection failed", isError: true } }] });
    expect(run(...live, { type: "socket-error", opened: true }).status).toBe("Connection error");
    expect(run({ type: "socket-error", opened: true })).toBe(initialCallView);
  });

  it("a normal close of a live call ends it and says Session ended normally once", () => {
    const closed = run(...live, { type: "closed", code: 1000, reason: "bye", opened: true });
    expect(closed).toMatchObject({ phase: "ended", status: "Disconnected (1000) - bye" });
    expect(lines(closed)).toEqual([LIVE_CALL_TEXTS.sessionEndedNormally]);
    // The server said it already: not twice.
    const echoed = run(...live, { type: "transcript", index: 0, entry: said("system", LIVE_CALL_TEXTS.sessionEndedNormally) }, { type: "closed", code: 1000, reason: "", opened: true });
    expect(lines(echoed)).toEqual([LIVE_CALL_TEXTS.sessionEndedNormally]);
  });

  it("after the server's Call completed, the 1000 close adds the line but keeps the status; after a failure it adds nothing", () => {
    const ended = (status: string) =>
      run(...live, { type: "status", state: "ended", text: status }, { type: "ended", outcome: { reason: status, durationMs: 1, cost: 0 } }, { type: "closed", code: 1000, reason: "", opened: true });
    expect(ended(LIVE_CALL_TEXTS.callCompleted)).toMatchObject({ status: LIVE_CALL_TEXTS.callCompleted });
    expect(lines(ended(LIVE_CALL_TEXTS.callCompleted))).toEqual([LIVE_CALL_TEXTS.sessionEndedNormally]);
    expect(lines(ended("Connection failed: 401"))).toEqual([]);
  });

  it("a socket that never opened keeps its Connection failed status when it closes", () => {
    const view = run({ type: "starting" }, { type: "socket-error", opened: false }, { type: "closed", code: 1006, reason: "", opened: false });
    expect(view).toMatchObject({ phase: "ended", status: "Connection failed" });
  });
});

describe("transcript rows", () => {
  it("puts server entries in index order, skips holes, and places local lines after the entries they followed", () => {
    const entries = [said("user", "a"), undefined, said("assistant", "c")];
    const local = [
      { entry: said("system", "before all"), after: 0 },
      { entry: said("system", "after c"), after: 3 },
    ];
    expect(transcriptRows(entries, local)).toEqual([
      { key: "local-0", entry: local[0]!.entry },
      { key: "entry-0", entry: entries[0] },
      { key: "entry-2", entry: entries[2] },
      { key: "local-1", entry: local[1]!.entry },
    ]);
  });

  it("shows local lines alone when the server sent nothing", () => {
    expect(transcriptRows([], [{ entry: said("system", "x"), after: 0 }]).map((r) => r.key)).toEqual(["local-0"]);
  });
});
