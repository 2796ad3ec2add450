import { describe, expect, it } from "vitest";
import { PlaybackLedger } from "./playback.ts";

describe("PlaybackLedger", () => {
  it("truncates the latest item at what was played, never beyond what was sent", () => {
    const ledger = new PlaybackLedger();
    ledger.sent("a", 500);
    ledger.played("a", 300);
    ledger.played("a", 200); // never backwards
    ledger.played("a", 900); // never beyond what was sent
    ledger.sent("a", 500);
    expect(ledger.interrupt()).toEqual({ itemId: "a", playedMs: 500 });
    expect(ledger.isInterrupted("a")).toBe(true);
    expect(ledger.interrupt()).toBeNull();
  });

  it("leaves an item heard in full alone, but not one still being generated", () => {
    const ledger = new PlaybackLedger();
    ledger.sent("a", 400);
    ledger.played("a", 400);
    expect(ledger.interrupt()).toEqual({ itemId: "a", playedMs: 400 });
    ledger.sent("b", 400);
    ledger.audioDone("b");
    ledger.played("b", 400);
    expect(ledger.interrupt()).toBeNull();
    expect(new PlaybackLedger().interrupt()).toBeNull();
  });
});
