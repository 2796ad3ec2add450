/**
 * `npm run bench:memory [-- --pg] [--calls 50] [--seconds 20]`: the resident memory of Switchboard
 * as `npm start` runs it — the built server (dist/server/main.js, built first) in a child process,
 * one process (WORKERS=1 with `--pg`) — read from /proc at three moments:
 *  1. idle, ten quiet seconds after the server answers: once on a new data folder (its first
 *     start creates the embedded database), then on a data folder seeded by the bench app (a user,
 *     an assistant, a phone number; stopped before the server starts). With `--pg` both starts use
 *     a fresh database on the PostgreSQL server at BENCH_PG_URL, seeded;
 *  2. after a burst of 1,000 API requests as that user (the Calls page's list and stats, the
 *     assistants, the health check, the home page; 10 at a time), then five quiet seconds;
 *  3. with N simultaneous phone calls (bench-calls-callers.ts and the fake provider of bench:calls),
 *     at the end of their streaming window.
 * Also printed: the highest resident memory the process reached (VmHWM).
 */
import { spawn } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { BUILT_SERVER, buildServer } from "./build-server.ts";
import type { CallersMessage, CallersRequest, ProviderMessage, ProviderRequest } from "./bench-calls-shared.ts";
import { BENCH_APP_SECRET, startPhoneBenchApp } from "./bench-phone-app.ts";
import { child, freePort, markdownTable, rssMbOf } from "./bench-process.ts";
import { nextMessage, send } from "./bench-voice-shared.ts";

const args = process.argv.slice(2);
const option = (name: string, fallback: number) => {
  const at = args.indexOf(name);
  return at >= 0 ? Math.max(1, Number(args[at + 1]) || fallback) : fallback;
};
const postgresUrl = args.includes("--pg") ? (process.env.BENCH_PG_URL ?? "postgres://postgres@127.0.0.1:5432/postgres") : undefined;
const calls = option("--calls", 50);
const seconds = option("--seconds", 20);
const BURST = 1000;
const BURST_CONCURRENCY = 10;
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
const peakMbOf = (pid: number) => Number(/VmHWM:\s+(\d+)/.exec(readFileSync(`/proc/${pid}/status`, "utf8"))?.[1]) / 1024;

/** The built server on `dataDir` (its database there, or at `databaseUrl`), ready and then ten quiet seconds. */
async function startServer(origin: string, dataDir: string, openaiBaseUrl: string, databaseUrl: string | undefined) {
  const server = spawn(process.execPath, ["--enable-source-maps", BUILT_SERVER], {
    env: {
      ...process.env,
      NODE_ENV: "production",
      ALLOW_HTTP_IN_PRODUCTION: "true",
      LOG_LEVEL: "warn",
      PORT: new URL(origin).port,
      HOST: "127.0.0.1",
      PUBLIC_URL: origin,
      DATA_DIR: dataDir,
      APP_SECRET: BENCH_APP_SECRET,
      OPENAI_BASE_URL: openaiBaseUrl,
      WORKERS: "1",
      ...(databaseUrl ? { DATABASE_URL: databaseUrl } : {}),
    },
    stdio: ["ignore", "ignore", "inherit"],
  });
  const started = performance.now();
  while (!(await fetch(`${origin}/api/health`).then((r) => r.ok, () => false))) {
    if (server.exitCode !== null || performance.now() - started > 180_000) throw new Error("the server did not start");
    await sleep(250);
  }
  const startSeconds = (performance.now() - started) / 1000;
  await sleep(10_000);
  return {
    pid: server.pid!,
    startSeconds,
    async stop() {
      const exited = new Promise((resolve) => server.once("exit", resolve));
      server.kill("SIGTERM");
      await Promise.race([exited, sleep(30_000)]);
      if (server.exitCode === null) server.kill("SIGKILL");
    },
  };
}

async function main() {
  const provider = child("bench-calls-provider.ts");
  send(provider, { type: "start", seconds, bargeInEveryMs: 3000 } satisfies ProviderRequest);
  const { baseUrl, apiKey } = await nextMessage<ProviderMessage, "listening">(provider, "listening");

  const dataDir = mkdtempSync(join(tmpdir(), "switchboard-bench-memory-"));
  const seeded = await startPhoneBenchApp({ baseUrl, apiKey }, undefined, {}, postgresUrl, postgresUrl ? undefined : join(dataDir, "seeded", "pglite"));
  await seeded.stopApp();
  // The embedded database is one process's files: the seed closes them before the server opens them.
  if (!postgresUrl) await seeded.database.close();
  await buildServer();
  const port = await freePort();
  const origin = `http://127.0.0.1:${port}`;

  // A first start on a new data folder (with --pg: on the seeded database) measured on its own.
  const fresh = await startServer(origin, join(dataDir, "fresh"), baseUrl, postgresUrl ? seeded.databaseUrl! : undefined);
  const idleFirstStart = rssMbOf(fresh.pid);
  await fresh.stop();

  const server = await startServer(origin, join(dataDir, "seeded"), baseUrl, postgresUrl ? seeded.databaseUrl! : undefined);
  const { pid, startSeconds } = server;
  const idle = rssMbOf(pid);

  const headers = { cookie: seeded.cookie };
  const paths = ["/api/calls?limit=50", "/api/calls/stats?tz=Europe/Paris", "/api/assistants", "/api/health", "/"];
  const statuses = new Map<number, number>();
  let sent = 0;
  await Promise.all(
    Array.from({ length: BURST_CONCURRENCY }, async () => {
      while (sent < BURST) {
        const path = paths[sent++ % paths.length]!;
        const res = await fetch(origin + path, { headers });
        await res.arrayBuffer();
        statuses.set(res.status, (statuses.get(res.status) ?? 0) + 1);
      }
    }),
  );
  await sleep(5_000);
  const afterBurst = rssMbOf(pid);

  const callers = child("bench-calls-callers.ts");
  send(callers, { type: "start", target: { ...seeded.target, origin }, calls, seconds } satisfies CallersRequest);
  const streaming = await nextMessage<CallersMessage, "streaming">(callers, "streaming", 300_000);
  await nextMessage<CallersMessage, "streamed">(callers, "streamed", 900_000);
  const withCalls = rssMbOf(pid);
  const peak = peakMbOf(pid);
  for (const proc of [callers, provider]) proc.kill();

  await server.stop();
  if (postgresUrl) await seeded.close();
  rmSync(dataDir, { recursive: true, force: true });

  console.log(`\nbench:memory — ${postgresUrl ? "PostgreSQL server (DATABASE_URL, WORKERS=1)" : "embedded database (DATA_DIR)"}; started in ${startSeconds.toFixed(1)} s`);
  console.log(`burst answers: ${[...statuses].map(([status, n]) => `${n}× ${status}`).join(", ")}; calls: ${streaming.connected} connected, ${streaming.failed} failed, ${streaming.refused} refused\n`);
  console.log(
    markdownTable(
      ["idle, first start MB", "idle MB", `after ${BURST} API requests MB`, `with ${calls} calls MB`, "peak MB"],
      [[idleFirstStart, idle, afterBurst, withCalls, peak].map((mb) => mb.toFixed(0))],
    ),
  );
}

await main();
process.exit(0);
