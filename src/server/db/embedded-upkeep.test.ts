import { sql } from "drizzle-orm";
import { afterAll, beforeAll, expect, it } from "vitest";
import { buildTestApp } from "../../../tests/harness.ts";
import { JOB_SCHEMA } from "../jobs/job-queue.ts";
import { openDatabase, type Database } from "./client.ts";
import { upkeep } from "./embedded-upkeep.ts";

/**
 * The embedded database has no autovacuum and no checkpointer: without the upkeep, a table whose
 * rows are rewritten grows with every rewrite, its columns never get statistics, and the WAL grows
 * until the server stops.
 */
let database: Database;
beforeAll(async () => {
  database = await openDatabase({ kind: "pglite" });
});
afterAll(() => database?.close());

const size = async (table: string) => Number((await database.sql(`SELECT pg_total_relation_size('${table}') AS n`)).rows[0]!.n);
const rewrite = (table: string) => database.sql(`UPDATE ${table} SET n = n + 1`);
const statistics = async (table: string) => Number((await database.sql(`SELECT count(*) AS n FROM pg_stats WHERE tablename = '${table}'`)).rows[0]!.n);

it("reuses the space of rewritten rows and gives the planner statistics; a table that has not changed is left alone", async () => {
  for (const table of ["quiet", "churned"]) {
    await database.sql(`CREATE TABLE ${table} (id int PRIMARY KEY, n int NOT NULL)`);
    await database.sql(`INSERT INTO ${table} SELECT g, 0 FROM generate_series(1, 5000) g`);
  }
  // Left alone, every rewrite of all rows adds their size again.
  const before = await size("churned");
  for (let i = 0; i < 4; i++) await rewrite("churned");
  expect(await size("churned")).toBeGreaterThan(before * 3);
  expect(await statistics("churned")).toBe(0);

  // Kept up between rewrites, the table stops growing: each rewrite takes the space the last freed.
  expect(await upkeep(database)).toEqual(expect.arrayContaining(["VACUUM (ANALYZE) public.quiet", "VACUUM (ANALYZE) public.churned"]));
  expect(await statistics("churned")).toBe(2);
  const settled = await size("churned");
  for (let i = 0; i < 4; i++) {
    await rewrite("churned");
    await upkeep(database);
  }
  expect(await size("churned")).toBeLessThanOrEqual(settled * 1.1);

  // Nothing changed since: nothing to do.
  expect(await upkeep(database)).toEqual([]);
}, 60_000);

it("checkpoints once a WAL segment's worth was written: the WAL stops growing and its old segments go", async () => {
  const MB = 1024 * 1024;
  const walSize = async () => Number((await database.sql("SELECT sum(size) AS n FROM pg_ls_waldir()")).rows[0]!.n);
  await database.sql("CREATE TABLE bulk (t text NOT NULL)");
  // ~100 MB of WAL: nothing checkpoints a single-user PostgreSQL while it runs.
  for (let i = 0; i < 3; i++) await database.sql(`INSERT INTO bulk SELECT repeat(md5(g::text), 32) FROM generate_series(1, 30000) g`);
  expect(await walSize()).toBeGreaterThan(96 * MB);

  expect(await upkeep(database)).toEqual(["VACUUM (ANALYZE) public.bulk", "CHECKPOINT"]);
  // What max_wal_size keeps for reuse (db/pglite-lean.ts), no more.
  expect(await walSize()).toBeLessThanOrEqual(64 * MB);
  expect(await upkeep(database)).toEqual([]);
}, 60_000);

it("is scheduled by the app on the embedded database only (a PostgreSQL server keeps itself)", async () => {
  const { app } = await buildTestApp();
  try {
    const rows = (await app.ctx.db.execute(
      // The job waits its period: a restart does not pay the upkeep at once.
      sql.raw(`SELECT name, start_after > now() AS later FROM ${JOB_SCHEMA}.job WHERE name = 'embedded-database-upkeep'`),
    )) as unknown as { rows: Array<{ name: string; later: boolean }> };
    const version = (await app.ctx.db.execute(sql`SELECT version() LIKE '%PGlite%' AS embedded`)) as unknown as { rows: Array<{ embedded: boolean }> };
    expect(rows.rows).toEqual(version.rows[0]!.embedded ? [{ name: "embedded-database-upkeep", later: true }] : []);
  } finally {
    await app.close();
  }
}, 60_000);
