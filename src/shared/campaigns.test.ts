import { describe, expect, it } from "vitest";
import { campaignActions, campaignProgress, inWindows } from "./campaigns.ts";

describe("campaign actions and progress", () => {
  it("offers what the transitions allow, a waiting campaign being a running one", () => {
    expect(campaignActions("draft")).toEqual(["start", "cancel"]);
    expect(campaignActions("running")).toEqual(["pause", "cancel"]);
    expect(campaignActions("waiting")).toEqual(["pause", "cancel"]);
    expect(campaignActions("paused")).toEqual(["resume", "cancel"]);
    expect(campaignActions("completed")).toEqual([]);
    expect(campaignActions("cancelled")).toEqual([]);
  });

  it("counts retries among the pending, not twice", () => {
    expect(campaignProgress({ pending: 3, calling: 1, completed: 2, no_answer: 1, busy: 0, failed: 1, voicemail: 0, dnc: 1, retries_scheduled: 2 })).toEqual({ total: 9, done: 5 });
  });

  it("reads windows on the zone's wall clock", () => {
    const monday15utc = new Date("2026-11-23T15:00:00Z");
    expect(inWindows([{ days: [1], start: "09:00", end: "17:00" }], "Europe/London", monday15utc)).toBe(true);
    expect(inWindows([{ days: [1], start: "09:00", end: "17:00" }], "Asia/Tokyo", monday15utc)).toBe(false);
  });
});
