import { describe, expect, it } from "vitest";
import { PlaybackLedger } from "./playback.ts";

describe("PlaybackLedger", () => {
  it("truncates the item being heard at min(sent, played + 50), never beyond what was sent", () => {
    const ledger = new PlaybackLedger();
    ledger.sent("a", 500);
    ledger.played("a", 300);
    ledger.played("a", 200); // never backwards
    expect(ledger.truncations(ledger.interrupt())).toEqual([{ itemId: "a", audioEndMs: 350 }]);
    expect(ledger.isInterrupted("a")).toBe(true);
    expect(ledger.interrupt()).toEqual([]);

    const full = new PlaybackLedger();
    full.sent("b", 500);
    full.played("b", 480);
    expect(full.truncations(full.interrupt())).toEqual([{ itemId: "b", audioEndMs: 500 }]);
  });

  it("a filler heard in full, then the tool answer being heard: the answer is truncated, not the filler", () => {
    const ledger = new PlaybackLedger();
    ledger.sent("filler", 800);
    ledger.audioDone("filler");
    ledger.sent("answer", 1200);
    ledger.played("filler", 800);
    ledger.played("answer", 400);
    expect(ledger.truncations(ledger.interrupt())).toEqual([{ itemId: "answer", audioEndMs: 450 }]);
  });

  it("a filler still playing with the answer queued behind it: filler at what was heard, answer at 0", () => {
    const ledger = new PlaybackLedger();
    ledger.sent("filler", 800);
    ledger.audioDone("filler");
    ledger.sent("answer", 1200);
    ledger.played("filler", 600);
    expect(ledger.truncations(ledger.interrupt())).toEqual([
      { itemId: "filler", audioEndMs: 650 },
      { itemId: "answer", audioEndMs: 0 },
    ]);
  });

  it("leaves items heard in full alone and drops late audio of the cancelled response", () => {
    const ledger = new PlaybackLedger();
    ledger.responseStarted("resp_1");
    ledger.sent("a", 400);
    ledger.audioDone("a");
    ledger.played("a", 400);
    expect(ledger.responseActive).toBe(true);
    expect(ledger.interrupt()).toEqual([]);
    expect(ledger.responseActive).toBe(false);
    // A later item of the cancelled response arrives late: not for the caller.
    expect(ledger.accepts("b", "resp_1")).toBe(false);
    expect(ledger.accepts("c", "resp_2")).toBe(true);
    expect(new PlaybackLedger().interrupt()).toEqual([]);
  });

  it("lets truncated items go, so a long call's barge-ins do not pile up, and still refuses their late audio", () => {
    const ledger = new PlaybackLedger();
    for (let turn = 0; turn < 200; turn += 1) {
      ledger.responseStarted(`resp_${turn}`);
      ledger.sent(`item_${turn}`, 400);
      ledger.played(`item_${turn}`, 100);
      expect(ledger.truncations(ledger.interrupt())).toEqual([{ itemId: `item_${turn}`, audioEndMs: 150 }]);
    }
    expect(ledger.size).toBe(0);
    expect(ledger.allHeard()).toBe(true);
    // A late delta of the item just cut, under a response id the ledger has not seen cancelled.
    expect(ledger.accepts("item_199", "resp_other")).toBe(false);
    expect(ledger.isInterrupted("item_199")).toBe(true);
    expect(ledger.accepts("item_200", "resp_200")).toBe(true);
  });
});
