import { describe, expect, it } from "vitest";
import { isSessionEndedClose, SESSION_ENDED_CLOSE } from "./auth.ts";

describe("isSessionEndedClose", () => {
  it("is the sign-in session's end, not a test call's expired single-use id (same code)", () => {
    expect(isSessionEndedClose(SESSION_ENDED_CLOSE.code, SESSION_ENDED_CLOSE.reason)).toBe(true);
    expect(isSessionEndedClose(4401, "Call session expired")).toBe(false);
    expect(isSessionEndedClose(1006, "")).toBe(false);
    expect(isSessionEndedClose(1000, SESSION_ENDED_CLOSE.reason)).toBe(false);
  });
});
