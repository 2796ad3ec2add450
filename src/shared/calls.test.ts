import { describe, expect, it } from "vitest";
import {
  callCost,
  callLogsSchema,
  medianTurnLatency,
  clientMessageSchema,
  formatDuration,
  serverMessageSchema,
  transcriptEntrySchema,
} from "./calls.ts";

const s = (seconds: number) => seconds * 1000;

describe("callCost", () => {
  it.each([
    [0, 0.05],
    [1, 0.05],
    [59, 0.05],
    [60, 0.05],
    [61, 0.06],
    [72, 0.06],
    [73, 0.07],
    [84, 0.07],
    [85, 0.08],
    [96, 0.08],
    [97, 0.09],
    [120, 0.1],
    [121, 0.11],
    [600, 0.5],
    [3600, 3],
  ])("%i s costs $%s", (seconds, cost) => {
    expect(callCost(s(seconds))).toBe(cost);
  });

  it("bills whole seconds, rounded down", () => {
    expect(callCost(60_999)).toBe(0.05);
    expect(callCost(72_999)).toBe(0.06);
    expect(callCost(73_000)).toBe(0.07);
  });

  it("treats negative and non-finite durations as 0 s", () => {
    expect(callCost(-5000)).toBe(0.05);
    expect(callCost(Number.NaN)).toBe(0.05);
  });

  it("is exact to the cent (no float noise)", () => {
    for (let seconds = 0; seconds <= 7200; seconds += 1) {
      const cost = callCost(s(seconds));
      expect(Math.round(cost * 100) / 100).toBe(cost);
    }
  });
});

describe("formatDuration", () => {
  it.each([
    [0, "0:00"],
    [999, "0:00"],
    [1000, "0:01"],
    [59_999, "0:59"],
    [60_000, "1:00"],
    [73_000, "1:13"],
    [3_665_000, "61:05"],
    [-1, "0:00"],
  ])("%i ms is %s", (ms, text) => {
    expect(formatDuration(ms)).toBe(text);
  });
});

describe("schemas", () => {
  it("accepts a tool-request entry and rejects an unknown type", () => {
    const entry = {
      type: "tool-request",
      content: "Calling Get Weather",
      timestamp: new Date(0).toISOString(),
      parameters: { city: "Paris" },
      toolData: { toolName: "Get Weather", toolId: "t1", callId: "call_1" },
    };
    expect(transcriptEntrySchema.parse(entry)).toEqual(entry);
    expect(transcriptEntrySchema.safeParse({ ...entry, type: "bot" }).success).toBe(false);
  });

  it("defaults toolsUsed in logs", () => {
    expect(callLogsSchema.parse({ isTest: true, transcript: [] })).toEqual({ isTest: true, transcript: [], toolsUsed: [] });
  });

  it("parses the browser's control messages", () => {
    expect(clientMessageSchema.parse({ type: "end" })).toEqual({ type: "end" });
    expect(clientMessageSchema.parse({ type: "end", reason: "Sheet closed" })).toEqual({ type: "end", reason: "Sheet closed" });
    expect(clientMessageSchema.safeParse({ type: "end", reason: "whatever" }).success).toBe(false);
    expect(clientMessageSchema.parse({ type: "playback", itemId: "item_1", playedMs: 120 }).type).toBe("playback");
    expect(clientMessageSchema.safeParse({ type: "playback", itemId: "item_1", playedMs: -1 }).success).toBe(false);
    expect(clientMessageSchema.safeParse({ type: "user_text" }).success).toBe(false);
  });

  it("parses the server's control messages", () => {
    expect(serverMessageSchema.parse({ type: "clear" })).toEqual({ type: "clear" });
    expect(serverMessageSchema.parse({ type: "status", state: "active", text: "Connected to Ava" }).type).toBe("status");
    expect(serverMessageSchema.safeParse({ type: "status", state: "ringing", text: "x" }).success).toBe(false);
  });
});

describe("medianTurnLatency", () => {
  it("takes the middle turn's end of speech → first audio sent, the mean of the two middle ones for an even count, and skips turns never answered", () => {
    expect(medianTurnLatency([{ firstAudioSentMs: 900 }, { firstAudioSentMs: 300 }, { firstAudioSentMs: 500 }])).toBe(500);
    expect(medianTurnLatency([{ firstAudioSentMs: 400 }, {}, { firstAudioSentMs: 600 }])).toBe(500);
    expect(medianTurnLatency([{}])).toBeNull();
    expect(medianTurnLatency([])).toBeNull();
  });
  it("parses an older record without turns", () => {
    expect(callLogsSchema.parse({ isTest: false, transcript: [] }).turns).toBeUndefined();
  });
});
