import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { freshDatabase } from "../../../tests/harness.ts";
import type { Database } from "./client.ts";

/**
 * The database bus (PostgreSQL LISTEN/NOTIFY with TEST_DB=pg, in process otherwise): messages
 * arrive in publish order, and one longer than NOTIFY's 8000 bytes arrives whole.
 */
let database: Database;

beforeAll(async () => {
  database = await freshDatabase();
});
afterAll(async () => {
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
});
