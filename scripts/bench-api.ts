/**
 * `npm run bench:api`: the Calls API at contact-centre scale, on the local PostgreSQL.
 *  1. Its own database, `switchboard_bench_api` (BENCH_PG_URL names the server; default
 *     postgres://postgres@127.0.0.1:5432/postgres). Reused when it already holds the seeded calls;
 *     `--reseed` drops and rebuilds it. Migrated with the app's own migrations.
 *  2. Starts the real server in a child process (so the load generator does not share its event
 *     loop), signs a user up through the API and, when needed, seeds 1,000,000 calls across 100
 *     users (bench-api-seed.ts).
 *  3. Loads, with autocannon on 127.0.0.1, for that user: the first page, a page behind a deep
 *     cursor, a filtered page, a search and the stats of the last 30 days; prints requests per
 *     second and p50/p99 latency. `--explain` also prints each query's plan (EXPLAIN ANALYZE).
 * Options: --reseed, --explain, --duration S (default 10, at most 60), --connections N (default 10, at most 50).
 */
import { spawn } from "node:child_process";
import { randomBytes } from "node:crypto";
import { mkdtempSync, rmSync } from "node:fs";
import { cpus, loadavg, tmpdir } from "node:os";
import { join, resolve } from "node:path";
import autocannon from "autocannon";
import { sql } from "drizzle-orm";
import pg from "pg";
import { withDatabase } from "../tests/global-setup.ts";
import { openDatabase } from "../src/server/db/client.ts";
import { callTotalsQuery, listCallSummaries } from "../src/server/modules/calls/calls-history.repo.ts";
import { encodeCursor, type Keyset } from "../src/server/http/pages.ts";
import type { CallFilters } from "../src/shared/call-records.ts";
import { seedBenchData } from "./bench-api-seed.ts";
import { freePort } from "../tests/free-port.ts";
import { untilHealthy } from "./bench-process.ts";

const CALLS = 1_000_000;
const DB_NAME = "switchboard_bench_api";
const DEEP_OFFSET = 5_000;
const AIM = { pageP99Ms: 20, statsP99Ms: 100 };
const root = resolve(import.meta.dirname, "..");

const args = process.argv.slice(2);
const option = (name: string, fallback: number, max: number) => {
  const i = args.indexOf(name);
  const value = i >= 0 ? Number(args[i + 1]) : fallback;
  return Math.min(max, Math.max(1, Number.isFinite(value) ? value : fallback));
};
const reseed = args.includes("--reseed");
const explain = args.includes("--explain");
const duration = option("--duration", 10, 60);
const connections = option("--connections", 10, 50);
const adminUrl = process.env.BENCH_PG_URL ?? "postgres://postgres@127.0.0.1:5432/postgres";
const benchUrl = withDatabase(adminUrl, DB_NAME);
const log = (line: string) => console.log(line);

async function prepareDatabase(): Promise<boolean> {
  const admin = new pg.Client({ connectionString: adminUrl });
  await admin.connect();
  try {
    const exists = (await admin.query("SELECT 1 FROM pg_database WHERE datname = $1", [DB_NAME])).rowCount === 1;
    if (exists && !reseed) {
      const bench = new pg.Client({ connectionString: benchUrl });
      await bench.connect();
      const seeded = await bench
        .query<{ calls: string }>("SELECT value AS calls FROM bench_meta WHERE key = 'seeded_calls'")
        .then((r) => Number(r.rows[0]?.calls ?? 0))
        .catch(() => 0);
      await bench.end();
      if (seeded === CALLS) {
        log(`Reusing ${DB_NAME} (${CALLS.toLocaleString("en-US")} calls seeded earlier; --reseed rebuilds it)`);
        return false;
      }
    }
    log(`${exists ? "Dropping and re-creating" : "Creating"} database ${DB_NAME}`);
    await admin.query(`DROP DATABASE IF EXISTS ${DB_NAME}`);
    await admin.query(`CREATE DATABASE ${DB_NAME}`);
    return true;
  } finally {
    await admin.end();
  }
}

async function startServer(port: number) {
  const dataDir = mkdtempSync(join(tmpdir(), "switchboard-bench-api-"));
  const child = spawn(join(root, "node_modules/.bin/tsx"), ["src/server/main.ts"], {
    cwd: root,
    env: { ...process.env, NODE_ENV: "production", ALLOW_HTTP_IN_PRODUCTION: "true", LOG_LEVEL: "warn", HOST: "127.0.0.1", PORT: String(port), PUBLIC_URL: `http://127.0.0.1:${port}`, DATABASE_URL: benchUrl, DATA_DIR: dataDir, APP_SECRET: randomBytes(32).toString("hex") },
    stdio: ["ignore", "inherit", "inherit"],
  });
  const url = `http://127.0.0.1:${port}`;
  await untilHealthy(child, url);
  return {
    url,
    async stop() {
      child.kill("SIGTERM");
      await new Promise((r) => child.once("exit", r));
      rmSync(dataDir, { recursive: true, force: true });
    },
  };
}

/** The benchmark's own account: signed up once, logged in on every run. */
async function signIn(url: string): Promise<{ cookie: string; userId: string }> {
  const credentials = { email: "bench-000@example.com", password: "bench-password-123" };
  // The auth library checks the Origin of browser-style requests against PUBLIC_URL.
  const headers = { "content-type": "application/json", origin: url };
  const signUp = await fetch(`${url}/api/auth/sign-up/email`, { method: "POST", headers, body: JSON.stringify({ ...credentials, name: "Bench user 0" }) });
  if (!signUp.ok && signUp.status !== 422 && signUp.status !== 400) throw new Error(`sign-up failed: ${signUp.status}`);
  const login = await fetch(`${url}/api/auth/sign-in/email`, { method: "POST", headers, body: JSON.stringify(credentials) });
  if (!login.ok) throw new Error(`login failed: ${login.status} ${await login.text()}`);
  const cookie = login.headers.getSetCookie().map((c) => c.split(";")[0]).join("; ");
  return { cookie, userId: ((await login.json()) as { user: { id: string } }).user.id };
}

interface Scenario {
  name: string;
  path: string;
  aimMs: number;
  explain: () => { sql: string; params: unknown[] };
}

async function run() {
  const fresh = await prepareDatabase();
  const database = await openDatabase({ kind: "postgres", url: benchUrl });
  await database.migrate();
  const db = database.db;
  const server = await startServer(await freePort());
  try {
    const { cookie, userId } = await signIn(server.url);
    if (fresh) {
      log(`Seeding ${CALLS.toLocaleString("en-US")} calls across 100 users ...`);
      const started = Date.now();
      await seedBenchData({ url: benchUrl, calls: CALLS, mainUserId: userId, log });
      await db.execute(sql`CREATE TABLE IF NOT EXISTS bench_meta (key text PRIMARY KEY, value text NOT NULL)`);
      await db.execute(sql`INSERT INTO bench_meta VALUES ('seeded_calls', ${String(CALLS)}) ON CONFLICT (key) DO UPDATE SET value = excluded.value`);
      log(`Seeded in ${((Date.now() - started) / 1000).toFixed(0)} s`);
    }

    // The inputs of the scenarios, read from the data itself.
    const client = new pg.Client({ connectionString: benchUrl });
    await client.connect();
    const mine = await client.query<{ n: string }>("SELECT count(*) AS n FROM calls WHERE organization_id = $1", [userId]);
    const deep = await client.query<{ start: string; id: string }>(
      `SELECT to_char(start_time AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.US"Z"') AS start, id FROM calls WHERE organization_id = $1 ORDER BY start_time DESC, id DESC OFFSET $2 LIMIT 1`,
      [userId, DEEP_OFFSET],
    );
    const assistant = await client.query<{ id: string }>("SELECT id FROM assistants WHERE organization_id = $1 ORDER BY name LIMIT 1", [userId]);
    // A rare term: the last 4 digits of one caller's number (the GIN index's side of the plan).
    const caller = await client.query<{ n: string }>(
      "SELECT caller_number AS n FROM calls WHERE organization_id = $1 AND caller_number IS NOT NULL ORDER BY start_time DESC OFFSET 100 LIMIT 1",
      [userId],
    );
    const cursor: Keyset | undefined = deep.rows[0] ? [deep.rows[0].start, deep.rows[0].id] : undefined;
    const now = new Date();
    const monthAgo = new Date(now.getTime() - 30 * 86_400_000);
    const filtered = { assistant_id: assistant.rows[0]!.id, type: "real", status: "completed" } satisfies CallFilters;
    const search: CallFilters = { q: "refund" };
    const numberSearch: CallFilters = { q: caller.rows[0]?.n.slice(-4) ?? "0000" };
    const period: CallFilters = { from: monthAgo.toISOString(), to: now.toISOString() };
    const qs = (params: Record<string, string | undefined>) => new URLSearchParams(Object.entries(params).filter((e): e is [string, string] => e[1] !== undefined)).toString();
    const page = (filters: CallFilters, c?: typeof cursor) => listCallSummaries(db, userId, filters, 51, c).toSQL();
    const scenarios: Scenario[] = [
      { name: "first page (50)", path: "/api/calls?limit=50", aimMs: AIM.pageP99Ms, explain: () => page({}) },
      { name: `deep cursor (after ${DEEP_OFFSET.toLocaleString("en-US")})`, path: `/api/calls?${qs({ limit: "50", cursor: cursor && encodeCursor(cursor) })}`, aimMs: AIM.pageP99Ms, explain: () => page({}, cursor) },
      { name: "filtered page", path: `/api/calls?${qs({ limit: "50", ...filtered })}`, aimMs: AIM.pageP99Ms, explain: () => page(filtered) },
      { name: 'search "refund"', path: `/api/calls?${qs({ limit: "50", q: search.q })}`, aimMs: AIM.pageP99Ms, explain: () => page(search) },
      { name: `search a number "${numberSearch.q}"`, path: `/api/calls?${qs({ limit: "50", q: numberSearch.q })}`, aimMs: AIM.pageP99Ms, explain: () => page(numberSearch) },
      {
        name: "stats, 30 days",
        path: `/api/calls/stats?${qs({ from: period.from, to: period.to, tz: "Europe/Paris" })}`,
        aimMs: AIM.statsP99Ms,
        // The route runs both; the totals are the larger of the two.
        explain: () => callTotalsQuery(db, userId, period).toSQL(),
      },
    ];

    log(`\nMachine: ${cpus().length} cores (${cpus()[0]?.model ?? "unknown CPU"}), load average ${loadavg().map((l) => l.toFixed(1)).join(" / ")} at start, PostgreSQL at ${new URL(adminUrl).host}, Node ${process.version}`);
    log(`Data: ${CALLS.toLocaleString("en-US")} calls, 100 users; the measured user has ${Number(mine.rows[0]!.n).toLocaleString("en-US")}`);
    log(`Load: autocannon, ${connections} connections, ${duration} s per scenario, 127.0.0.1\n`);
    const rows: string[][] = [];
    for (const scenario of scenarios) {
      if (explain) {
        const { sql: text, params } = scenario.explain();
        const plan = await client.query<{ "QUERY PLAN": string }>(`EXPLAIN (ANALYZE, BUFFERS) ${text}`, params);
        log(`── ${scenario.name}\n${plan.rows.map((r) => r["QUERY PLAN"]).join("\n")}\n`);
      }
      // A short warm-up, so the first figures are not the cache filling.
      await autocannon({ url: server.url + scenario.path, connections: 2, amount: 50, headers: { cookie } });
      const result = await autocannon({ url: server.url + scenario.path, connections, duration, headers: { cookie } });
      const bad = result.non2xx + result.errors + result.timeouts;
      rows.push([
        scenario.name,
        result.requests.average.toFixed(0),
        `${result.latency.p50} ms`,
        `${result.latency.p99} ms`,
        `< ${scenario.aimMs} ms`,
        bad ? `${bad} failed` : result.latency.p99 < scenario.aimMs ? "yes" : "no",
      ]);
    }
    await client.end();
    const header = ["scenario", "req/s", "p50", "p99", "aim p99", "met"];
    const widths = header.map((h, i) => Math.max(h.length, ...rows.map((r) => r[i]!.length)));
    for (const line of [header, widths.map((w) => "-".repeat(w)), ...rows]) log(line.map((cell, i) => (i === 0 ? cell.padEnd(widths[i]!) : cell.padStart(widths[i]!))).join("  "));
  } finally {
    await server.stop();
    await database.close();
  }
}

await run();
