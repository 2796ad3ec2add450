/** Draining waits for every kind of call an instance carries: live sessions and SIP calls bridged by a transfer. */
import { expect, it } from "vitest";
import { Drain, drainableOf, drainCalls } from "./drain.ts";

/** Calls of one kind, each ended by calling its `end`. */
function kind() {
  const live = new Set<Promise<void>>();
  const ends: (() => void)[] = [];
  return {
    ends,
    start() {
      let end!: () => void;
      const ended: Promise<void> = new Promise<void>((resolve) => (end = resolve)).then(() => void live.delete(ended));
      live.add(ended);
      ends.push(end);
    },
    get size() {
      return live.size;
    },
    async idle() {
      while (live.size > 0) await Promise.all(live);
    },
  };
}

it("a drain ends only once the sessions and the bridges have all ended", async () => {
  const sessions = kind();
  const bridges = kind();
  sessions.start();
  bridges.start();
  bridges.start();
  const all = drainableOf(sessions, bridges);
  expect(all.size).toBe(3);
  let finished: boolean | null = null;
  const draining = drainCalls(new Drain(), all, 60_000).then((done) => (finished = done));
  sessions.ends[0]!();
  bridges.ends[0]!();
  await new Promise((r) => setTimeout(r, 20));
  expect(finished).toBe(null);
  expect(all.size).toBe(1);
  bridges.ends[1]!();
  await draining;
  expect(finished).toBe(true);
});
