import { describe, expect, it } from "vitest";
import { singleFlight } from "./single-flight.ts";

describe("single-flight reads", () => {
  it("reads of one key asked for together share one read; other keys and later reads read again", async () => {
    const reads: string[] = [];
    let release!: () => void;
    const gate = new Promise<void>((r) => (release = r));
    const read = singleFlight(async (org: string, name: string) => {
      reads.push(`${org}/${name}`);
      await gate;
      return { value: `${org}:${name}:${reads.length}` };
    }, (org, name) => `${org}\0${name}`);

    const together = [read("a", "key"), read("a", "key"), read("b", "key"), read("a", "key")];
    release();
    const answers = await Promise.all(together);
    expect(reads).toEqual(["a/key", "b/key"]);
    expect(answers[0]).toBe(answers[1]);
    expect(answers[0]).toBe(answers[3]);
    expect(answers[2]).not.toBe(answers[0]);

    // Settled: nothing is kept, the next read asks again (and sees what changed meanwhile).
    await read("a", "key");
    expect(reads).toEqual(["a/key", "b/key", "a/key"]);
  });

  it("a failed read fails everyone who shared it, and the next one tries again", async () => {
    let attempts = 0;
    const read = singleFlight(async () => {
      attempts += 1;
      await new Promise((r) => setTimeout(r, 5));
      if (attempts === 1) throw new Error("database away");
      return "ok";
    }, () => "k");
    const results = await Promise.allSettled([read(), read()]);
    expect(results.map((r) => r.status)).toEqual(["rejected", "rejected"]);
    expect(await read()).toBe("ok");
    expect(attempts).toBe(2);
  });
});
