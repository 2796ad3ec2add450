import { afterEach, describe, expect, it } from "vitest";
import { ListeningTaps } from "./supervision-listening.ts";
import type { Watcher } from "./supervision-seams.ts";

/** What supervisors hear: nothing is mixed while nobody listens; the controller hears the caller alone. */
function watcher(name: string): Watcher & { frames: Buffer[] } {
  const frames: Buffer[] = [];
  return { name, frames, send() {}, audio: (frame) => frames.push(frame), close() {} };
}

let taps: ListeningTaps | null = null;
afterEach(() => taps?.stop());

describe("ListeningTaps", () => {
  it("mixes only while needed, sends the controller the caller alone and listeners the mix", () => {
    const ann = watcher("Ann");
    const bob = watcher("Bob");
    const watchers = new Map([[ann, { listening: true }], [bob, { listening: false }]]);
    let controller: Watcher | undefined;
    taps = new ListeningTaps(8000, { watchers: () => watchers, controller: () => controller });
    const caller = new Int16Array(160).fill(1000);

    taps.caller(caller);
    expect(taps.active).toBe(false);
    expect(ann.frames).toEqual([]);

    taps.update(true);
    controller = bob;
    taps.heard(new Int16Array(160).fill(-500));
    taps.caller(caller);
    expect(taps.active).toBe(true);
    expect(ann.frames.length).toBeGreaterThan(0);
    expect(bob.frames.length).toBeGreaterThan(0);
    // Bob (in control) hears the caller only; Ann hears caller and assistant mixed.
    expect(Buffer.concat(bob.frames).equals(Buffer.concat(ann.frames))).toBe(false);

    taps.update(false);
    const before = ann.frames.length;
    taps.caller(caller);
    expect(taps.active).toBe(false);
    expect(ann.frames.length).toBe(before);
  });
});
