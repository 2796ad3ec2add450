import { describe, expect, it } from "vitest";
import type { TranscriptEntry } from "@shared/calls";
import { formatEntryTime, prettyJson } from "./format";
import { interruptionText, toolJsonOf, withDelta, withEntry, withTranscript } from "./transcript";

const at = "2026-11-22T15:04:05.000Z";
const entry = (fields: Partial<TranscriptEntry> & Pick<TranscriptEntry, "type">): TranscriptEntry => ({ content: "x", timestamp: at, ...fields });

describe("what a transcript entry shows", () => {
  it("a tool request shows its Parameters and a response its Result, JSON text unfolded; other entries none", () => {
    expect(toolJsonOf(entry({ type: "tool-request", parameters: { order_id: "42" } }))).toEqual({ label: "Parameters", json: '{\n  "order_id": "42"\n}' });
    expect(toolJsonOf(entry({ type: "tool-request" }))).toEqual({ label: "Parameters", json: "{}" });
    expect(toolJsonOf(entry({ type: "tool-response", result: '{"status":"shipped"}' }))).toEqual({ label: "Result", json: '{\n  "status": "shipped"\n}' });
    expect(toolJsonOf(entry({ type: "tool-response" }))).toEqual({ label: "Result", json: "null" });
    expect(toolJsonOf(entry({ type: "assistant" }))).toBeNull();
  });

  it("an interrupted answer says where, to the tenth of a second", () => {
    expect(interruptionText(entry({ type: "assistant", interruptedAtMs: 1_250 }))).toBe("Interrupted after 1.3 s");
    expect(interruptionText(entry({ type: "assistant", interruptedAtMs: 0 }))).toBe("Interrupted after 0.0 s");
    expect(interruptionText(entry({ type: "assistant" }))).toBeNull();
  });

  it("JSON for people keeps text that is not JSON as it is", () => {
    expect(prettyJson("not json")).toBe("not json");
    expect(prettyJson([1])).toBe("[\n  1\n]");
  });

  it("times of day read as a clock; an unreadable one is empty", () => {
    expect(formatEntryTime(new Date(2026, 10, 22, 15, 4, 5).toISOString())).toBe("3:04:05 PM");
    expect(formatEntryTime("yesterday")).toBe("");
  });
});

describe("a live transcript, entry by entry", () => {
  it("sets an entry at its index (holes left for entries still to come) without changing the array it was given", () => {
    const before = [entry({ type: "user", content: "Hi" })];
    const after = withEntry(before, 2, entry({ type: "assistant", content: "Hello" }));
    expect(after.map((e) => e?.content)).toEqual(["Hi", undefined, "Hello"]);
    expect(before).toHaveLength(1);
  });

  it("appends a piece to the entry it belongs to, and leaves the transcript as it was for an entry never received", () => {
    const before = [entry({ type: "assistant", content: "Hel" })];
    expect(withDelta(before, 0, "lo").map((e) => e?.content)).toEqual(["Hello"]);
    expect(before[0]!.content).toBe("Hel");
    expect(withDelta(before, 3, "lo")).toBe(before);
  });

  it("gives a view's state the entry or the piece, and the same state for a piece of an entry never received", () => {
    const state = { entries: [entry({ type: "assistant", content: "Hel" })], other: 1 };
    expect(withTranscript(state, { index: 0, text: "lo" })).toEqual({ entries: [entry({ type: "assistant", content: "Hello" })], other: 1 });
    expect(withTranscript(state, { index: 1, entry: entry({ type: "user", content: "Hi" }) }).entries.map((e) => e?.content)).toEqual(["Hel", "Hi"]);
    expect(withTranscript(state, { index: 4, text: "lo" })).toBe(state);
  });
});
