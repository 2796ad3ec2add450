import { describe, expect, it } from "vitest";
import type { ToolUse } from "../../shared/calls.ts";
import { CallProgress } from "./call-progress.ts";
import { TranscriptBuilder } from "./transcript.ts";

describe("a call's progress saves", () => {
  it("write only the entries changed since the last save, each tool call once, cleaned for the database", () => {
    let progress!: CallProgress;
    let now = 0;
    const transcript = new TranscriptBuilder(() => now, (change) => progress.slotChanged(change.index));
    const tools: ToolUse[] = [];
    progress = new CallProgress((slot) => transcript.entryAt(slot), () => tools);

    transcript.assistantPiece("Hello");
    transcript.reserveUser("u1");
    expect(progress.take().map((e) => [e.kind, e.position, "content" in e.body ? e.body.content : null])).toEqual([["transcript", 0, "Hello"]]);
    expect(progress.take()).toEqual([]);

    // A late transcription fills the reserved slot; a new answer starts a later one.
    now = 5000;
    transcript.fillUser("u1", "Where is my order\u0000?");
    transcript.assistantPiece("On its way.");
    tools.push({ name: "Lookup", id: "t1", parameters: {}, result: "ok", timestamp: "2026-11-25T10:00:00.000Z" });
    const second = progress.take();
    expect(second.map((e) => [e.kind, e.position])).toEqual([["transcript", 1], ["transcript", 2], ["tool", 0]]);
    expect(second[0]!.body).toMatchObject({ type: "user", content: "Where is my order?" });
    expect(progress.take()).toEqual([]);
  });
});
