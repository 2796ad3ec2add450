/**
 * The one 20 ms clock all calls' RTP runs on: a stream that joins late is never handed a tick due
 * before it joined, every stream sees every tick in order, and the clock stops when the last
 * stream leaves.
 */
import { performance } from "node:perf_hooks";
import { expect, it } from "vitest";
import { RtpClock, type ClockedStream } from "./rtp-clock.ts";

class Recorded implements ClockedStream {
  readonly passes: { last: number; at: number }[] = [];
  first = 0;
  joinedAt = 0;
  tick(last: number, now: number) {
    this.passes.push({ last, at: now });
  }
}

const wait = (ms: number) => new Promise((r) => setTimeout(r, ms));

it("hands every stream each tick once, none due before it joined, and stops with the last stream", async () => {
  const clock = new RtpClock();
  const early = new Recorded();
  early.joinedAt = performance.now();
  early.first = clock.join(early);
  await wait(55);
  const late = new Recorded();
  late.joinedAt = performance.now();
  late.first = clock.join(late);
  await wait(100);
  clock.leave(early);
  clock.leave(late);
  const stopped = late.passes.length + early.passes.length;
  await wait(60);
  expect(late.passes.length + early.passes.length).toBe(stopped);

  for (const stream of [early, late]) {
    const lasts = stream.passes.map((p) => p.last);
    // Passes come in order, each with ticks not handed before.
    expect(lasts).toEqual([...lasts].sort((a, b) => a - b));
    expect(new Set(lasts).size).toBe(lasts.length);
  }
  // The late stream's first tick is due (20 ms apart from the early stream's first) no sooner than it joined.
  expect(late.first).toBeGreaterThan(early.first);
  expect(early.joinedAt + (late.first - early.first) * 20).toBeGreaterThanOrEqual(late.joinedAt - 1);
  // Both heard the same passes while both were on.
  expect(late.passes.map((p) => p.last)).toEqual(early.passes.filter((p) => p.at >= late.passes[0]!.at).map((p) => p.last));
});
