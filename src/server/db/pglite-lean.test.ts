import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, expect, it } from "vitest";
import { openDatabase } from "./client.ts";
import { compiledPglite } from "./pglite-lean.ts";

/**
 * The embedded database in a data folder: created on its first start (in a child process, for
 * memory), reopened with its data on the next, and run with the small buffer pool the memory
 * figures rest on (docs/decisions/055-lean-embedded-database.md) and WAL segments made without
 * zero-filling them (ADR 087), from PostgreSQL's WebAssembly compiled once per process (ADR 088).
 */
const dir = mkdtempSync(join(tmpdir(), "switchboard-pglite-lean-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

it("creates a data folder's database on the first start and keeps its rows for the next", async () => {
  const first = await openDatabase({ kind: "pglite", dataDir: join(dir, "pglite") });
  await first.sql("create table kept (n int); insert into kept values (42)");
  expect((await first.sql("show shared_buffers")).rows[0]).toEqual({ shared_buffers: "16MB" });
  await first.close();

  const again = await openDatabase({ kind: "pglite", dataDir: join(dir, "pglite") });
  expect((await again.sql("select n from kept")).rows).toEqual([{ n: 42 }]);
  expect((await again.sql("show shared_buffers")).rows[0]).toEqual({ shared_buffers: "16MB" });
  expect((await again.sql("show wal_init_zero")).rows[0]).toEqual({ wal_init_zero: "off" });
  await again.close();
}, 120_000);

it("compiles PostgreSQL's WebAssembly once for the process, and every database runs on it", async () => {
  const module = await compiledPglite();
  expect(await compiledPglite()).toBe(module);
  expect(WebAssembly.Module.exports(module).some((e) => e.name === "PostgresMainLoopOnce")).toBe(true);
  const [a, b] = await Promise.all([openDatabase({ kind: "pglite" }), openDatabase({ kind: "pglite" })]);
  await a.sql("create table t (n int); insert into t values (1)");
  expect((await a.sql("select n from t")).rows).toEqual([{ n: 1 }]);
  expect((await b.sql("select count(*)::int as n from pg_tables where tablename = 't'")).rows).toEqual([{ n: 0 }]);
  await Promise.all([a.close(), b.close()]);
}, 120_000);
