/**
 * MAX_CALLS counts the calls being set up: a Twilio call's place lapses if its stream never
 * comes, a SIP call's is kept until its set-up ends, however long it rings.
 */
import { describe, expect, it } from "vitest";
import { LiveCalls, PLACE_HOLD_MS, UNTIL_RELEASED } from "./live-calls.ts";

describe("places held for calls being set up", () => {
  it("gives a stream's place back after PLACE_HOLD_MS, but keeps a SIP call's until it is released", () => {
    let now = 0;
    const lines = new LiveCalls(undefined, 2, () => now);
    expect(lines.hold("CA-stream")).toBe(true);
    expect(lines.hold("sip:ringing", UNTIL_RELEASED)).toBe(true);
    expect(lines.hold("sip:third", UNTIL_RELEASED)).toBe(false);

    now += PLACE_HOLD_MS + 1;
    expect(lines.taken).toBe(1);
    expect(lines.hold("sip:third", UNTIL_RELEASED)).toBe(true);
    expect(lines.hold("sip:fourth", UNTIL_RELEASED)).toBe(false);

    now += 10 * PLACE_HOLD_MS;
    expect(lines.hasRoom).toBe(false);
    expect(lines.unhold("sip:ringing")).toBe(true);
    expect(lines.hold("sip:fourth", UNTIL_RELEASED)).toBe(true);
  });
});
