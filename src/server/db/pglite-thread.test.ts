import { sql } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { openDatabase, openLinkedDb, type Database } from "./client.ts";
import { isUniqueViolation } from "./pg-errors.ts";

/**
 * The embedded database runs on a thread of its own (ADR 091): what a statement costs is that
 * thread's time, not the event loop's that carries the calls' audio, and what the app sees of
 * the database — rows, PostgreSQL's errors, transactions — is as it was on one thread. Always the
 * embedded database (a fresh one in memory), whichever database the other suites run on.
 */
let database: Database;

beforeAll(async () => {
  database = await openDatabase({ kind: "pglite" });
  await database.sql("create table things (id int primary key, name text not null, at timestamptz not null default now(), tags text[] not null default '{}')");
});
afterAll(() => database.close());

describe("the embedded database on its own thread", () => {
  it("leaves the app's timers running while a statement works for half a second or more", async () => {
    let ticks = 0;
    const timer = setInterval(() => ticks++, 10);
    const started = performance.now();
    try {
      await database.sql("select sum(g) from generate_series(1, 2000000) g");
    } finally {
      clearInterval(timer);
    }
    const took = performance.now() - started;
    // On the app's thread not one tick would have run until the statement was done.
    expect(ticks).toBeGreaterThanOrEqual(Math.floor(took / 10 / 4));
    expect(ticks).toBeGreaterThan(5);
  });

  it("answers rows as the query builder expects them: parsed values, its own types as text", async () => {
    await database.sql("insert into things (id, name, tags) values ($1, $2, $3)", [1, "first", ["a", "b"]]);
    const { rows } = (await database.db.execute(sql`select id, name, tags, at from things where id = ${1}`)) as unknown as { rows: Record<string, unknown>[] };
    const [row] = rows;
    expect(row).toMatchObject({ id: 1, name: "first", tags: ["a", "b"] });
    // The query builder maps timestamps itself, from PostgreSQL's text.
    expect(typeof row!.at).toBe("string");
    expect(Number.isNaN(Date.parse(String(row!.at)))).toBe(false);
  });

  it("keeps PostgreSQL's error code, and rolls a failed transaction back whole", async () => {
    const failed = await database.db
      .transaction(async (tx) => {
        await tx.execute(sql`insert into things (id, name) values (2, 'second')`);
        await tx.execute(sql`insert into things (id, name) values (1, 'again')`);
      })
      .catch((err: unknown) => err);
    expect(isUniqueViolation(failed)).toBe(true);
    const { rows } = await database.sql("select id from things order by id");
    expect(rows).toEqual([{ id: 1 }]);
  });

  it("commits a transaction that succeeds, and lets a statement outside it wait its turn", async () => {
    let inside = false;
    const outside: Promise<unknown>[] = [];
    await database.db.transaction(async (tx) => {
      await tx.execute(sql`insert into things (id, name) values (3, 'third')`);
      inside = true;
      // Sent while the transaction is open: answered after it, seeing its row.
      outside.push(database.sql("select count(*)::int as n from things"));
      await tx.execute(sql`insert into things (id, name) values (4, 'fourth')`);
    });
    expect(inside).toBe(true);
    expect((await outside[0]) as { rows: unknown[] }).toMatchObject({ rows: [{ n: 3 }] });
  });

  it("a syntax error answers as an error, and the database goes on", async () => {
    await expect(database.sql("selec 1")).rejects.toMatchObject({ code: "42601" });
    expect((await database.sql("select 1 as one")).rows).toEqual([{ one: 1 }]);
  });

  it("takes another thread's statements through a linked port: the same rows, transactions whole, and its end leaves the database open", async () => {
    const linked = openLinkedDb(database.link());
    await linked.db.transaction(async (tx) => {
      await tx.execute(sql`insert into things (id, name) values (5, 'linked')`);
      await tx.execute(sql`insert into things (id, name) values (6, 'linked too')`);
    });
    const failed = await linked.db.execute(sql`insert into things (id, name) values (5, 'again')`).catch((err: unknown) => err);
    expect(isUniqueViolation(failed)).toBe(true);
    expect((await database.sql("select name from things where id in (5, 6) order by id")).rows).toEqual([{ name: "linked" }, { name: "linked too" }]);
    await linked.close();
    await expect(linked.db.execute(sql`select 1`)).rejects.toThrow();
    expect((await database.sql("select count(*)::int as n from things")).rows).toEqual([{ n: 5 }]);
  });

  it("rolls back what a linked thread left open when its port closes, and the database goes on", async () => {
    const linked = openLinkedDb(database.link());
    let inserted!: () => void;
    const holding = new Promise<void>((resolve) => (inserted = resolve));
    const abandoned = linked.db
      .transaction(async (tx) => {
        await tx.execute(sql`insert into things (id, name) values (7, 'abandoned')`);
        inserted();
        await new Promise(() => undefined); // the thread ends before it commits
      })
      .catch((err: unknown) => err);
    await holding;
    await linked.close();
    // Without the rollback this would wait behind the open transaction for good.
    await database.sql("insert into things (id, name) values (8, 'after')");
    expect((await database.sql("select id from things where id in (7, 8) order by id")).rows).toEqual([{ id: 8 }]);
    void abandoned;
  });
});
