/**
 * `npm run bench:calls [-- 50 200 500 1000] [--seconds 30] [--barge-in-every 3] [--only relay|switchboard] [--max-calls N] [--pg] [--workers N] [--pin] [--repeat N] [--ingest N [--ingest-pages P] [--idle-load S]] [--json FILE]`:
 * N simultaneous simulated phone calls, for each N, first through a bare pass-through relay
 * (bench-calls-relay.ts, the yardstick) and then through the real server, in one sitting,
 * with the ratio of the two printed. `--repeat N` holds N sittings per count, the order of the
 * two systems alternating, and prints each ratio's median and range: on a shared 2-core virtual
 * machine one sitting's p99 ratio was seen anywhere from 0.9× to 2.8× on the same code.
 *
 * Three processes, so each one's work is counted where it belongs (for the relay, the relay's
 * own process takes the place of the app):
 *  - this one: the real app (buildApp, embedded database — or with `--pg` a fresh database on the
 *    PostgreSQL server at BENCH_PG_URL, whose processes' CPU is then printed too — a real port that is also its
 *    PUBLIC_URL), with the call engine's per-frame timing hook on; a user owning a phone
 *    number with Twilio credentials and an assistant with a first message — or with
 *    `--workers N` (PostgreSQL) the real `npm start` in a child process, N workers (bench-calls-cluster.ts);
 *  - bench-calls-provider.ts: the fake OpenAI Realtime GA server, answering in 20 ms µ-law
 *    deltas at real-time pace, a caller turn (a barge-in) every few seconds;
 *  - bench-calls-callers.ts: N callers speaking Twilio's protocol (signed webhook, media
 *    stream, 20 ms frames, marks echoed when played, clear honoured, stop).
 *
 * `--ingest N` runs Switchboard a second time per sitting while N PDF documents of P pages
 * (default 20) are uploaded to a knowledge base at the window's start by a client of their own
 * (bench-calls-ingest.ts) and ingested by the app's job queue in the same process, and prints
 * the calls' figures with and without it, and how long the ingestion took — with each frame's age
 * when the server handed it on (the e2e less the receiving process's part) and how long the
 * server's thread waited for a core, to tell the server's share of a move from the bench's. `--idle-load S` adds
 * a third run, the control: no documents, but every core kept busy for S seconds from the
 * window's start by a loop at Linux's idle priority (SCHED_IDLE, which yields to any other thread
 * at once) — what a busy machine costs the calls when nothing competes with them for priority.
 *
 * Printed per N: time per media frame each way (in the server, and end to end through every
 * socket), frames lost (caller frames that never reached the provider, from the first one),
 * webhook-to-first-audio and stream-to-first-audio less the provider's own delay, truncation error (how far audio_end_ms is,
 * either way, from what the caller had heard of that item when the clear arrived), server CPU and memory per
 * call, and the callers' own CPU.
 */
import { spawn, type ChildProcess } from "node:child_process";
import { cpus, loadavg } from "node:os";
import type { FrameMetrics } from "../src/server/voice/seams.ts";
import type { CallersMessage, CallersRequest, CallerTarget, IngestMessage, IngestRequest, IngestResult, ProviderMessage, ProviderRequest, RelayMessage, RelayRequest } from "./bench-calls-shared.ts";
import { transcriptCost } from "./bench-calls-transcript.ts";
import { startClusterServer } from "./bench-calls-cluster.ts";
import { finalisedCalls, startPhoneBenchApp } from "./bench-phone-app.ts";
import { child, collectGarbage, cpuSecondsOf, cpuSecondsOfCommand, markdownTable, pidsOfCommand, pinTo, rssMbOf, watchEventLoop, type LoopWatch } from "./bench-process.ts";
import { ageOfFrame, nextMessage, send, summarize, within, type FrameAge, type Summary } from "./bench-voice-shared.ts";
import { writeFileSync } from "node:fs";

const args = process.argv.slice(2);
const option = (name: string) => {
  const at = args.indexOf(name);
  return at >= 0 ? args[at + 1] : undefined;
};
const positional = args.filter((a, i) => !a.startsWith("--") && !(i > 0 && args[i - 1]!.startsWith("--")));
const counts = (positional.length ? positional : ["50", "200", "500", "1000"]).flatMap((a) => a.split(",")).map(Number).filter((n) => Number.isInteger(n) && n > 0);
const seconds = Math.max(5, Number(option("--seconds") ?? 30) || 30);
const bargeInEveryMs = Math.max(1000, (Number(option("--barge-in-every") ?? 3) || 3) * 1000);
const WARM_UP_MS = 1000;
const MB = 1024 * 1024;
const AIM = { cpuRatio: 1.0, p99Ratio: 1.5, truncationMs: 50, greetingMs: 1000 };
const only = option("--only");
const repeat = Math.max(1, Number(option("--repeat") ?? 1) || 1);
/** MAX_CALLS of the server under test (its default otherwise; the relay has no limit). */
const maxCalls = option("--max-calls");
/** `--pg`: the server under test on a PostgreSQL server instead of the embedded database. */
const workers = option("--workers") ? Math.max(1, Number(option("--workers")) || 1) : undefined;
const postgresUrl = args.includes("--pg") || workers ? (process.env.BENCH_PG_URL ?? "postgres://postgres@127.0.0.1:5432/postgres") : undefined;
/**
 * `--pin`: the server under test gets cores of its own (1, or 1..N with `--workers N`) and
 * everything else — this process when it is not the server, the callers, the fake provider — core
 * 0, so neither side's CPU time or latency is the other's contention (PostgreSQL is not pinned).
 */
const pin = args.includes("--pin");
const LOAD_CORE = "0";
const SERVER_CORES = workers && workers > 1 ? `1-${workers}` : "1";
if (pin && cpus().length < 1 + (workers ?? 1)) throw new Error(`--pin needs ${1 + (workers ?? 1)} cores, this machine has ${cpus().length}`);
/**
 * With `--pin` a PostgreSQL server on this machine is moved to the load's core while the bench
 * runs (new backends inherit it), and back to every core at the end: left free, its backends
 * ran on the server's core too, and measured 10–15 % of its CPU per call and 2× its p99.
 */
const pgPinned = pin && postgresUrl !== undefined && ["127.0.0.1", "localhost", "[::1]"].includes(new URL(postgresUrl).hostname) && pidsOfCommand("postgres").map((pid) => pinTo(pid, LOAD_CORE)).some(Boolean);
if (pgPinned) {
  process.on("exit", () => pidsOfCommand("postgres").forEach((pid) => pinTo(pid, `0-${cpus().length - 1}`)));
  for (const signal of ["SIGINT", "SIGTERM"] as const) process.once(signal, () => process.exit(130));
}
const systems = (["relay", "switchboard"] as const).filter((s) => !only || only === s);
/** `--ingest N`: documents ingested during a second Switchboard run per sitting (none: no such run). */
const ingestDocuments = Math.max(0, Math.floor(Number(option("--ingest") ?? 0) || 0));
const ingestPages = Math.max(1, Math.floor(Number(option("--ingest-pages") ?? 20) || 20));
/** `--idle-load S`: the control run's seconds of idle-priority load on every core (none: no such run). */
const idleLoadSeconds = ingestDocuments ? Math.max(0, Number(option("--idle-load") ?? 0) || 0) : 0;
if (ingestDocuments && workers) throw new Error("--ingest needs the server in this process (not --workers)");
type System = (typeof systems)[number];

interface Row {
  system: System;
  calls: number;
  /** Which of the `--repeat` sittings (1-based). */
  sitting: number;
  connected: number;
  /** Refused politely at the webhook (MAX_CALLS). */
  refused: number;
  firstFailure: string | null;
  uplink: Summary;
  downlink: Summary;
  uplinkE2e: Summary;
  downlinkE2e: Summary;
  /** Each frame's age when the server handed it on (from the sender's stamp: the e2e less the receiver's part). */
  handedUp: Summary;
  handedDown: Summary;
  framesUp: number;
  lostUp: number;
  firstAudio: Summary;
  streamFirstAudio: Summary;
  providerDelayP50: number;
  truncation: Summary;
  truncations: number;
  clears: number;
  cpuPerCall: number;
  /** The PostgreSQL server's CPU per call (`--pg`, Switchboard), % of a core; NaN otherwise. */
  dbCpuPerCall: number;
  memoryPerCallMb: number;
  rssMb: number;
  callersCpu: number;
  providerCpu: number;
  /** The server's event loop in the window (in-process Switchboard only). */
  loop: ReturnType<LoopWatch["stop"]> | null;
  finalised: number;
  /** `--ingest`: the documents ingested during this run's window. */
  ingest: IngestResult | null;
  /** `--idle-load`: this run's cores were kept busy at idle priority. */
  idleLoad: boolean;
}

type Load = "none" | "ingest" | "idle";
const LOAD_LABEL: Record<Load, string> = { none: "", ingest: " + ingest", idle: " + idle load" };
const loadOf = (r: Row): Load => (r.ingest ? "ingest" : r.idleLoad ? "idle" : "none");

/** A busy loop on every core for `seconds`, at the idle scheduling policy (Linux `chrt --idle`). */
function idleLoad(seconds: number): ChildProcess[] {
  const loop = `const end = Date.now() + ${Math.round(seconds * 1000)}; while (Date.now() < end);`;
  return cpus().map(() => spawn("chrt", ["--idle", "0", process.execPath, "-e", loop], { stdio: "ignore" }));
}

/** The bare relay in its own process, as the server under test; CPU and memory are read from outside. */
async function startRelay(provider: { baseUrl: string; apiKey: string }): Promise<ServerUnderTest> {
  const relay = child("bench-calls-relay.ts");
  send(relay, { type: "start", providerUrl: provider.baseUrl, apiKey: provider.apiKey } satisfies RelayRequest);
  const { origin } = await nextMessage<RelayMessage, "listening">(relay, "listening");
  return {
    target: { origin, authToken: "relay", to: "+15550100" },
    pids: () => [relay.pid!],
    cpuSeconds: () => cpuSecondsOf(relay.pid),
    rssMb: () => rssMbOf(relay.pid),
    heldBytes: () => Number.NaN,
    liveCalls: () => 0,
    finalised: async () => Number.NaN,
    close: async () => {
      if (relay.exitCode === null) relay.kill();
    },
  };
}

interface ServerUnderTest {
  target: CallerTarget;
  /** The processes serving the calls (for --pin). */
  pids(): number[];
  cpuSeconds(): number;
  rssMb(): number;
  /** JS heap + buffers after a full GC (in-process only). */
  heldBytes(): number;
  liveCalls(): number | Promise<number>;
  finalised(): Promise<number>;
  /** The number owner's session, for the documents' uploads (in-process Switchboard only). */
  owner?: { origin: string; cookie: string };
  close(): Promise<void>;
}

async function startSwitchboard(provider: { baseUrl: string; apiKey: string }, metrics: FrameMetrics): Promise<ServerUnderTest> {
  const bench = await startPhoneBenchApp(provider, metrics, maxCalls ? { MAX_CALLS: maxCalls } : {}, postgresUrl);
  const { app, database } = bench;
  return {
    target: bench.target,
    pids: () => [process.pid],
    cpuSeconds: () => {
      const used = process.cpuUsage();
      return (used.user + used.system) / 1e6;
    },
    rssMb: () => process.memoryUsage().rss / MB,
    heldBytes: () => {
      const m = process.memoryUsage();
      return m.heapUsed + m.external;
    },
    liveCalls: () => app.ctx.liveCalls.size,
    finalised: () => finalisedCalls(database.db),
    owner: { origin: bench.origin, cookie: bench.cookie },
    close: () => bench.close(),
  };
}

/** `npm start` with WORKERS in a child process: the tree's CPU and memory (per-frame server timings are not available). */
async function startCluster(provider: { baseUrl: string; apiKey: string }, n: number): Promise<ServerUnderTest> {
  const cluster = await startClusterServer(provider, { workers: n, maxCalls, postgresUrl: postgresUrl! });
  return { ...cluster, heldBytes: () => Number.NaN };
}

async function run(system: System, calls: number, sitting: number, load: Load = "none"): Promise<Row> {
  const provider = child("bench-calls-provider.ts");
  send(provider, { type: "start", seconds, bargeInEveryMs } satisfies ProviderRequest);
  const { baseUrl, apiKey } = await nextMessage<ProviderMessage, "listening">(provider, "listening");

  const uplink: number[] = [];
  const downlink: number[] = [];
  let measuring = false;
  const handedUp: FrameAge[] = [];
  const handedDown: FrameAge[] = [];
  /** The frame's send stamp is its first 8 bytes (16 characters of base64 hold 12). */
  const handedOff = (ages: FrameAge[], audio: string | undefined) => {
    const age = audio && ageOfFrame(Buffer.from(audio.slice(0, 16), "base64"));
    if (age) ages.push(age);
  };
  const metrics: FrameMetrics = {
    uplink: (ms, audio) => {
      if (!measuring) return;
      uplink.push(ms);
      handedOff(handedUp, audio);
    },
    downlink: (ms, audio) => {
      if (!measuring) return;
      downlink.push(ms);
      handedOff(handedDown, audio);
    },
  };
  const bench =
    system === "relay"
      ? await startRelay({ baseUrl, apiKey })
      : workers
        ? await startCluster({ baseUrl, apiKey }, workers)
        : await startSwitchboard({ baseUrl, apiKey }, metrics);

  // The server under test runs in this process (its event loop can be watched) or in others.
  const inProcess = bench.pids().includes(process.pid);
  if (pin) {
    if (!inProcess) pinTo(process.pid, LOAD_CORE);
    for (const pid of bench.pids()) pinTo(pid, SERVER_CORES);
    pinTo(provider.pid, LOAD_CORE);
  }
  const uploader = load === "ingest" ? child("bench-calls-ingest.ts") : null;
  if (uploader) {
    if (pin) pinTo(uploader.pid, LOAD_CORE);
    send(uploader, { type: "start", ...bench.owner!, documents: ingestDocuments, pages: ingestPages } satisfies IngestRequest);
    await nextMessage<IngestMessage, "ready">(uploader, "ready");
  }
  await collectGarbage();
  const baseline = bench.heldBytes();
  const callers = child("bench-calls-callers.ts");
  if (pin) pinTo(callers.pid, LOAD_CORE);
  send(callers, { type: "start", target: bench.target, calls, seconds } satisfies CallersRequest);
  const streaming = await nextMessage<CallersMessage, "streaming">(callers, "streaming", 300_000);
  const streamed = nextMessage<CallersMessage, "streamed">(callers, "streamed", 900_000);
  await new Promise((resolve) => setTimeout(resolve, WARM_UP_MS));
  const cpu = bench.cpuSeconds();
  const childCpu = [cpuSecondsOf(callers.pid), cpuSecondsOf(provider.pid)];
  const dbCpu = postgresUrl && system === "switchboard" ? cpuSecondsOfCommand("postgres") : Number.NaN;
  const wallStart = performance.now();
  measuring = true;
  // The server's own event loop: only when it runs in this process.
  const loopWatch = inProcess ? watchEventLoop() : null;
  const from = String(process.hrtime.bigint());
  // Bounded by the window: a document still processing at its end counts as not ingested.
  const ingesting = uploader ? nextMessage<IngestMessage, "done">(uploader, "done", seconds * 1000 + 60_000) : null;
  if (uploader) send(uploader, { type: "go", waitMs: seconds * 1000 } satisfies IngestRequest);
  const loops = load === "idle" ? idleLoad(idleLoadSeconds) : [];
  await streamed;
  measuring = false;
  const loop = loopWatch?.stop() ?? null;
  const window = { from, to: String(process.hrtime.bigint()) };
  const wallMs = performance.now() - wallStart;
  const used = bench.cpuSeconds() - cpu;
  const rssMb = bench.rssMb();
  const callersCpu = (cpuSecondsOf(callers.pid) - childCpu[0]!) * 1000 / wallMs;
  const providerCpu = (cpuSecondsOf(provider.pid) - childCpu[1]!) * 1000 / wallMs;
  const dbUsed = cpuSecondsOfCommand("postgres") - dbCpu;
  await collectGarbage();
  const held = bench.heldBytes();

  send(callers, { type: "end", ...window } satisfies CallersRequest);
  const report = await nextMessage<CallersMessage, "report">(callers, "report", 300_000);
  // After the window (the callers wait for their "end"): an ingestion still running has had its bounded wait.
  const ingest = ingesting ? (await ingesting).result : null;
  while ((await bench.liveCalls()) > 0) await new Promise((resolve) => setTimeout(resolve, 50));
  // Frames in flight at the hang-up have had time to arrive.
  await new Promise((resolve) => setTimeout(resolve, 200));
  send(provider, { type: "report", ...window } satisfies ProviderRequest);
  const fake = await nextMessage<ProviderMessage, "report">(provider, "report");
  const finalised = await bench.finalised();

  await bench.close();
  for (const proc of [callers, provider, uploader, ...loops]) if (proc && proc.exitCode === null) proc.kill();

  const errors: number[] = [];
  for (const [key, heard] of Object.entries(report.heard)) {
    const cut = fake.truncations[key];
    // Off either way counts: too short, the model repeats what was heard; too long, it takes as heard what was not.
    if (cut !== undefined) errors.push(Math.abs(cut - heard));
  }
  const connected = Math.max(1, streaming.connected);
  return {
    system,
    calls,
    sitting,
    connected: streaming.connected,
    refused: streaming.refused,
    firstFailure: streaming.firstFailure,
    uplink: summarize(uplink),
    downlink: summarize(downlink),
    uplinkE2e: fake.uplinkE2e,
    downlinkE2e: report.downlinkE2e,
    handedUp: summarize(within(handedUp, window)),
    handedDown: summarize(within(handedDown, window)),
    framesUp: report.framesSent,
    lostUp: Math.round(report.framesSent - fake.appendedFrames),
    firstAudio: report.webhookToFirstAudio,
    streamFirstAudio: report.streamToFirstAudio,
    providerDelayP50: fake.providerDelay.p50,
    truncation: summarize(errors),
    truncations: errors.length,
    clears: report.clears,
    cpuPerCall: ((used * 1000) / wallMs / connected) * 100,
    dbCpuPerCall: ((dbUsed * 1000) / wallMs / connected) * 100,
    memoryPerCallMb: (held - baseline) / MB / connected,
    rssMb,
    callersCpu: callersCpu * 100,
    providerCpu: providerCpu * 100,
    loop,
    finalised,
    ingest,
    idleLoad: load === "idle",
  };
}

const ms = (v: number) => (Number.isFinite(v) ? (Math.abs(v) < 10 ? v.toFixed(2) : v.toFixed(0)) : "n/a");
const trio = (s: Summary) => `${ms(s.p50)} / ${ms(s.p99)} / ${ms(s.max)}`;

function table(rows: Row[]): string {
  const head = [
    "server",
    "calls",
    "server in ms p50/p99/max",
    "server out ms p50/p99/max",
    "e2e in ms p50/p99/max",
    "e2e out ms p50/p99/max",
    "frames lost",
    "webhook→audio ms p50/p99",
    "stream→audio ms p50/p99",
    "trunc err ms p50/p99/max",
    "CPU/call %core",
    "CPU %core",
    "DB CPU/call %core",
    "RSS MB",
    "mem/call MB",
    "callers %core",
    "loop delay ms p99/max, GC ms total/max",
  ];
  const body = rows.map((r) => [
    `${r.system}${LOAD_LABEL[loadOf(r)]}${repeat > 1 ? ` #${r.sitting}` : ""}`,
    r.connected === r.calls ? String(r.calls) : `${r.connected}/${r.calls}` + (r.refused ? ` (${r.refused} busy)` : ""),
    trio(r.uplink),
    trio(r.downlink),
    trio(r.uplinkE2e),
    trio(r.downlinkE2e),
    `${r.lostUp}/${r.framesUp}`,
    `${ms(r.firstAudio.p50 - r.providerDelayP50)} / ${ms(r.firstAudio.p99 - r.providerDelayP50)}`,
    `${ms(r.streamFirstAudio.p50 - r.providerDelayP50)} / ${ms(r.streamFirstAudio.p99 - r.providerDelayP50)}`,
    `${trio(r.truncation)} (n=${r.truncations})`,
    r.cpuPerCall.toFixed(3),
    (r.cpuPerCall * Math.max(1, r.connected)).toFixed(0),
    Number.isFinite(r.dbCpuPerCall) ? r.dbCpuPerCall.toFixed(3) : "n/a",
    r.rssMb.toFixed(0),
    Number.isFinite(r.memoryPerCallMb) ? r.memoryPerCallMb.toFixed(2) : "n/a",
    r.callersCpu.toFixed(0),
    r.loop ? `${ms(r.loop.delayP99)} / ${ms(r.loop.delayMax)}, ${ms(r.loop.gcTotal)} / ${ms(r.loop.gcMax)}` : "n/a",
  ]);
  return markdownTable(head, body);
}

const [load1, load5] = loadavg();
console.log(
  `bench:calls: ${counts.join(", ")} simultaneous phone calls through ${systems.join(" and ")}${workers ? ` (Switchboard: npm start, WORKERS=${workers}, PostgreSQL)` : postgresUrl ? " (Switchboard on PostgreSQL)" : ""}, ${seconds} s each, 20 ms µ-law frames both ways, a barge-in every ${bargeInEveryMs / 1000} s ` +
    `(Node ${process.version}, ${cpus().length} CPUs ${cpus()[0]?.model ?? ""}, load average ${load1!.toFixed(2)} / ${load5!.toFixed(2)} at start` +
    `${pin ? `; pinned: the server under test on core ${SERVER_CORES}, the load${pgPinned ? " and PostgreSQL" : ""} on core ${LOAD_CORE}` : ""})`,
);
const rows: Row[] = [];
for (const calls of counts) {
  for (let sitting = 1; sitting <= repeat; sitting += 1) {
    // Alternated, so a drift of the host over the sittings weighs on both systems alike.
    const loads: Load[] = ["none", ...(ingestDocuments ? ["ingest" as const] : []), ...(idleLoadSeconds ? ["idle" as const] : [])];
    const runs = systems.flatMap((system) => (system === "switchboard" ? loads : ["none" as const]).map((load) => ({ system, load })));
    for (const { system, load } of sitting % 2 === 1 ? runs : [...runs].reverse()) {
      const started = performance.now();
      const row = await run(system, calls, sitting, load);
      rows.push(row);
      console.log(
        `  ${system}${LOAD_LABEL[load]}${repeat > 1 ? ` #${sitting}` : ""}, ${calls} calls: ${row.connected} connected, ${row.clears} clears, ${Number.isFinite(row.finalised) ? `${row.finalised} records finalised; ` : ""}fake provider ${row.providerCpu.toFixed(0)} % of a core; ` +
          `provider's own first-audio delay p50 ${ms(row.providerDelayP50)} ms; ${((performance.now() - started) / 1000).toFixed(1)} s; load average ${loadavg()[0]!.toFixed(2)}` +
          (row.firstFailure ? `; first failure: ${row.firstFailure}` : ""),
      );
    }
  }
}
console.log();
console.log(table(rows));
console.log();
// `--json FILE`: the rows for another bench to read (bench:sip sets its SIP calls beside these).
const jsonFile = option("--json");
if (jsonFile) writeFileSync(jsonFile, JSON.stringify(rows));
console.log(
  "server in/out: time the server spends on one media frame, from its arrival at one socket to its hand-off to the other (measured in the server).\n" +
    "e2e: the same frame timed from the sending process to the receiving one through every socket (an upper bound on what the server adds).\n" +
    "frames lost: caller frames that never reached the provider, counting those sent before the provider session was ready.\n" +
    "webhook→audio: from the voice webhook request to the first assistant audio at the caller, less the fake provider's own delay (p50).\n" +
    "stream→audio: likewise from the media stream's start (what comes before it is Twilio's, and here the callers' own core's).\n" +
    "trunc err: how far audio_end_ms of each truncation is from what the caller had heard of that item when the clear arrived (either way).\n" +
    "CPU/call: server process CPU during the window / calls, % of one core; DB CPU/call: the PostgreSQL server's processes (--pg), likewise; RSS: the server process's resident memory at the end of the window;\n" +
    "mem/call: JS heap + buffers after a full GC, less the idle baseline (Switchboard only: it runs in this process).\n" +
    "loop delay: how late the server's event loop ran timers during the window, and its garbage-collection pauses (Switchboard in this process only).",
);
const times = (v: number) => (Number.isFinite(v) ? `${v.toFixed(2)}×` : "n/a");
/** A ratio over the sittings: its median, and its range when there were several. */
const spread = (values: number[]) => {
  const finite = values.filter(Number.isFinite);
  return finite.length > 1 ? `${times(summarize(finite).p50)} (${times(Math.min(...finite))}–${times(Math.max(...finite))} over ${finite.length} sittings)` : times(finite[0] ?? Number.NaN);
};
/** Whether an aim held in every sitting that measured it (a NaN figure measured nothing: no barge-in in the window, say). */
const inAll = (figures: number[], aim: number) => {
  const measured = figures.filter(Number.isFinite);
  if (measured.length === 0) return "not measured";
  const held = measured.filter((v) => v <= aim).length;
  const verdict = held === measured.length ? "held" : "NOT held";
  const worst = `${ms(Math.max(...measured))} ms`;
  return measured.length > 1 ? `${verdict} (in ${held} of ${measured.length} sittings; at worst ${worst})` : `${verdict} (${worst})`;
};
for (const calls of counts) {
  const pairs = Array.from({ length: repeat }, (_, i) => ({
    relay: rows.find((r) => r.system === "relay" && r.calls === calls && r.sitting === i + 1),
    ours: rows.find((r) => r.system === "switchboard" && loadOf(r) === "none" && r.calls === calls && r.sitting === i + 1),
  })).filter((p): p is { relay: Row; ours: Row } => p.relay !== undefined && p.ours !== undefined);
  if (pairs.length === 0) continue;
  const p99 = (r: Row) => Math.max(r.uplinkE2e.p99, r.downlinkE2e.p99);
  const trunc = (r: Row) => Math.max(Math.abs(r.truncation.max), Math.abs(r.truncation.p50));
  const greeting = (r: Row) => r.streamFirstAudio.p99 - r.providerDelayP50;
  const silent = (r: Row) => r.calls - r.connected - r.refused;
  const ours = pairs.map((p) => p.ours);
  const refused = Math.max(...ours.map((r) => r.refused));
  // Switchboard refusing some (MAX_CALLS) carries fewer calls than the relay: per-call figures at different loads do not compare.
  const alike = pairs.filter((p) => p.ours.connected === p.relay.connected);
  const ratios = alike.length
    ? `CPU per call ${spread(alike.map((p) => p.ours.cpuPerCall / p.relay.cpuPerCall))} (aim ≤ ${AIM.cpuRatio}×), ` +
      `e2e p99 ${spread(alike.map((p) => p99(p.ours) / p99(p.relay)))} (aim ≤ ${AIM.p99Ratio}×), RSS ${spread(alike.map((p) => p.ours.rssMb / p.relay.rssMb))}`
    : `no ratios (Switchboard carried ${ours[0]!.connected} calls, the relay ${pairs[0]!.relay.connected})`;
  console.log(
    `${calls} calls, Switchboard / relay: ${ratios}; ` +
      `calls left silent (neither streamed nor refused politely) ${Math.max(...ours.map(silent))} vs ${Math.max(...pairs.map((p) => silent(p.relay)))}` +
      (refused ? ` (${refused} refused politely at MAX_CALLS ${maxCalls ?? "default"})` : "") +
      "; " +
      `Switchboard: frames lost ${Math.max(...ours.map((r) => r.lostUp))}, truncation within ${AIM.truncationMs} ms — ${inAll(ours.map(trunc), AIM.truncationMs)}, ` +
      `greeting within ${AIM.greetingMs / 1000} s of the stream's start (p99) — ${inAll(ours.map(greeting), AIM.greetingMs)}.`,
  );
}

// `--ingest`: the same calls with and without documents ingesting in the server's process.
for (const calls of counts) {
  const of = (load: Load) => rows.filter((r) => r.system === "switchboard" && loadOf(r) === load && r.calls === calls);
  const [plain, busy, idle] = [of("none"), of("ingest"), of("idle")];
  if (!busy.length || !plain.length) continue;
  const worst = (list: Row[], figure: (r: Row) => number) => ms(Math.max(...list.map(figure)));
  const figures = (list: Row[]) =>
    `e2e p99 in/out ${worst(list, (r) => r.uplinkE2e.p99)} / ${worst(list, (r) => r.downlinkE2e.p99)} ms, ` +
    `until the server's hand-off ${worst(list, (r) => r.handedUp.p99)} / ${worst(list, (r) => r.handedDown.p99)} ms, server p99 in/out ${worst(list, (r) => r.uplink.p99)} / ${worst(list, (r) => r.downlink.p99)} ms, ` +
    `loop delay p99 ${worst(list, (r) => r.loop?.delayP99 ?? Number.NaN)} ms, its thread waiting for a core ${worst(list, (r) => r.loop?.coreWait ?? Number.NaN)} ms in all, frames lost ${Math.max(...list.map((r) => r.lostUp))}`;
  const done = busy.map((r) => `${r.ingest!.ready}/${r.ingest!.documents} ready${r.ingest!.failed ? ` (${r.ingest!.failed} failed)` : ""}, ${r.ingest!.passages} passages in ${r.ingest!.seconds.toFixed(1)} s`);
  console.log(
    `${calls} calls, ingestion of ${ingestDocuments} PDF documents of ${ingestPages} pages alongside (worst of ${busy.length} sitting(s)): ` +
      `without — ${figures(plain)}; with — ${figures(busy)}; ingested: ${done.join("; ")}.`,
  );
  if (idle.length) console.log(`${calls} calls, every core busy at idle priority for ${idleLoadSeconds} s instead (the control): ${figures(idle)}.`);
}

const cost = await transcriptCost();
console.log(
  `Transcript, one turn saved (two entries, embedded database, ms p50/max over ${20} turns): first turns of a 60-minute call ${ms(cost.first.p50)} / ${ms(cost.first.max)}, ` +
    `last turns ${ms(cost.last.p50)} / ${ms(cost.last.max)}; the whole transcript (${cost.turns * 2} entries) written once at the end: ${ms(cost.finishMs)} ms.`,
);
