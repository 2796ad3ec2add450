import { describe, expect, it } from "vitest";
import { callDuration, callDurationMs, callStatus, callType, callVersionLabel, formatCost, NO_TALK_TIME } from "./call-records.ts";

describe("callType", () => {
  it("is Test, Real or Unknown from logs.isTest", () => {
    expect(callType({ isTest: true })).toBe("Test");
    expect(callType({ isTest: false })).toBe("Real");
    expect(callType({ transcript: [] })).toBe("Unknown");
    expect(callType(null)).toBe("Unknown");
  });
});

describe("callStatus", () => {
  it("is In progress without an end time, whatever the reason says", () => {
    expect(callStatus({ end_time: null, ended_reason: null })).toEqual({ label: "In progress", kind: "in-progress" });
    expect(callStatus({ end_time: null, ended_reason: "Connection error" })).toEqual({ label: "In progress", kind: "in-progress" });
  });

  it("is Queued or Ringing, not In progress, while an outbound call waits for its callee; answered, In progress", () => {
    expect(callStatus({ end_time: null, ended_reason: null, twilio_status: "queued" })).toEqual({ label: "Queued", kind: "waiting" });
    expect(callStatus({ end_time: null, ended_reason: null, twilio_status: "initiated" })).toEqual({ label: "Queued", kind: "waiting" });
    expect(callStatus({ end_time: null, ended_reason: null, twilio_status: "ringing" })).toEqual({ label: "Ringing", kind: "waiting" });
    expect(callStatus({ end_time: null, ended_reason: null, twilio_status: "in-progress" })).toEqual({ label: "In progress", kind: "in-progress" });
  });

  it("shows no duration and no version for a phone call that never connected", () => {
    const start_time = "2026-03-14T15:00:00.000Z";
    const later = Date.parse(start_time) + 90_000;
    expect(callDuration({ start_time, end_time: null, twilio_status: "ringing" }, later)).toBe(NO_TALK_TIME);
    expect(callDuration({ start_time, end_time: start_time, twilio_status: "no-answer" }, later)).toBe(NO_TALK_TIME);
    expect(callDuration({ start_time, end_time: null, twilio_status: "in-progress" }, later)).toBe("1:30");
    expect(callVersionLabel({ assistant_version: null, type: "Real" })).toBe(NO_TALK_TIME);
    expect(callVersionLabel({ assistant_version: null, type: "Test" })).toBe("Draft");
    expect(callVersionLabel({ assistant_version: 3, type: "Real" })).toBe("v3");
  });

  it("is the ended reason, or Completed without one", () => {
    const end_time = "2026-03-14T15:05:00.000Z";
    expect(callStatus({ end_time, ended_reason: null })).toEqual({ label: "Completed", kind: "completed" });
    expect(callStatus({ end_time, ended_reason: "  " })).toEqual({ label: "Completed", kind: "completed" });
    expect(callStatus({ end_time, ended_reason: "User ended call" })).toEqual({ label: "User ended call", kind: "other" });
    expect(callStatus({ end_time, ended_reason: "Connection error" })).toEqual({ label: "Connection error", kind: "error" });
    expect(callStatus({ end_time, ended_reason: "Failed to start call" })).toEqual({ label: "Failed to start call", kind: "error" });
    expect(callStatus({ end_time, ended_reason: "completed" })).toEqual({ label: "completed", kind: "completed" });
  });
});

describe("call duration", () => {
  const start_time = "2026-03-14T15:04:05.000Z";
  it("runs from start to end as m:ss", () => {
    expect(callDuration({ start_time, end_time: "2026-03-14T15:05:17.900Z" }, 0)).toBe("1:12");
    expect(callDuration({ start_time, end_time: "2026-03-14T16:05:06.000Z" }, 0)).toBe("61:01");
  });

  it("runs to now while the call is in progress", () => {
    const now = Date.parse(start_time) + 9_500;
    expect(callDurationMs({ start_time, end_time: null }, now)).toBe(9_500);
    expect(callDuration({ start_time, end_time: null }, now)).toBe("0:09");
  });

  it("is 0:00 for unreadable or reversed times", () => {
    expect(callDuration({ start_time: "nonsense", end_time: null }, Date.now())).toBe("0:00");
    expect(callDuration({ start_time, end_time: "2026-03-14T15:00:00.000Z" }, 0)).toBe("0:00");
  });
});

describe("formatCost", () => {
  it("shows dollars with 2 decimals, N/A when unknown", () => {
    expect(formatCost(0.05)).toBe("$0.05");
    expect(formatCost(0.1)).toBe("$0.10");
    expect(formatCost(3)).toBe("$3.00");
    expect(formatCost(null)).toBe("N/A");
  });
});
