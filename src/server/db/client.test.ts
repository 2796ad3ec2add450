import { randomBytes } from "node:crypto";
import pg from "pg";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { withDatabase } from "../../../tests/global-setup.ts";
import { openDatabase, type Database } from "./client.ts";

/**
 * A PostgreSQL server may end the app's connections at any time (a restart, a failover, an
 * administrator, an idle timeout): an idle pooled connection that dies must not end the process
 * (node-postgres raises it on the pool, which throws without a listener), and the bus listens again.
 * Always on the local PostgreSQL server: the embedded database has no connections to lose.
 */
const adminUrl = process.env.DATABASE_URL ?? "postgres://postgres@127.0.0.1:5432/postgres";
const name = `switchboard_conn_${randomBytes(4).toString("hex")}`;
let database: Database;

async function admin<T extends pg.QueryResultRow>(sql: string): Promise<T[]> {
  const client = new pg.Client({ connectionString: adminUrl });
  await client.connect();
  try {
    return (await client.query<T>(sql)).rows;
  } finally {
    await client.end();
  }
}

beforeAll(async () => {
  await admin(`CREATE DATABASE ${name}`);
  database = await openDatabase({ kind: "postgres", url: withDatabase(adminUrl, name) });
});
afterAll(async () => {
  await database.close();
  await admin(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
});

describe("connections the PostgreSQL server ends", () => {
  it("an idle one ending leaves the process up: queries run again on new connections, and the bus delivers again", async () => {
    const heard: string[] = [];
    await database.bus.subscribe("conn_test", (payload) => void heard.push(payload));
    // Several idle connections in the pool, and the bus's listening one.
    await Promise.all(Array.from({ length: 4 }, () => database.sql("SELECT pg_sleep(0.05)")));
    const ended = await admin<{ pid: number }>(`SELECT pg_terminate_backend(pid) AS pid FROM pg_stat_activity WHERE datname = '${name}'`);
    expect(ended.length).toBeGreaterThanOrEqual(5);

    // A query sent before the pool has read a connection's end fails with it (57P01); the pool
    // then drops that connection, and queries run on new ones.
    await expect
      .poll(async () => database.sql("SELECT 1 AS one").then((r) => r.rows, (err: { code?: string }) => err.code), { timeout: 10_000, interval: 100 })
      .toEqual([{ one: 1 }]);
    // The bus opens a new listening connection after a second; published meanwhile is lost (at most once).
    await expect
      .poll(
        async () => {
          await database.bus.publish("conn_test", "again");
          return heard.includes("again");
        },
        { timeout: 10_000, interval: 500 },
      )
      .toBe(true);
  });
});
