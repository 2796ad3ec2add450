import { describe, expect, it } from "vitest";
import type { TranscriptEntry } from "../../shared/calls.ts";
import { MERGE_WINDOW_MS, TranscriptBuilder } from "./transcript.ts";

function setup() {
  let t = Date.UTC(2026, 0, 1);
  const changes: Array<[number, TranscriptEntry | string]> = [];
  const builder = new TranscriptBuilder(
    () => t,
    (change) => changes.push([change.index, change.kind === "set" ? change.entry : change.text]),
  );
  return { builder, changes, advance: (ms: number) => (t += ms) };
}

describe("TranscriptBuilder", () => {
  it("merges assistant pieces less than 2 s apart", () => {
    const { builder, changes, advance } = setup();
    builder.assistantPiece("Hello", "a1");
    advance(1999);
    builder.assistantPiece(" there", "a1");
    advance(1999);
    builder.assistantPiece(", friend.", "a2");
    expect(builder.entries()).toMatchObject([{ type: "assistant", content: "Hello there, friend." }]);
    expect(changes.map(([index]) => index)).toEqual([0, 0, 0]);
    // The entry once, then only the appended pieces: traffic grows with the text, not its square.
    expect(changes.map(([, change]) => (typeof change === "string" ? change : change.content))).toEqual(["Hello", " there", ", friend."]);
    expect(builder.entries()[0]!.timestamp).toBe(new Date(Date.UTC(2026, 0, 1)).toISOString());
  });

  it("starts a new entry when pieces are 2 s or more apart", () => {
    const { builder, advance } = setup();
    builder.assistantPiece("One.", "a1");
    advance(MERGE_WINDOW_MS);
    builder.assistantPiece("Two.", "a1");
    advance(5000);
    builder.assistantPiece("Three.", "a2");
    expect(builder.entries().map((e) => e.content)).toEqual(["One.", "Two.", "Three."]);
  });

  it("does not merge across another entry", () => {
    const { builder } = setup();
    builder.assistantPiece("Hi.");
    builder.user("Hello");
    builder.assistantPiece("How can I help?");
    expect(builder.entries().map((e) => e.type)).toEqual(["assistant", "user", "assistant"]);
  });

  it("keeps a late user transcription before the reply it triggered", () => {
    const { builder, changes } = setup();
    builder.assistantPiece("Hi, how can I help?", "a1");
    builder.reserveUser("u1");
    builder.assistantPiece("Sure, ", "a2");
    builder.fillUser("u1", " Where is my order? ");
    expect(builder.entries().map((e) => [e.type, e.content])).toEqual([
      ["assistant", "Hi, how can I help?"],
      ["user", "Where is my order?"],
      ["assistant", "Sure, "],
    ]);
    expect(changes.map(([index]) => index)).toEqual([0, 2, 1]);
  });

  it("drops a user turn whose transcription is empty, and appends one it never reserved", () => {
    const { builder } = setup();
    builder.reserveUser("u1");
    builder.fillUser("u1", "   ");
    builder.fillUser("u2", "Hello");
    expect(builder.entries()).toMatchObject([{ type: "user", content: "Hello" }]);
  });

  it("marks an interrupted assistant entry and starts the next piece afresh", () => {
    const { builder } = setup();
    builder.assistantPiece("A long answer that goes on", "a1");
    builder.markInterrupted("a1", 812.4);
    builder.assistantPiece("Yes?", "a2");
    expect(builder.entries()).toMatchObject([
      { type: "assistant", content: "A long answer that goes on", interruptedAtMs: 812 },
      { type: "assistant", content: "Yes?" },
    ]);
  });

  it("uses a done transcript only when nothing was streamed", () => {
    const { builder } = setup();
    builder.assistantPiece("Streamed", "a1");
    builder.assistantDone("a1", "Streamed");
    builder.system("divider");
    builder.assistantDone("a2", "Only done");
    expect(builder.entries().map((e) => e.content)).toEqual(["Streamed", "divider", "Only done"]);
  });

  it("records tool entries and errors", () => {
    const { builder } = setup();
    const toolData = { toolName: "Get Weather", toolId: "t1", callId: "call_1" };
    builder.toolRequest("Calling tool Get Weather", { city: "Paris" }, toolData);
    builder.toolResponse("Get Weather failed", { error: "boom" }, toolData, true);
    builder.system("Error from the provider: bad", true);
    expect(builder.entries()).toMatchObject([
      { type: "tool-request", parameters: { city: "Paris" }, toolData },
      { type: "tool-response", result: { error: "boom" }, isError: true },
      { type: "system", isError: true },
    ]);
    expect(builder.entries()[0]).not.toHaveProperty("isError");
  });

  it("keeps the interruption mark of an item cut before its first text, and applies it when the text comes", () => {
    const { builder } = setup();
    builder.markInterrupted("a1", 320.4);
    builder.assistantDone("a1", "Sure, let me");
    expect(builder.entries()).toMatchObject([{ type: "assistant", content: "Sure, let me", interruptedAtMs: 320 }]);
  });

  it("closes a cut entry at the barge-in: the next turn never joins it, even before the truncation is confirmed", () => {
    const { builder } = setup();
    builder.assistantPiece("A long answer", "a1");
    builder.cutOff(["a1"]);
    builder.assistantPiece("Okay.", "a2");
    builder.markInterrupted("a1", 420);
    expect(builder.entries()).toMatchObject([
      { type: "assistant", content: "A long answer", interruptedAtMs: 420 },
      { type: "assistant", content: "Okay." },
    ]);
  });

  it("holds the place of an item cut before its first text, before the caller's words", () => {
    const { builder } = setup();
    builder.user("Tell me something.");
    builder.cutOff(["a1"]);
    builder.reserveUser("u1");
    builder.fillUser("u1", "Wait, stop.");
    builder.assistantDone("a1", "Sure, let me");
    builder.assistantPiece("Okay.", "a2");
    builder.markInterrupted("a1", 50);
    expect(builder.entries()).toMatchObject([
      { type: "user", content: "Tell me something." },
      { type: "assistant", content: "Sure, let me", interruptedAtMs: 50 },
      { type: "user", content: "Wait, stop." },
      { type: "assistant", content: "Okay." },
    ]);
  });
});
