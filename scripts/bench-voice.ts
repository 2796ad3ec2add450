/**
 * `npm run bench:voice [-- --calls 10,100,500] [--seconds 10] [--memory-every 30]`: N simultaneous
 * browser test calls through the real server, for each N. For memory over a long call:
 * `npm run bench:voice -- --calls 5 --seconds 300 --memory-every 30` (five minutes of talk).
 *
 * Three processes, so each one's work is counted where it belongs:
 *  - this one: the real app (buildApp, embedded database in a temporary DATA_DIR, a real port),
 *    with the call engine's per-frame timing hook switched on;
 *  - bench-voice-provider.ts: the fake OpenAI Realtime GA server (tests/fakes);
 *  - bench-voice-callers.ts: N `ws` clients speaking the browser protocol with the user's cookie.
 * Each call streams 4096-sample PCM16 frames at real-time pace while the fake streams the
 * assistant's voice back in 100 ms deltas, for `--seconds` (default 10); then every call ends
 * and its record (with the WAV) is finalised.
 *
 * Printed per N: the time the server spends on each audio frame, per direction (p50/p99, from
 * the frame's arrival to its hand-off to the other socket; measured in the server); the same
 * path end to end (client → server → fake, fake → server → client, through every process and
 * the kernel, so an upper bound); the server's event-loop delay; CPU and memory per call; and
 * frames dropped anywhere on the way.
 */
import { and, count, isNotNull } from "drizzle-orm";
import { mkdtempSync, rmSync } from "node:fs";
import type { AddressInfo } from "node:net";
import { cpus, loadavg, tmpdir } from "node:os";
import { join } from "node:path";
import { monitorEventLoopDelay, performance, PerformanceObserver } from "node:perf_hooks";
import { buildApp } from "../src/server/app.ts";
import { child, collectGarbage, cpuSecondsOf, markdownTable } from "./bench-process.ts";
import { loadConfig } from "../src/server/config.ts";
import { openDatabase } from "../src/server/db/client.ts";
import { calls as callsTable } from "../src/server/db/schema.ts";
import {
  nextMessage,
  send,
  summarize,
  type CallersMessage,
  type CallersRequest,
  type ProviderMessage,
  type ProviderRequest,
  type Summary,
} from "./bench-voice-shared.ts";

const args = process.argv.slice(2);
const option = (name: string) => {
  const at = args.indexOf(name);
  return at >= 0 ? args[at + 1] : undefined;
};
// `--instances url1,url2`: calls spread over running servers instead of one in this process.
if (option("--instances")) {
  const { benchInstances } = await import("./bench-voice-instances.ts");
  await benchInstances(args);
  process.exit(0);
}
const counts = (option("--calls") ?? "10,100,500")
  .split(",")
  .map((n) => Number(n.trim()))
  .filter((n) => Number.isInteger(n) && n > 0);
const seconds = Math.max(3, Number(option("--seconds") ?? 10) || 10);
/**
 * `--memory-every 30`: also measure the memory the calls hold every that many seconds of talk
 * (a full GC each time), to show it stays flat however long the calls last. With
 * `--seconds 300` this prints memory per call after 30 s and after 5 minutes.
 */
const memoryEvery = Number(option("--memory-every") ?? 0) || 0;
const AIM = { p99Ms: 1, at: 100, capacity: 500 };
const WARM_UP_MS = 1000;


const MB = 1024 * 1024;



/** Garbage-collection pauses of this process while `active`. */
function watchGc() {
  const pauses: number[] = [];
  const observer = new PerformanceObserver((list) => {
    for (const entry of list.getEntries()) pauses.push(entry.duration);
  });
  observer.observe({ entryTypes: ["gc"] });
  return { pauses, stop: () => observer.disconnect() };
}

interface Row {
  calls: number;
  connected: number;
  firstFailure: string | null;
  uplink: Summary;
  downlink: Summary;
  uplinkE2e: Summary;
  downlinkE2e: Summary;
  loopDelayP99: number;
  gcTotalMs: number;
  gcMaxMs: number;
  callersCpu: number;
  providerCpu: number;
  loopUtilisation: number;
  cpuPerCall: number;
  cpuTotal: number;
  peakRssMb: number;
  retainedPerCallMb: number;
  framesUp: number;
  droppedUp: number;
  framesDown: number;
  droppedDown: number;
  finalised: number;
  endedNormally: number;
  answered: number;
  errors: string[];
  finaliseMs: number;
  /** Held memory per call (MB) after `t` seconds of talk, with --memory-every. */
  memory: Array<{ t: number; perCallMb: number }>;
}

async function run(calls: number): Promise<Row> {
  const provider = child("bench-voice-provider.ts");
  send(provider, { type: "start", seconds } satisfies ProviderRequest);
  const { baseUrl, apiKey } = await nextMessage<ProviderMessage, "listening">(provider, "listening");

  const dataDir = mkdtempSync(join(tmpdir(), "switchboard-bench-voice-"));
  const database = await openDatabase({ kind: "pglite" });
  await database.migrate();
  const config = loadConfig({ NODE_ENV: "test", LOG_LEVEL: "silent", DATA_DIR: dataDir, OPENAI_BASE_URL: baseUrl });
  const uplink: number[] = [];
  const downlink: number[] = [];
  let measuring = false;
  const app = await buildApp(
    { ...config, appSecret: "bench-voice-secret-0123456789abcdef0123456789" },
    {
      database,
      callMetrics: {
        uplink: (ms) => measuring && uplink.push(ms),
        downlink: (ms) => measuring && downlink.push(ms),
      },
    },
  );
  await app.listen({ port: 0, host: "127.0.0.1" });
  const { port } = app.server.address() as AddressInfo;

  // One user with a key and an assistant without a first message: the caller speaks first.
  const email = `bench-${Date.now()}@example.com`;
  await app.inject({ method: "POST", url: "/api/auth/sign-up/email", payload: { name: "Bench", email, password: "bench-password" } });
  const login = await app.inject({ method: "POST", url: "/api/auth/sign-in/email", payload: { email, password: "bench-password" } });
  const cookie = login.cookies.map((c) => `${c.name}=${c.value}`).join("; ");
  await app.inject({ method: "PUT", url: "/api/credentials/openai_api_key", headers: { cookie }, payload: { value: apiKey } });
  const assistant = await app.inject({ method: "POST", url: "/api/assistants", headers: { cookie }, payload: { name: "Bench", instructions: "Talk." } });
  const assistantId = (assistant.json() as { id: string }).id;
  const urls: string[] = [];
  for (let i = 0; i < calls; i += 1) {
    const res = await app.inject({ method: "POST", url: "/api/calls/test-session", headers: { cookie }, payload: { assistantId } });
    if (res.statusCode !== 200) throw new Error(`test-session: ${res.statusCode} ${res.body}`);
    urls.push(`ws://127.0.0.1:${port}/api/calls/live?session_id=${encodeURIComponent((res.json() as { session_id: string }).session_id)}`);
  }

  await collectGarbage();
  const baseline = process.memoryUsage();
  const retainedOf = (m: NodeJS.MemoryUsage) => m.heapUsed + m.external;
  const callers = child("bench-voice-callers.ts");
  send(callers, { type: "start", urls, cookie, seconds } satisfies CallersRequest);
  const connected = await nextMessage<CallersMessage, "connected">(callers, "connected");

  // The measured window: every connected call streaming both ways, after a warm-up second
  // (the first frames run through code the JIT has not optimised yet; a running server has).
  send(callers, { type: "stream" } satisfies CallersRequest);
  const streamed = nextMessage<CallersMessage, "streamed">(callers, "streamed", (seconds + 120) * 1000);
  await new Promise((resolve) => setTimeout(resolve, WARM_UP_MS));
  const loopDelay = monitorEventLoopDelay({ resolution: 1 });
  loopDelay.enable();
  const elu = performance.eventLoopUtilization();
  const cpu = process.cpuUsage();
  const childCpu = [cpuSecondsOf(callers.pid), cpuSecondsOf(provider.pid)];
  const gc = watchGc();
  const wallStart = performance.now();
  let peakRss = baseline.rss;
  const sampler = setInterval(() => (peakRss = Math.max(peakRss, process.memoryUsage.rss())), 250);
  measuring = true;
  const windowFrom = process.hrtime.bigint();
  const memory: Row["memory"] = [];
  const talkStart = performance.now() - WARM_UP_MS;
  let sampling = false;
  const memorySampler =
    memoryEvery > 0
      ? setInterval(() => {
          if (sampling) return;
          sampling = true;
          const t = Math.round((performance.now() - talkStart) / 1000);
          void collectGarbage().then(() => {
            memory.push({ t, perCallMb: (retainedOf(process.memoryUsage()) - retainedOf(baseline)) / MB / Math.max(1, connected.connected) });
            sampling = false;
          });
        }, memoryEvery * 1000)
      : null;
  await streamed;
  if (memorySampler) clearInterval(memorySampler);
  measuring = false;
  const window = { from: String(windowFrom), to: String(process.hrtime.bigint()) };
  clearInterval(sampler);
  const wallMs = performance.now() - wallStart;
  const used = process.cpuUsage(cpu);
  const [callersCpu, providerCpu] = [cpuSecondsOf(callers.pid) - childCpu[0]!, cpuSecondsOf(provider.pid) - childCpu[1]!];
  gc.stop();
  const utilisation = performance.eventLoopUtilization(elu).utilization;
  loopDelay.disable();
  // What the calls hold (after a full collection): JS heap plus buffers, the recordings among them.
  await collectGarbage();
  const held = process.memoryUsage();

  const finaliseStart = performance.now();
  send(callers, { type: "end", ...window } satisfies CallersRequest);
  const report = await nextMessage<CallersMessage, "report">(callers, "report", 300_000);
  while (app.ctx.liveCalls.size > 0) await new Promise((resolve) => setTimeout(resolve, 50));
  const finaliseMs = performance.now() - finaliseStart;
  send(provider, { type: "report", ...window } satisfies ProviderRequest);
  const fake = await nextMessage<ProviderMessage, "report">(provider, "report");

  const [finalised] = await database.db
    .select({ n: count() })
    .from(callsTable)
    .where(and(isNotNull(callsTable.endTime), isNotNull(callsTable.recording)));

  await app.close();
  await database.close();
  rmSync(dataDir, { recursive: true, force: true });
  for (const proc of [callers, provider]) if (proc.exitCode === null) proc.kill();

  const cpuMs = (used.user + used.system) / 1000;
  return {
    calls,
    connected: connected.connected,
    firstFailure: connected.firstFailure,
    uplink: summarize(uplink),
    downlink: summarize(downlink),
    uplinkE2e: fake.uplinkE2e,
    downlinkE2e: report.downlinkE2e,
    loopDelayP99: loopDelay.percentile(99) / 1e6,
    gcTotalMs: gc.pauses.reduce((a, b) => a + b, 0),
    gcMaxMs: Math.max(0, ...gc.pauses),
    callersCpu: (callersCpu * 1000) / wallMs,
    providerCpu: (providerCpu * 1000) / wallMs,
    loopUtilisation: utilisation,
    cpuTotal: cpuMs / wallMs,
    cpuPerCall: cpuMs / wallMs / Math.max(1, connected.connected),
    peakRssMb: peakRss / MB,
    retainedPerCallMb: (retainedOf(held) - retainedOf(baseline)) / MB / Math.max(1, connected.connected),
    framesUp: report.framesSent,
    droppedUp: report.framesSent - fake.appends,
    framesDown: fake.deltas,
    droppedDown: fake.deltas - report.framesReceived,
    finalised: finalised?.n ?? 0,
    endedNormally: report.closedNormally,
    answered: report.answered,
    errors: report.errors,
    finaliseMs,
    memory,
  };
}

/** The first talk time after which held memory never grows by more than 10 % (or 0.1 MB) again. */
function plateauOf(memory: Row["memory"]): number | null {
  for (let i = 0; i < memory.length; i += 1) {
    const base = memory[i]!.perCallMb;
    if (memory.slice(i + 1).every((m) => m.perCallMb <= Math.max(base * 1.1, base + 0.1))) return memory[i]!.t;
  }
  return null;
}

const ms = (v: number) => (Number.isFinite(v) ? (v < 10 ? v.toFixed(3) : v.toFixed(1)) : "n/a");
const pair = (s: Summary) => `${ms(s.p50)} / ${ms(s.p99)}`;

function table(rows: Row[]): string {
  const head = [
    "calls",
    "server up ms p50/p99",
    "server down ms p50/p99",
    "e2e up ms p50/p99",
    "e2e down ms p50/p99",
    "loop delay p99 ms",
    "CPU/call %core",
    "held/call MB",
    "peak RSS MB",
    "dropped up",
    "dropped down",
  ];
  const body = rows.map((r) => [
    r.connected === r.calls ? String(r.calls) : `${r.connected}/${r.calls}`,
    pair(r.uplink),
    pair(r.downlink),
    pair(r.uplinkE2e),
    pair(r.downlinkE2e),
    ms(r.loopDelayP99),
    (r.cpuPerCall * 100).toFixed(2),
    r.retainedPerCallMb.toFixed(2),
    r.peakRssMb.toFixed(0),
    `${r.droppedUp}/${r.framesUp}`,
    `${r.droppedDown}/${r.framesDown}`,
  ]);
  return markdownTable(head, body);
}

const [load1] = loadavg();
console.log(
  `bench:voice: ${counts.join(", ")} simultaneous calls, ${seconds} s of audio each way per call, measured after ${WARM_UP_MS / 1000} s of warm-up ` +
    `(Node ${process.version}, ${cpus().length} CPUs, load average ${load1!.toFixed(2)} at start)`,
);
const rows: Row[] = [];
for (const calls of counts) {
  const started = performance.now();
  const row = await run(calls);
  rows.push(row);
  console.log(
    `  ${calls} calls: ${row.connected} connected, ${row.answered} heard the whole answer, ${row.endedNormally} ended with 1000, ${row.finalised} records finalised with a recording ` +
      `(finalising took ${(row.finaliseMs / 1000).toFixed(1)} s); server CPU ${(row.cpuTotal * 100).toFixed(0)} % of a core, ` +
      `event loop ${(row.loopUtilisation * 100).toFixed(0)} % busy, GC ${row.gcTotalMs.toFixed(0)} ms (longest ${row.gcMaxMs.toFixed(1)} ms); ` +
      `callers ${(row.callersCpu * 100).toFixed(0)} %, fake provider ${(row.providerCpu * 100).toFixed(0)} % of a core; ${((performance.now() - started) / 1000).toFixed(1)} s` +
      (row.firstFailure ? `; first failure: ${row.firstFailure}` : "") +
      (row.errors.length ? `; errors: ${[...new Set(row.errors)].join(", ")}` : ""),
  );
}
console.log();
console.log(table(rows));
console.log();
console.log(
  "server up/down: time the server spends on one audio frame, from its arrival at one socket to its hand-off to the other (measured in the server).\n" +
    "e2e: the same frame timed from the sending process to the receiving one (client → server → fake, fake → server → client), including both other\n" +
    "processes, the kernel and time queued in each event loop — an upper bound on what the server adds. CPU and memory are the server process's;\n" +
    "held/call: JS heap + buffers after a full GC at the end of the window, less the idle baseline, per call (recordings are streamed to\n" +
    "storage as the call goes: a call holds at most its last ~10 s of audio, ~1 MB); peak RSS: the server process's resident memory during the window.",
);
for (const row of rows.filter((r) => r.memory.length > 0)) {
  const plateau = plateauOf(row.memory);
  console.log(
    `Memory per call over the talk (${row.connected} calls): ${row.memory.map((m) => `${m.t} s ${m.perCallMb.toFixed(2)} MB`).join(", ")}; ` +
      (plateau === null ? "still growing at the end." : `stops growing after ${plateau} s of talk.`),
  );
}
const at = rows.find((r) => r.calls === AIM.at);
if (at) {
  const worst = Math.max(at.uplink.p99, at.downlink.p99);
  console.log(`Aim: p99 under ${AIM.p99Ms} ms at ${AIM.at} calls — ${worst < AIM.p99Ms ? "met" : "not met"} (server-side p99 ${ms(worst)} ms; end to end ${ms(Math.max(at.uplinkE2e.p99, at.downlinkE2e.p99))} ms).`);
}
const big = rows.find((r) => r.calls === AIM.capacity);
if (big) {
  const clean = big.connected === big.calls && big.droppedUp === 0 && big.droppedDown === 0;
  console.log(
    `Aim: ${AIM.capacity} calls without dropped frames — ${clean ? "met" : "not met"} (${big.connected} connected, ${big.droppedUp} up / ${big.droppedDown} down dropped); ` +
      `the server's event loop was ${(big.loopUtilisation * 100).toFixed(0)} % busy and frames took up to ${ms(Math.max(big.uplinkE2e.p99, big.downlinkE2e.p99))} ms end to end (p99).`,
  );
}
