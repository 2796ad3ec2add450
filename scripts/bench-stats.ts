/**
 * `npm run bench:stats`: the Calls page's 30-day figures (`GET /api/calls/stats`) at 1,000,000
 * calls, summed from the calls themselves (STATS_ROLLUPS=false) and from the roll-ups (ADR 061),
 * on the embedded database and on the PostgreSQL server.
 *  1. Per database: a fresh one (a temporary DATA_DIR; `switchboard_bench_stats` on BENCH_PG_URL,
 *     default postgres://postgres@127.0.0.1:5432/postgres), the real server in a child process on
 *     127.0.0.1 (migrations, sign-up through the API), then stopped while N calls of the one
 *     organisation are written by generate_series over the last 365 days (82,000 in the last 30),
 *     4 assistants, both directions, analysis values, half of them with 1–6 turns' latencies (the
 *     median turn latency) — the roll-ups filled by their triggers.
 *  2. The server again, once per source: sequential requests for the last 30 days in
 *     America/New_York (a warm-up first); prints p50/p99 and checks both sources answered alike.
 * The route allows 60 stats requests a minute per user: every source's requests are paced to one a
 * second (a 429 would wait out its Retry-After and be asked again, unmeasured). Options: --db
 * pglite|pg|both (default both), --calls N (default 1,000,000), --requests N (default 100, at
 * most 300), --raw-requests N (the raw source's, default as many), --reuse (measure the databases a previous run seeded with the same --calls, kept for
 * this: `switchboard_bench_stats` on the server and the embedded one in REUSE_DIR; seeding a
 * million calls takes minutes), --explain
 * (then the roll-up statement alone, EXPLAIN ANALYZE'd 30 times: planning and execution p50/p99,
 * and its last plan).
 * Each source also answers the same 30 days for one assistant (a filter the roll-ups keep a
 * column for: the groups' rows answer instead of the 'all' ones).
 */
import { spawn } from "node:child_process";
import { existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { cpus, loadavg, tmpdir } from "node:os";
import { join, resolve } from "node:path";
import pg from "pg";
import { sql } from "drizzle-orm";
import { PgDialect } from "drizzle-orm/pg-core";
import { openDatabase, type Database } from "../src/server/db/client.ts";
import { rolledUpStatsQuery } from "../src/server/modules/calls/calls-rollups.repo.ts";
import { withDatabase } from "../tests/global-setup.ts";
import { freePort } from "../tests/free-port.ts";
import { CALLS_STATS_PER_MINUTE } from "../src/server/modules/calls/calls-history.routes.ts";
import { markdownTable, untilHealthy } from "./bench-process.ts";

const root = resolve(import.meta.dirname, "..");
const args = process.argv.slice(2);
const option = (name: string, fallback: string) => {
  const i = args.indexOf(name);
  return i >= 0 && args[i + 1] ? args[i + 1]! : fallback;
};
const CALLS = Math.min(5_000_000, Math.max(1000, Number(option("--calls", "1000000")) || 1_000_000));
const REQUESTS = Math.min(300, Math.max(10, Number(option("--requests", "100")) || 100));
/** The raw sums take seconds a request at 1 M calls: fewer of them keeps a sitting short. */
const RAW_REQUESTS = Math.min(REQUESTS, Math.max(1, Number(option("--raw-requests", String(REQUESTS))) || REQUESTS));
const DBS = option("--db", "both") === "both" ? (["pglite", "pg"] as const) : ([option("--db", "both")] as Array<"pglite" | "pg">);
const DB_NAME = "switchboard_bench_stats";
const REUSE = args.includes("--reuse");
const EXPLAIN = args.includes("--explain");
/** Where the embedded database is kept between runs, for --reuse. */
const REUSE_DIR = join(tmpdir(), "switchboard-bench-stats-kept");
const adminUrl = process.env.BENCH_PG_URL ?? "postgres://postgres@127.0.0.1:5432/postgres";
const TZ = "America/New_York";
const log = (line: string) => console.log(line);
const seconds = (since: number) => `${((Date.now() - since) / 1000).toFixed(1)} s`;

interface Target {
  kind: "pglite" | "pg";
  env: Record<string, string>;
  open(): Promise<Database>;
  dispose(): Promise<void>;
  /** Whether it holds a previous run's seed of CALLS calls (then only --reuse skips seeding). */
  seeded(): Promise<boolean>;
}

/** Whether `database` holds a seed of exactly CALLS calls. */
async function holdsSeed(database: Database): Promise<boolean> {
  try {
    return (await database.sql(`SELECT count(*)::int AS n FROM calls`)).rows[0]!.n === CALLS;
  } finally {
    await database.close();
  }
}

async function target(kind: "pglite" | "pg"): Promise<Target> {
  if (kind === "pglite") {
    // Kept between runs for --reuse; a run that seeds starts it afresh.
    const dataDir = REUSE_DIR;
    const open = () => openDatabase({ kind: "pglite", dataDir: join(dataDir, "pglite") });
    const reusable = REUSE && existsSync(join(dataDir, "pglite")) && (await holdsSeed(await open()));
    if (!reusable) {
      rmSync(dataDir, { recursive: true, force: true });
      mkdirSync(dataDir, { recursive: true });
    }
    return { kind, env: { DATA_DIR: dataDir }, open, dispose: async () => {}, seeded: async () => reusable };
  }
  const dataDir = mkdtempSync(join(tmpdir(), "switchboard-bench-stats-"));
  const url = withDatabase(adminUrl, DB_NAME);
  const open = () => openDatabase({ kind: "postgres", url });
  const admin = new pg.Client({ connectionString: adminUrl });
  await admin.connect();
  const exists = (await admin.query(`SELECT 1 FROM pg_database WHERE datname = $1`, [DB_NAME])).rowCount === 1;
  const reusable = REUSE && exists && (await holdsSeed(await open()));
  if (!reusable) {
    await admin.query(`DROP DATABASE IF EXISTS ${DB_NAME}`);
    await admin.query(`CREATE DATABASE ${DB_NAME}`);
  }
  await admin.end();
  return {
    kind,
    env: { DATA_DIR: dataDir, DATABASE_URL: url, WORKERS: "1" },
    open,
    dispose: async () => rmSync(dataDir, { recursive: true, force: true }),
    seeded: async () => reusable,
  };
}

async function startServer(t: Target, rollups: boolean) {
  const port = await freePort();
  const child = spawn(join(root, "node_modules/.bin/tsx"), ["src/server/main.ts"], {
    cwd: root,
    env: {
      ...process.env,
      ...t.env,
      NODE_ENV: "production",
      ALLOW_HTTP_IN_PRODUCTION: "true",
      LOG_LEVEL: "warn",
      HOST: "127.0.0.1",
      PORT: String(port),
      PUBLIC_URL: `http://127.0.0.1:${port}`,
      APP_SECRET: "bench-stats-secret-0123456789abcdef0123456789",
      STATS_ROLLUPS: String(rollups),
    },
    stdio: ["ignore", "inherit", "inherit"],
  });
  const url = `http://127.0.0.1:${port}`;
  // A new embedded database's first start (initdb) takes minutes on a busy machine.
  await untilHealthy(child, url, 300);
  return {
    url,
    async stop() {
      child.kill("SIGTERM");
      await new Promise((r) => child.once("exit", r));
    },
  };
}

async function signIn(url: string, first: boolean): Promise<{ cookie: string; userId: string }> {
  const credentials = { email: "bench-stats@example.com", password: "bench-password-123" };
  const headers = { "content-type": "application/json", origin: url };
  if (first) {
    const res = await fetch(`${url}/api/auth/sign-up/email`, { method: "POST", headers, body: JSON.stringify({ ...credentials, name: "Bench" }) });
    if (!res.ok) throw new Error(`sign-up failed: ${res.status}`);
  }
  const login = await fetch(`${url}/api/auth/sign-in/email`, { method: "POST", headers, body: JSON.stringify(credentials) });
  if (!login.ok) throw new Error(`login failed: ${login.status}`);
  const cookie = login.headers.getSetCookie().map((c) => c.split(";")[0]).join("; ");
  return { cookie, userId: ((await login.json()) as { user: { id: string } }).user.id };
}

/** One organisation's year of calls (sign-up makes the user's team with the user's id). */
async function seed(database: Database, organizationId: string) {
  const q = (text: string, values?: unknown[]) => database.sql(text, values);
  await q(`SELECT setseed(0.42)`);
  await q(
    `INSERT INTO assistants (organization_id, name, model, instructions, first_message)
     SELECT $1, n, 'gpt-realtime-2.1', 'You answer calls for a shop.', 'Hello' FROM unnest(ARRAY['Front desk', 'Billing', 'Tech support', 'Sales']) n`,
    [organizationId],
  );
  const indexes = (await q(`SELECT indexname, indexdef FROM pg_indexes WHERE tablename = 'calls' AND indexname <> 'calls_pkey'`)).rows as Array<{ indexname: string; indexdef: string }>;
  for (const index of indexes) await q(`DROP INDEX ${index.indexname}`);
  const chunk = 100_000;
  for (let lo = 1; lo <= CALLS; lo += chunk) {
    const started = Date.now();
    await q(
      `INSERT INTO calls (organization_id, assistant_id, assistant_name, assistant_version, start_time, end_time, ended_reason, cost, provider_cost, telephony_cost, direction, logs, analysis)
       SELECT $1, a.id, a.name, 1 + floor(extract(epoch FROM now() - c.start) / (86400 * 45))::int, c.start, c.start + make_interval(secs => c.secs),
         CASE WHEN c.r < 0.04 THEN 'Provider error: rate limit reached' WHEN c.r < 0.15 THEN 'Transferred to Billing' WHEN c.r < 0.6 THEN 'Caller hung up' ELSE 'User ended call' END,
         round((0.05 + greatest(0, ceil((c.secs - 60) / 12.0)) * 0.01)::numeric, 2)::float8,
         CASE WHEN c.test THEN NULL ELSE jsonb_build_object('total', round((c.secs * 0.0011)::numeric, 4)) END,
         CASE WHEN c.test OR c.r2 < 0.2 THEN NULL ELSE round((ceil(c.secs / 60.0) * 0.0085)::numeric, 4)::float8 END,
         CASE WHEN c.r2 < 0.3 THEN 'outbound' ELSE 'inbound' END,
         jsonb_build_object('isTest', c.test, 'transcript', '[]'::jsonb, 'turns', CASE WHEN c.secs::int % 2 = 0 THEN '[]'::jsonb ELSE
           (SELECT jsonb_agg(jsonb_build_object('speechEndedAtMs', 4000 * k, 'transcriptMs', 80, 'firstAudioSentMs', 450 + floor(random() * 900)::int))
            FROM generate_series(1, 1 + floor(c.r * 6)::int) k) END),
         CASE WHEN a.slot = 3 OR c.r2 > 0.9 THEN NULL ELSE jsonb_build_object('status', 'done', 'summary', 'A call', 'data', '{}'::jsonb, 'success', jsonb_build_object('reason', 'r', 'value',
           CASE a.slot WHEN 0 THEN to_jsonb(CASE WHEN c.r < 0.7 THEN 'pass' ELSE 'fail' END)
                       WHEN 1 THEN to_jsonb((ARRAY['resolved', 'escalated', 'callback'])[1 + floor(c.r * 3)::int])
                       ELSE to_jsonb(1 + floor(c.r * 5)::int) END)) END
       FROM generate_series($2::int, $3::int) g
       CROSS JOIN LATERAL (SELECT g % 20 = 0 AS test, random() AS r, random() AS r2, 20 + floor(random() * 400) AS secs, now() - random() * interval '365 days' AS start) c
       JOIN (SELECT id, name, row_number() OVER (ORDER BY name) - 1 AS slot FROM assistants WHERE organization_id = $1) a ON a.slot = g % 4`,
      [organizationId, lo, Math.min(CALLS, lo + chunk - 1)],
    );
    log(`  calls ${Math.min(CALLS, lo + chunk - 1).toLocaleString("en-US")} / ${CALLS.toLocaleString("en-US")} (${seconds(started)})`);
  }
  const started = Date.now();
  for (const index of indexes) await q(index.indexdef);
  await q("ANALYZE");
  log(`  indexes rebuilt, ANALYZE (${seconds(started)})`);
}

const percentile = (sorted: number[], p: number) => sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)]!;

/**
 * Requests start at most as often as the stats route allows (one a second): back to back, the
 * 61st waited out a minute's Retry-After, and the first request after that idle minute was
 * measured as the slowest (the p99 of 60).
 */
const PACE_MS = 60_000 / CALLS_STATS_PER_MINUTE;

async function measure(url: string, cookie: string, path: string, requests = REQUESTS): Promise<{ p50: number; p99: number; body: string; n: number }> {
  let next = 0;
  const get = async (): Promise<{ ms: number; body: string }> => {
    for (;;) {
      await new Promise((r) => setTimeout(r, Math.max(0, next - performance.now())));
      next = performance.now() + PACE_MS;
      const started = performance.now();
      const res = await fetch(url + path, { headers: { cookie } });
      const body = await res.text();
      const ms = performance.now() - started;
      if (res.status === 200) return { ms, body };
      if (res.status !== 429) throw new Error(`stats answered ${res.status}: ${body}`);
      await new Promise((r) => setTimeout(r, (Number(res.headers.get("retry-after")) || 5) * 1000 + 200));
    }
  };
  for (let i = 0; i < Math.min(10, requests); i++) await get();
  const times: number[] = [];
  let body = "";
  for (let i = 0; i < requests; i++) {
    const r = await get();
    times.push(r.ms);
    body = r.body;
  }
  times.sort((a, b) => a - b);
  return { p50: percentile(times, 50), p99: percentile(times, 99), body, n: times.length };
}

/** The roll-up statement alone, as the route sends it, without and with the assistant filter. */
async function explain(database: Database, organizationId: string, from: string, assistantId: string) {
  try {
    for (const filters of [{ from }, { from, assistant_id: assistantId }]) {
      const query = rolledUpStatsQuery(organizationId, filters, TZ)!;
      // For trying it by hand (psql: PREPARE, EXPLAIN): the text and its parameters.
      const file = join(tmpdir(), `bench-stats-statement-${filters.assistant_id ? "assistant" : "all"}.json`);
      writeFileSync(file, JSON.stringify(new PgDialect().sqlToQuery(query)));
      const planning: number[] = [];
      const execution: number[] = [];
      let plan = "";
      for (let i = 0; i < 30; i++) {
        const { rows } = (await database.db.execute(sql`EXPLAIN (ANALYZE, BUFFERS) ${query}`)) as unknown as { rows: Array<Record<string, string>> };
        plan = rows.map((r) => Object.values(r)[0]).join("\n");
        planning.push(Number(/Planning Time: ([\d.]+)/.exec(plan)?.[1]));
        execution.push(Number(/Execution Time: ([\d.]+)/.exec(plan)?.[1]));
      }
      const p = (list: number[], q: number) => percentile([...list].sort((x, y) => x - y), q).toFixed(1);
      log(`\n  EXPLAIN ANALYZE the statement ${JSON.stringify(filters)}, 30 runs: planning p50 ${p(planning, 50)} / p99 ${p(planning, 99)} ms, execution p50 ${p(execution, 50)} / p99 ${p(execution, 99)} ms (load ${loadavg()[0]!.toFixed(1)}); the last plan:\n${plan}`);
    }
  } finally {
    await database.close();
  }
}

async function run() {
  log(`Machine: ${cpus().length} cores (${cpus()[0]?.model ?? "unknown CPU"}), load average ${loadavg().map((l) => l.toFixed(1)).join(" / ")} at start, Node ${process.version}`);
  const rows: string[][] = [];
  for (const kind of DBS) {
    const t = await target(kind);
    try {
      const name = kind === "pglite" ? "Embedded database (PGlite)" : `PostgreSQL server (${new URL(adminUrl).host})`;
      let server: Awaited<ReturnType<typeof startServer>>;
      if (await t.seeded()) {
        log(`\n${name}: the ${CALLS.toLocaleString("en-US")} calls a previous run seeded (--reuse)`);
      } else {
        log(`\n${name}: seeding ${CALLS.toLocaleString("en-US")} calls`);
        server = await startServer(t, true);
        const { userId } = await signIn(server.url, true);
        await server.stop();
        const database = await t.open();
        const started = Date.now();
        await seed(database, userId);
        await database.close();
        log(`  seeded in ${seconds(started)}`);
      }
      const database = await t.open();
      const inWindow = (await database.sql(`SELECT count(*)::int AS n FROM calls WHERE start_time >= now() - interval '30 days'`)).rows[0]!.n;
      const { id: assistantId, organization_id: organizationId } = (await database.sql(`SELECT id, organization_id FROM assistants ORDER BY name LIMIT 1`)).rows[0] as { id: string; organization_id: string };
      await database.close();
      log(`  ${Number(inWindow).toLocaleString("en-US")} calls in the last 30 days`);
      const from = new Date(Date.now() - 30 * 86_400_000).toISOString();
      const path = `/api/calls/stats?${new URLSearchParams({ from, tz: TZ })}`;
      const filtered = `/api/calls/stats?${new URLSearchParams({ from, tz: TZ, assistant_id: assistantId })}`;
      const answers: string[] = [];
      const filteredAnswers: string[] = [];
      const label = kind === "pglite" ? "embedded (PGlite)" : "PostgreSQL server";
      for (const rollups of [false, true]) {
        server = await startServer(t, rollups);
        try {
          const { cookie } = await signIn(server.url, false);
          if (!rollups) {
            // The floor every request pays here (session, membership, HTTP): a page of one call, no stats.
            const floor = await measure(server.url, cookie, "/api/calls?limit=1");
            rows.push([label, "floor: GET /api/calls?limit=1", String(floor.n), `${floor.p50.toFixed(1)} ms`, `${floor.p99.toFixed(1)} ms`]);
          }
          const r = await measure(server.url, cookie, path, rollups ? REQUESTS : RAW_REQUESTS);
          answers.push(r.body);
          rows.push([label, rollups ? "roll-ups" : "raw", String(r.n), `${r.p50.toFixed(1)} ms`, `${r.p99.toFixed(1)} ms`]);
          log(`  ${rollups ? "roll-ups" : "raw"}: p50 ${r.p50.toFixed(1)} ms, p99 ${r.p99.toFixed(1)} ms over ${r.n} requests (load ${loadavg()[0]!.toFixed(1)})`);
          // The raw sums once (their cost is the unfiltered row's), the roll-ups measured.
          const f = await measure(server.url, cookie, filtered, rollups ? REQUESTS : 1);
          filteredAnswers.push(f.body);
          if (rollups) {
            rows.push([label, "roll-ups, one assistant", String(f.n), `${f.p50.toFixed(1)} ms`, `${f.p99.toFixed(1)} ms`]);
            log(`  roll-ups, one assistant: p50 ${f.p50.toFixed(1)} ms, p99 ${f.p99.toFixed(1)} ms over ${f.n} requests (load ${loadavg()[0]!.toFixed(1)})`);
          }
        } finally {
          await server.stop();
        }
      }
      if (EXPLAIN) await explain(await t.open(), organizationId, from, assistantId);
      log(`  for one assistant the two sources answered ${filteredAnswers[0] === filteredAnswers[1] ? "the same" : "DIFFERENTLY"}`);
      if (filteredAnswers[0] !== filteredAnswers[1]) process.exitCode = 1;
      log(`  the two sources answered ${answers[0] === answers[1] ? "the same" : "DIFFERENTLY"}`);
      if (answers[0] !== answers[1]) process.exitCode = 1;
    } finally {
      await t.dispose();
    }
  }
  log(`\n/api/calls/stats, last 30 days, tz ${TZ}, sequential requests over HTTP on 127.0.0.1, ${CALLS.toLocaleString("en-US")} calls in one organisation`);
  log(markdownTable(["database", "source", "requests", "p50", "p99"], rows));
  log(`load average at end ${loadavg().map((l) => l.toFixed(1)).join(" / ")}`);
}

await run();
