import { randomBytes } from "node:crypto";
import pg from "pg";
import { afterAll, afterEach, describe, expect, it } from "vitest";
import { freshDatabase } from "../../../tests/harness.ts";
import { withDatabase } from "../../../tests/global-setup.ts";
import { openDatabase, type Database } from "../db/client.ts";
import { createJobQueue, type JobContext, type JobQueue } from "./job-queue.ts";

const silent = { warn: () => undefined, error: () => undefined };
const queues: JobQueue[] = [];
const databases: Database[] = [];

function queueOn(database: Database): JobQueue {
  const queue = createJobQueue({ database, pollIntervalMs: 500, logger: silent });
  queues.push(queue);
  return queue;
}

afterEach(async () => {
  for (const q of queues.splice(0)) await q.stop(2000);
});
afterAll(async () => {
  for (const d of databases) await d.close();
});

async function database(): Promise<Database> {
  const d = await freshDatabase();
  databases.push(d);
  return d;
}

describe("the job queue", () => {
  it("keeps a job across a restart: sent before a stop, run by the next start on the same database", async () => {
    const db = await database();
    const first = queueOn(db);
    const ranOnFirst: unknown[] = [];
    first.register<{ n: number }>("restart.test", async (data) => void ranOnFirst.push(data));
    await first.start();
    await first.send("restart.test", { n: 1 }, { startAfter: 1500 });
    await first.stop();

    const second = queueOn(db);
    const ranOnSecond: unknown[] = [];
    second.register<{ n: number }>("restart.test", async (data) => void ranOnSecond.push(data));
    await second.start();
    await expect.poll(() => ranOnSecond, { timeout: 8000, interval: 100 }).toEqual([{ n: 1 }]);
    expect(ranOnFirst).toEqual([]);
  });

  it("runs a job sent for a moment later when it falls due, not at the next look for jobs (here half a minute away)", async () => {
    const queue = createJobQueue({ database: await database(), pollIntervalMs: 30_000, logger: silent });
    queues.push(queue);
    const ranAt: number[] = [];
    queue.register("soon.test", async () => void ranAt.push(Date.now()));
    await queue.start();
    const sentAt = Date.now();
    await queue.send("soon.test", {}, { startAfter: 400 });
    await expect.poll(() => ranAt.length, { timeout: 8000, interval: 50 }).toBe(1);
    expect(ranAt[0]! - sentAt).toBeGreaterThanOrEqual(400);
  });

  it("retries a failing job after each delay of its schedule, then gives up", async () => {
    const db = await database();
    const queue = queueOn(db);
    const runs: (JobContext & { at: number })[] = [];
    queue.register<object>(
      "retry.test",
      async (_data, job) => {
        runs.push({ ...job, at: Date.now() });
        throw new Error("endpoint down");
      },
      { retryDelaysMs: [1000, 2000] },
    );
    await queue.start();
    await queue.send("retry.test", {});
    await expect.poll(() => runs.length, { timeout: 12_000, interval: 100 }).toBe(3);
    expect(runs.map((r) => [r.attempt, r.lastAttempt])).toEqual([[1, false], [2, false], [3, true]]);
    expect(new Set(runs.map((r) => r.id)).size).toBe(1);
    // Each wait is at least its delay (the schedule), not the poll interval.
    expect(runs[1]!.at - runs[0]!.at).toBeGreaterThanOrEqual(900);
    expect(runs[2]!.at - runs[1]!.at).toBeGreaterThanOrEqual(1900);
    await new Promise((r) => setTimeout(r, 2500));
    expect(runs).toHaveLength(3);
  });

  it("waits longer than the schedule when a failed run asked for it (a Retry-After), never less", async () => {
    const db = await database();
    const queue = queueOn(db);
    const runs: number[] = [];
    queue.register<object>(
      "retry-after.test",
      async (_data, job) => {
        runs.push(Date.now());
        if (job.attempt === 1) job.retryNoSoonerThan(2500);
        if (job.attempt < 3) throw new Error("rate limited");
      },
      { retryDelaysMs: [1000, 1000] },
    );
    await queue.start();
    await queue.send("retry-after.test", {});
    await expect.poll(() => runs.length, { timeout: 12_000, interval: 100 }).toBe(3);
    expect(runs[1]! - runs[0]!).toBeGreaterThanOrEqual(2500);
    // The next failure asked for nothing: the schedule again.
    expect(runs[2]! - runs[1]!).toBeGreaterThanOrEqual(900);
  });

  it("shuts down cleanly when a run outlives the stop's wait: the database closes, the run ends later, nothing fails", async () => {
    const db = await freshDatabase();
    const queue = queueOn(db);
    let started = false;
    let release!: () => void;
    const held = new Promise<void>((r) => (release = r));
    queue.register<object>("slow.test", async () => {
      started = true;
      await held;
      throw new Error("ended after the database closed");
    });
    await queue.start();
    await queue.send("slow.test", {});
    await expect.poll(() => started, { timeout: 8000, interval: 50 }).toBe(true);
    await queue.stop(200);
    await db.close();
    const unhandled: unknown[] = [];
    const onUnhandled = (err: unknown) => void unhandled.push(err);
    process.on("unhandledRejection", onUnhandled);
    try {
      release();
      await new Promise((r) => setTimeout(r, 300));
    } finally {
      process.off("unhandledRejection", onUnhandled);
    }
    expect(unhandled).toEqual([]);
  });

  it("runs a job once per key and succeeds on a retry", async () => {
    const db = await database();
    const queue = queueOn(db);
    const seen: string[] = [];
    queue.register<{ v: string }>(
      "keyed.test",
      async (data, job) => {
        seen.push(`${data.v}#${job.attempt}`);
        if (job.attempt === 1) throw new Error("first try fails");
      },
      { retryDelaysMs: [0] },
    );
    await queue.start();
    expect(await queue.send("keyed.test", { v: "a" }, { key: "call-1" })).toEqual(expect.any(String));
    expect(await queue.send("keyed.test", { v: "b" }, { key: "call-1" })).toBeNull();
    await expect.poll(() => seen, { timeout: 8000, interval: 100 }).toEqual(["a#1", "a#2"]);
  });
});

describe("polling", () => {
  it("an idle server looks for jobs once an interval, however many queues and workers; jobs it did not send are worked at full concurrency", async () => {
    const db = await database();
    let statements = 0;
    const counting = {
      sql: (text: string, values?: unknown[]) => {
        statements += 1;
        return db.sql(text, values);
      },
    } as Pick<Database, "sql">;
    const queue = createJobQueue({ database: counting, pollIntervalMs: 500, logger: silent });
    queues.push(queue);
    let running = 0;
    let most = 0;
    let release!: () => void;
    const held = new Promise<void>((r) => (release = r));
    queue.register(
      "many.test",
      async () => {
        running += 1;
        most = Math.max(most, running);
        await held;
        running -= 1;
      },
      { concurrency: 4 },
    );
    for (const name of ["idle-a.test", "idle-b.test"]) queue.register(name, async () => {}, { concurrency: 2 });
    await queue.start();
    statements = 0;
    await new Promise((r) => setTimeout(r, 2600));
    // One statement every 500 ms (a poll per queue would make fifteen, per worker forty).
    expect(statements).toBeLessThanOrEqual(7);
    // Sent by another instance: no worker here is told, the polling one finds the first job.
    const other = queueOn(db);
    await other.start();
    for (let n = 0; n < 6; n++) await other.send("many.test", { n });
    await expect.poll(() => most, { timeout: 5000, interval: 50 }).toBe(4);
    release();
  });
});

describe("unfinished jobs", () => {
  it("lists the data of jobs waiting, due for a retry or running, and not of finished ones", async () => {
    const db = await database();
    const queue = queueOn(db);
    let release!: () => void;
    const held = new Promise<void>((r) => (release = r));
    queue.register<{ n: number }>(
      "unfinished.test",
      async ({ n }, job) => {
        if (n === 1) await held;
        if (n === 2 && job.attempt === 1) throw new Error("retry me");
      },
      { retryDelaysMs: [60_000], concurrency: 3 },
    );
    await queue.start();
    await queue.send("unfinished.test", { n: 1 });
    await queue.send("unfinished.test", { n: 2 });
    await queue.send("unfinished.test", { n: 3 }, { startAfter: 60_000 });
    await queue.send("unfinished.test", { n: 4 });
    // 1 running, 2 waiting for its retry, 3 not due yet; 4 done.
    await expect.poll(async () => (await queue.unfinished<{ n: number }>("unfinished.test")).map((d) => d.n).sort(), { timeout: 10_000, interval: 200 }).toEqual([1, 2, 3]);
    release();
    await expect.poll(async () => (await queue.unfinished<{ n: number }>("unfinished.test")).map((d) => d.n).sort(), { timeout: 10_000, interval: 200 }).toEqual([2, 3]);
  });
});

describe("two instances on one PostgreSQL server", () => {
  const adminUrl = process.env.DATABASE_URL ?? "postgres://postgres@127.0.0.1:5432/postgres";
  const name = `switchboard_jobs_${randomBytes(4).toString("hex")}`;
  afterAll(async () => {
    for (const q of queues.splice(0)) await q.stop(2000);
    for (const d of databases.splice(0)) await d.close();
    const admin = new pg.Client({ connectionString: adminUrl });
    await admin.connect();
    await admin.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
    await admin.end();
  });

  it("run each job exactly once between them", async () => {
    const admin = new pg.Client({ connectionString: adminUrl });
    await admin.connect();
    await admin.query(`CREATE DATABASE ${name}`);
    await admin.end();
    const runs = new Map<number, string[]>();
    const instances = await Promise.all(
      ["one", "two"].map(async (who) => {
        const db = await openDatabase({ kind: "postgres", url: withDatabase(adminUrl, name) });
        databases.push(db);
        const queue = queueOn(db);
        queue.register<{ n: number }>(
          "once.test",
          async ({ n }) => {
            runs.set(n, [...(runs.get(n) ?? []), who]);
            await new Promise((r) => setTimeout(r, 5));
          },
          { concurrency: 4 },
        );
        return queue;
      }),
    );
    // Both install the schema at once: the install itself must be safe to race.
    await Promise.all(instances.map((q) => q.start()));
    const total = 200;
    await Promise.all(Array.from({ length: total }, (_, n) => instances[n % 2]!.send("once.test", { n })));
    await expect.poll(() => runs.size, { timeout: 15_000, interval: 100 }).toBe(total);
    await new Promise((r) => setTimeout(r, 1000));
    expect([...runs.values()].filter((who) => who.length !== 1)).toEqual([]);
    const byInstance = [...runs.values()].flat();
    // Both took work: the queue is shared, not per instance.
    expect(byInstance.filter((w) => w === "one").length).toBeGreaterThan(0);
    expect(byInstance.filter((w) => w === "two").length).toBeGreaterThan(0);
  });
});
