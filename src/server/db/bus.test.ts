import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { freshDatabase } from "../../../tests/harness.ts";
import type { Database } from "./client.ts";

/**
 * The database bus (PostgreSQL LISTEN/NOTIFY with TEST_DB=pg, in process otherwise): messages
 * arrive in publish order, and one longer than NOTIFY's 8000 bytes arrives whole.
 */
let database: Database;
/** Process warnings while this file runs: pg warns (once a process; from pg 9 it refuses) when a client is given a query while one is running. */
const warnings: string[] = [];
const onWarning = (warning: Error) => warnings.push(warning.message);

beforeAll(async () => {
  process.on("warning", onWarning);
  database = await freshDatabase();
});
afterAll(async () => {
  process.off("warning", onWarning);
  await database.close();
});

describe("the database bus", () => {
  it("delivers messages in order, a long one (non-ASCII) whole, and nothing after unsubscribing", async () => {
    const got: string[] = [];
    const stop = await database.bus.subscribe("switchboard_bus_test", (payload) => got.push(payload));
    const long = "é€".repeat(20_000);
    await database.bus.publish("switchboard_bus_test", "one");
    await database.bus.publish("switchboard_bus_test", long);
    await database.bus.publish("switchboard_bus_test", "three");
    await expect.poll(() => got.length).toBe(3);
    expect(got).toEqual(["one", long, "three"]);
    stop();
    const still: string[] = [];
    const other = await database.bus.subscribe("switchboard_bus_test", (payload) => still.push(payload));
    await database.bus.publish("switchboard_bus_test", "after");
    await expect.poll(() => still).toEqual(["after"]);
    expect(got).toHaveLength(3);
    other();
  });

  it("takes many subscriptions made and ended at once, each getting its own messages, with no query overlapping another", async () => {
    const channels = Array.from({ length: 6 }, (_, i) => `switchboard_bus_many_${i}`);
    const got = new Map<string, string[]>(channels.map((c) => [c, []]));
    const stops = await Promise.all(channels.map((c) => database.bus.subscribe(c, (payload) => got.get(c)!.push(payload))));
    // The first three end and start again at once: the UNLISTEN goes before the new LISTEN.
    stops.slice(0, 3).forEach((stop) => stop());
    const again = await Promise.all(channels.slice(0, 3).map((c) => database.bus.subscribe(c, (payload) => got.get(c)!.push(`again ${payload}`))));
    await Promise.all(channels.map((c) => database.bus.publish(c, c)));
    await expect.poll(() => [...got.values()].flat().length).toBe(channels.length);
    expect(Object.fromEntries(got)).toEqual(Object.fromEntries(channels.map((c, i) => [c, [i < 3 ? `again ${c}` : c]])));
    [...again, ...stops.slice(3)].forEach((stop) => stop());
    await new Promise((resolve) => setImmediate(resolve));
    // Here and in the test before (ended and started again at once) no LISTEN or UNLISTEN overlapped.
    expect(warnings.filter((w) => w.includes("already executing a query"))).toEqual([]);
  });
});
