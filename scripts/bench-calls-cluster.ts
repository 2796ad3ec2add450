/**
 * `npm run bench:calls -- --workers N`: Switchboard as `npm start` runs it with a PostgreSQL
 * server — the built server (dist/server/main.js, built first) in a child process, a primary and N worker
 * processes on one port (node:cluster) — on a database seeded by the in-process bench app,
 * which is stopped before the calls. CPU and memory are those of the whole process tree.
 */
import { spawn } from "node:child_process";
import { get } from "node:http";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { count, isNull } from "drizzle-orm";
import { calls as callsTable } from "../src/server/db/schema.ts";
import { BUILT_SERVER, buildServer } from "./build-server.ts";
import { BENCH_APP_SECRET, finalisedCalls, startPhoneBenchApp } from "./bench-phone-app.ts";
import { cpuSecondsOf, freePort, rssMbOf } from "./bench-process.ts";

export interface ClusterUnderTest {
  target: { origin: string; authToken: string; to: string };
  /** The primary and its workers. */
  pids(): number[];
  cpuSeconds(): number;
  rssMb(): number;
  /** Calls still open: records without an end (the workers' live calls are not visible from here). */
  liveCalls(): Promise<number>;
  finalised(): Promise<number>;
  close(): Promise<void>;
}

/** The instance answering GET /api/health on a new connection (the primary hands each to the next worker). */
function instanceAnswering(origin: string): Promise<string | null> {
  return new Promise((resolve) => {
    get(`${origin}/api/health`, { agent: false }, (res) => {
      let body = "";
      res.on("data", (chunk: Buffer) => (body += chunk.toString()));
      res.on("end", () => resolve((JSON.parse(body) as { instance?: string }).instance ?? null));
    }).on("error", () => resolve(null));
  });
}

/** The process and its descendants (Linux /proc). */
function treeOf(pid: number): number[] {
  try {
    const children = readFileSync(`/proc/${pid}/task/${pid}/children`, "utf8").trim().split(/\s+/).filter(Boolean).map(Number);
    return [pid, ...children.flatMap(treeOf)];
  } catch {
    return [];
  }
}

export async function startClusterServer(provider: { baseUrl: string; apiKey: string }, o: { workers: number; maxCalls: string | undefined; postgresUrl: string }): Promise<ClusterUnderTest> {
  const seeded = await startPhoneBenchApp(provider, undefined, {}, o.postgresUrl);
  await seeded.stopApp();
  const port = await freePort();
  const origin = `http://127.0.0.1:${port}`;
  const dataDir = mkdtempSync(join(tmpdir(), "switchboard-bench-cluster-"));
  await buildServer();
  const server = spawn(process.execPath, [...(process.env.BENCH_SERVER_NODE_ARGS?.split(" ").filter(Boolean) ?? []), "--enable-source-maps", BUILT_SERVER], {
    env: {
      ...process.env,
      NODE_ENV: "production",
      ALLOW_HTTP_IN_PRODUCTION: "true",
      LOG_LEVEL: "warn",
      PORT: String(port),
      HOST: "127.0.0.1",
      PUBLIC_URL: origin,
      DATA_DIR: dataDir,
      DATABASE_URL: seeded.databaseUrl!,
      APP_SECRET: BENCH_APP_SECRET,
      OPENAI_BASE_URL: provider.baseUrl,
      WORKERS: String(o.workers),
      ...(o.maxCalls ? { MAX_CALLS: o.maxCalls } : {}),
    },
    stdio: ["ignore", "ignore", "inherit"],
  });
  // Ready when every worker answers: health asked until as many instances as workers have answered.
  const seen = new Set<string>();
  const deadline = Date.now() + 120_000;
  while (seen.size < o.workers) {
    if (Date.now() > deadline || server.exitCode !== null) throw new Error(`the server did not start ${o.workers} worker(s)`);
    const instance = await instanceAnswering(origin);
    if (instance) seen.add(instance);
    else await new Promise((resolve) => setTimeout(resolve, 250));
  }
  const { db } = seeded.database;
  const tree = () => treeOf(server.pid!);
  return {
    target: { ...seeded.target, origin },
    pids: tree,
    cpuSeconds: () => tree().reduce((sum, pid) => sum + (cpuSecondsOf(pid) || 0), 0),
    rssMb: () => tree().reduce((sum, pid) => sum + (rssMbOf(pid) || 0), 0),
    liveCalls: async () => (await db.select({ n: count() }).from(callsTable).where(isNull(callsTable.endTime)))[0]?.n ?? 0,
    finalised: () => finalisedCalls(db),
    close: async () => {
      const exited = new Promise((resolve) => server.once("exit", resolve));
      server.kill("SIGTERM");
      await Promise.race([exited, new Promise((resolve) => setTimeout(resolve, 30_000))]);
      if (server.exitCode === null) server.kill("SIGKILL");
      await seeded.close();
      rmSync(dataDir, { recursive: true, force: true });
    },
  };
}
