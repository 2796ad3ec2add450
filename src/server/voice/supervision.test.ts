import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { STUCK_SILENCE_MS, type LiveCallSummary } from "../../shared/live.ts";
import { CallSupervision, SUMMARY_INTERVAL_MS, type SupervisedCall } from "./supervision.ts";
import { ListenMixer } from "./supervision-audio.ts";
import { TranscriptBuilder } from "./transcript.ts";

/** The supervision's own rules (stuck badges, update pace, mixing), fed by a real TranscriptBuilder. */

const noCall: SupervisedCall = {
  instruct: () => true,
  silence() {},
  resume() {},
  heardCallerWhileSilenced: () => true,
  speak() {},
  note() {},
  end() {},
  transcript: () => [],
  toolsUsed: () => [],
};

function supervised() {
  const supervision = new CallSupervision(
    { organizationId: "u1", assistant: { id: "a1", name: "Ava" }, kind: "test", callerNumber: null, calledNumber: null, sampleRate: 24_000 },
    noCall,
  );
  const transcript = new TranscriptBuilder(Date.now, (change) => supervision.transcriptChanged(change));
  const pushed: LiveCallSummary[] = [];
  supervision.subscribe({ changed: (_s, summary) => pushed.push(summary), removed() {} });
  supervision.begin("call-1", Date.now());
  return { supervision, transcript, pushed };
}

const toolData = { callId: "c1", toolName: "lookup" };

describe("CallSupervision", () => {
  beforeEach(() => vi.useFakeTimers({ now: new Date("2026-11-22T12:00:00Z") }));
  afterEach(() => vi.useRealTimers());

  it("flags three assistant turns without the caller, a failed tool until one succeeds, and silence after 15 s", () => {
    const { supervision, transcript } = supervised();
    transcript.assistantPiece("One.", "i1");
    vi.advanceTimersByTime(3000);
    transcript.assistantPiece("Two.", "i2");
    vi.advanceTimersByTime(3000);
    expect(supervision.summary().stuck).toEqual([]);
    transcript.assistantPiece("Three.", "i3");
    expect(supervision.summary().stuck).toEqual(["assistantTurns"]);
    transcript.user("Sorry?");
    expect(supervision.summary().stuck).toEqual([]);
    expect(supervision.summary().lastSaid).toEqual({ speaker: "caller", text: "Sorry?" });

    transcript.toolResponse("lookup failed", { error: "boom" }, toolData, true);
    expect(supervision.summary().stuck).toEqual(["toolError"]);
    transcript.toolResponse("lookup ok", { ok: true }, toolData);
    expect(supervision.summary().stuck).toEqual([]);

    vi.advanceTimersByTime(STUCK_SILENCE_MS);
    expect(supervision.summary().stuck).toEqual(["silence"]);
  });

  it("pushes the summary at most every 250 ms, the last change included, and a silence badge when it appears", () => {
    const { transcript, pushed } = supervised();
    const before = pushed.length;
    for (let i = 0; i < 20; i += 1) {
      transcript.assistantPiece(`word${i} `, "i1");
      vi.advanceTimersByTime(10);
    }
    // 200 ms of deltas: at most one push now and one when the interval ends.
    expect(pushed.length - before).toBeLessThanOrEqual(1);
    vi.advanceTimersByTime(SUMMARY_INTERVAL_MS);
    expect(pushed.at(-1)!.lastSaid!.text).toContain("word19");
    const quiet = pushed.length;
    vi.advanceTimersByTime(STUCK_SILENCE_MS);
    expect(pushed.length).toBe(quiet + 1);
    expect(pushed.at(-1)!.stuck).toEqual(["silence"]);
  });
});

describe("ListenMixer", () => {
  it("mixes each caller chunk with as much heard audio, paced by the caller, and drops the queue on clear", () => {
    const mixer = new ListenMixer(8000, () => 0);
    mixer.heard(Int16Array.from([100, 200, 300, 30_000]));
    const first = mixer.caller(Int16Array.from([1, 2]));
    expect([...new Int16Array(first.mixed.buffer, first.mixed.byteOffset, 2)]).toEqual([101, 202]);
    expect([...new Int16Array(first.caller.buffer, first.caller.byteOffset, 2)]).toEqual([1, 2]);
    const second = mixer.caller(Int16Array.from([5, 10_000]));
    expect([...new Int16Array(second.mixed.buffer, second.mixed.byteOffset, 2)]).toEqual([305, 32_767]);
    mixer.heard(Int16Array.from([7, 7]));
    mixer.clear();
    const third = mixer.caller(Int16Array.from([1, 1]));
    expect([...new Int16Array(third.mixed.buffer, third.mixed.byteOffset, 2)]).toEqual([1, 1]);
  });
});
