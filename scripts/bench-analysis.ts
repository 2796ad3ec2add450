/**
 * `npm run bench:analysis [-- --analyses 1000] [--delay 300] [--calls 10] [--seconds 10] [--pg]`:
 * post-call analysis under load, end to end through real sockets (`--pg`: on the PostgreSQL
 * server of DATABASE_URL, in a database of its own, instead of the embedded PGlite).
 *
 * Three processes besides this one (the real app: buildApp, embedded database, a real port):
 *  - bench-analysis-provider.ts: the fake OpenAI — Realtime for live calls, the Responses API
 *    answering every analysis after `--delay` ms (300 by default);
 *  - bench-voice-callers.ts: `--calls` browser test calls streaming audio both ways;
 *  - bench-analysis-requests.ts: the client asking for the analyses.
 *
 * `--analyses` ended call records are written (each with a caller turn), then each one's analysis
 * is asked for over HTTP (POST /api/calls/:id/analysis: the same pending record and durable job
 * the end of a call makes). Printed: throughput (analyses done per second), the time from the
 * request (the call's end) to `done` (p50/p99/max), and — measured twice, without and with the
 * burst running — the server's time per audio frame of the live calls and its event-loop delay,
 * to show the calls in progress see no added latency.
 */
import { inArray, sql } from "drizzle-orm";
import { mkdtempSync, rmSync } from "node:fs";
import type { AddressInfo } from "node:net";
import { availableParallelism, loadavg, tmpdir } from "node:os";
import { join } from "node:path";
import { monitorEventLoopDelay } from "node:perf_hooks";
import { buildApp } from "../src/server/app.ts";
import { loadConfig } from "../src/server/config.ts";
import { openDatabase } from "../src/server/db/client.ts";
import { calls as callsTable } from "../src/server/db/schema.ts";
import { createScratchDatabase, dropScratchDatabase } from "../tests/instances/scratch-database.ts";
import { injectPost, newAccount, signUp } from "../tests/sign-up.ts";
import type { RequestsMessage } from "./bench-analysis-requests.ts";
import { child, markdownTable, positiveOption } from "./bench-process.ts";
import { nextMessage, send, summarize, type CallersMessage, type CallersRequest, type Summary } from "./bench-voice-shared.ts";

const args = process.argv.slice(2);
const option = (name: string, fallback: number) => positiveOption(args, name, fallback);
const ANALYSES = option("--analyses", 1000);
const DELAY_MS = option("--delay", 300);
const LIVE_CALLS = option("--calls", 10);
const SECONDS = option("--seconds", 10);
const REQUEST_CONCURRENCY = 20;

const loadAtStart = loadavg()[0]!;
const provider = child("bench-analysis-provider.ts");
send(provider, { type: "start", seconds: SECONDS * 2 + 5, delayMs: DELAY_MS });
const { baseUrl, apiKey } = await nextMessage<{ type: "listening"; baseUrl: string; apiKey: string }, "listening">(provider, "listening");

const dataDir = mkdtempSync(join(tmpdir(), "switchboard-bench-analysis-"));
// With --pg, a fresh database on the PostgreSQL server of DATABASE_URL (dropped at the end) instead of PGlite.
const ON_PG = args.includes("--pg");
const pgAdmin = ON_PG ? process.env.DATABASE_URL : undefined;
if (ON_PG && !pgAdmin) throw new Error("--pg needs DATABASE_URL (e.g. postgres://postgres@127.0.0.1:5432/postgres)");
const scratch = pgAdmin ? await createScratchDatabase("bench_analysis", pgAdmin) : undefined;
const database = await openDatabase(scratch ? { kind: "postgres", url: scratch.url } : { kind: "pglite" });
await database.migrate();
const config = loadConfig({ NODE_ENV: "test", LOG_LEVEL: "silent", DATA_DIR: dataDir, OPENAI_BASE_URL: baseUrl });
const frames: number[] = [];
let measuring = false;
const app = await buildApp(
  { ...config, appSecret: "bench-analysis-secret-0123456789abcdef012345" },
  { database, callMetrics: { uplink: (ms) => measuring && frames.push(ms), downlink: (ms) => measuring && frames.push(ms) } },
);
await app.listen({ port: 0, host: "127.0.0.1" });
const { port } = app.server.address() as AddressInfo;
const origin = `http://127.0.0.1:${port}`;

const { cookie, organizationId } = await signUp(injectPost(app), newAccount("Bench", "bench-analysis-"));
await app.inject({ method: "PUT", url: "/api/credentials/openai_api_key", headers: { cookie }, payload: { value: apiKey } });
const assistant = await app.inject({
  method: "POST",
  url: "/api/assistants",
  headers: { cookie },
  payload: { name: "Bench", instructions: "Talk.", analysis: { fields: [{ name: "order_id", type: "string", description: "The order number", required: false }] } },
});
const assistantId = (assistant.json() as { id: string }).id;

// The ended calls to analyse: a short conversation each, as the engine writes it.
const now = Date.now();
const ids: string[] = [];
for (let at = 0; at < ANALYSES; at += 500) {
  const rows = Array.from({ length: Math.min(500, ANALYSES - at) }, (_, i) => {
    const start = new Date(now - (at + i + 1) * 60_000);
    const stamp = start.toISOString();
    return {
      organizationId,
      assistantId,
      startTime: start,
      endTime: new Date(start.getTime() + 45_000),
      endedReason: "User ended call",
      cost: 0.05,
      logs: {
        isTest: true,
        transcript: [
          { type: "assistant", content: "Hello, this is Bench. How can I help?", timestamp: stamp },
          { type: "user", content: "Where is my order 42? It was due on Monday.", timestamp: stamp },
          { type: "assistant", content: "Order 42 left the warehouse yesterday and arrives tomorrow.", timestamp: stamp },
        ],
        toolsUsed: [],
      },
    };
  });
  const inserted = await database.db.insert(callsTable).values(rows).returning({ id: callsTable.id });
  ids.push(...inserted.map((r) => r.id));
}

async function liveCalls(): Promise<{ callers: ReturnType<typeof child>; streamed: Promise<unknown> }> {
  const urls: string[] = [];
  for (let i = 0; i < LIVE_CALLS; i += 1) {
    const res = await app.inject({ method: "POST", url: "/api/calls/test-session", headers: { cookie }, payload: { assistantId } });
    urls.push(`ws://127.0.0.1:${port}/api/calls/live?session_id=${encodeURIComponent((res.json() as { session_id: string }).session_id)}`);
  }
  const callers = child("bench-voice-callers.ts");
  send(callers, { type: "start", urls, cookie, seconds: SECONDS } satisfies CallersRequest);
  await nextMessage<CallersMessage, "connected">(callers, "connected");
  send(callers, { type: "stream" } satisfies CallersRequest);
  return { callers, streamed: nextMessage<CallersMessage, "streamed">(callers, "streamed", (SECONDS + 120) * 1000) };
}

/** Streams the live calls for SECONDS (after a warm-up second) while `during` runs; their frame times and loop delay. */
async function phase(during: () => void): Promise<{ frame: Summary; loopP99: number; e2e: Summary }> {
  const { callers, streamed } = await liveCalls();
  await new Promise((resolve) => setTimeout(resolve, 1000));
  frames.length = 0;
  const loop = monitorEventLoopDelay({ resolution: 1 });
  loop.enable();
  measuring = true;
  during();
  await streamed;
  measuring = false;
  loop.disable();
  send(callers, { type: "end", from: "0", to: String(process.hrtime.bigint()) } satisfies CallersRequest);
  const report = await nextMessage<CallersMessage, "report">(callers, "report", 120_000);
  while (app.ctx.liveCalls.size > 0) await new Promise((resolve) => setTimeout(resolve, 50));
  if (callers.exitCode === null) callers.kill();
  return { frame: summarize(frames), loopP99: loop.percentile(99) / 1e6, e2e: report.downlinkE2e };
}

const requestedAt = new Map<string, number>();
let refused = 0;
/** The requests come from a child process (bench-analysis-requests.ts), as from any client. */
async function requestAll(): Promise<void> {
  const requests = child("bench-analysis-requests.ts");
  send(requests, { type: "start", origin, cookie, ids, concurrency: REQUEST_CONCURRENCY } satisfies RequestsMessage);
  const report = await nextMessage<RequestsMessage, "done">(requests, "done", 600_000);
  for (const [id, at] of report.requestedAt) requestedAt.set(id, at);
  refused = report.refused;
}

const quiet = await phase(() => undefined);
let burst: Promise<void> = Promise.resolve();
const loaded = await phase(() => {
  burst = requestAll();
});
await burst;

// Until every analysis is done (or failed): completion times from the records.
const deadline = Date.now() + 600_000;
let finished: Array<{ id: string; status: string | null; completedAt: string | null }> = [];
while (Date.now() < deadline) {
  finished = await database.db
    .select({ id: callsTable.id, status: sql<string | null>`${callsTable.analysis} ->> 'status'`, completedAt: sql<string | null>`${callsTable.analysis} ->> 'completed_at'` })
    .from(callsTable)
    .where(inArray(callsTable.id, ids));
  if (finished.every((r) => r.status === "done" || r.status === "failed")) break;
  await new Promise((resolve) => setTimeout(resolve, 250));
}
const latencies = finished.filter((r) => r.status === "done" && r.completedAt).map((r) => Date.parse(r.completedAt!) - requestedAt.get(r.id)!);
const firstRequest = Math.min(...requestedAt.values());
const lastDone = Math.max(...finished.filter((r) => r.completedAt).map((r) => Date.parse(r.completedAt!)));
const done = finished.filter((r) => r.status === "done").length;
const endToDone = summarize(latencies);

send(provider, { type: "report" });
const fake = await nextMessage<{ type: "report"; requests: number; accepted: number; scriptError: string | null }, "report">(provider, "report");
await app.close();
await database.close();
await dropScratchDatabase(scratch);
rmSync(dataDir, { recursive: true, force: true });
if (provider.exitCode === null) provider.kill();

const ms = (n: number) => n.toFixed(n < 10 ? 2 : 0);
console.log(`\nbench:analysis — ${ANALYSES} ended calls, fake Responses API at ${DELAY_MS} ms per request (its own process), concurrency ${config.analysis.concurrency} per instance, ${ON_PG ? "PostgreSQL server" : "embedded PGlite"}`);
// Figures of a shared machine are that machine's: say how busy it was.
console.log(
  `machine: ${availableParallelism()} cores, load average ${loadAtStart.toFixed(1)} at start and ${loadavg()[0]!.toFixed(1)} at the end` +
    (Math.max(loadAtStart, loadavg()[0]!) > availableParallelism() ? " — busy with other work: the figures are this machine's, not the app's best\n" : "\n"),
);
console.log(
  markdownTable(
    ["analyses", "done", "failed", "refused", "requests at fake", "throughput /s", "end→done p50 ms", "p99 ms", "max ms"],
    [[String(ANALYSES), String(done), String(finished.length - done), String(refused), String(fake.accepted), (done / ((lastDone - firstRequest) / 1000)).toFixed(1), ms(endToDone.p50), ms(endToDone.p99), ms(endToDone.max)]],
  ),
);
console.log(
  `\n${LIVE_CALLS} live calls, ${SECONDS} s each phase: the assistant's audio from the fake provider to the caller (both other processes, through the server), the server's time per audio frame and its event-loop delay\n`,
);
console.log(
  markdownTable(
    ["phase", "audio to caller p50 ms", "p99 ms", "frames", "frame p50 ms", "frame p99 ms", "loop delay p99 ms"],
    [quiet, loaded].map((p, i) => [i === 0 ? "calls only" : "calls + analysis burst", ms(p.e2e.p50), ms(p.e2e.p99), String(p.frame.count), ms(p.frame.p50), ms(p.frame.p99), ms(p.loopP99)]),
  ),
);
if (fake.scriptError) console.log(`\nfake: ${fake.scriptError}`);
process.exit(0);
