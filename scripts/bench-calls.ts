/**
 * `npm run bench:calls [-- 50 200 500 1000] [--seconds 30] [--barge-in-every 3]`: N
 * simultaneous simulated phone calls through the real server, for each N.
 *
 * Three processes, so each one's work is counted where it belongs:
 *  - this one: the real app (buildApp, embedded database, a real port that is also its
 *    PUBLIC_URL), with the call engine's per-frame timing hook on; a user owning a phone
 *    number with Twilio credentials and an assistant with a first message;
 *  - bench-calls-provider.ts: the fake OpenAI Realtime GA server, answering in 20 ms µ-law
 *    deltas at real-time pace, a caller turn (a barge-in) every few seconds;
 *  - bench-calls-callers.ts: N callers speaking Twilio's protocol (signed webhook, media
 *    stream, 20 ms frames, marks echoed when played, clear honoured, stop).
 *
 * Printed per N: time per media frame each way (in the server, and end to end through every
 * socket), frames lost (caller frames that never reached the provider, from the first one),
 * webhook-to-first-audio less the provider's own delay, truncation error (audio_end_ms minus
 * what the caller had heard of that item when the clear arrived), server CPU and memory per
 * call, and the callers' own CPU.
 */
import { and, count, isNotNull } from "drizzle-orm";
import { cpus, loadavg } from "node:os";
import { calls as callsTable } from "../src/server/db/schema.ts";
import type { CallersMessage, CallersRequest, ProviderMessage, ProviderRequest } from "./bench-calls-shared.ts";
import { startPhoneBenchApp } from "./bench-phone-app.ts";
import { child, collectGarbage, cpuSecondsOf, markdownTable } from "./bench-process.ts";
import { nextMessage, send, summarize, type Summary } from "./bench-voice-shared.ts";

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
const AIM = { cpuPerCall: 0.1, p99Ms: 5, at: 500, truncationMs: 50, memoryPerCallMb: 1 };





interface Row {
  calls: number;
  connected: number;
  firstFailure: string | null;
  uplink: Summary;
  downlink: Summary;
  uplinkE2e: Summary;
  downlinkE2e: Summary;
  framesUp: number;
  lostUp: number;
  firstAudio: Summary;
  providerDelayP50: number;
  truncation: Summary;
  truncations: number;
  clears: number;
  cpuPerCall: number;
  memoryPerCallMb: number;
  callersCpu: number;
  providerCpu: number;
  finalised: number;
}

async function run(calls: number): Promise<Row> {
  const provider = child("bench-calls-provider.ts");
  send(provider, { type: "start", seconds, bargeInEveryMs } satisfies ProviderRequest);
  const { baseUrl, apiKey } = await nextMessage<ProviderMessage, "listening">(provider, "listening");

  const uplink: number[] = [];
  const downlink: number[] = [];
  let measuring = false;
  const bench = await startPhoneBenchApp(
    { baseUrl, apiKey },
    { uplink: (ms) => measuring && uplink.push(ms), downlink: (ms) => measuring && downlink.push(ms) },
  );
  const { app, database } = bench;

  await collectGarbage();
  const baseline = process.memoryUsage();
  const held = (m: NodeJS.MemoryUsage) => m.heapUsed + m.external;
  const callers = child("bench-calls-callers.ts");
  send(callers, { type: "start", target: bench.target, calls, seconds } satisfies CallersRequest);
  const streaming = await nextMessage<CallersMessage, "streaming">(callers, "streaming", 300_000);
  const streamed = nextMessage<CallersMessage, "streamed">(callers, "streamed", 900_000);
  await new Promise((resolve) => setTimeout(resolve, WARM_UP_MS));
  const cpu = process.cpuUsage();
  const childCpu = [cpuSecondsOf(callers.pid), cpuSecondsOf(provider.pid)];
  const wallStart = performance.now();
  measuring = true;
  const from = String(process.hrtime.bigint());
  await streamed;
  measuring = false;
  const window = { from, to: String(process.hrtime.bigint()) };
  const wallMs = performance.now() - wallStart;
  const used = process.cpuUsage(cpu);
  const callersCpu = (cpuSecondsOf(callers.pid) - childCpu[0]!) * 1000 / wallMs;
  const providerCpu = (cpuSecondsOf(provider.pid) - childCpu[1]!) * 1000 / wallMs;
  await collectGarbage();
  const memory = process.memoryUsage();

  send(callers, { type: "end", ...window } satisfies CallersRequest);
  const report = await nextMessage<CallersMessage, "report">(callers, "report", 300_000);
  while (app.ctx.liveCalls.size > 0) await new Promise((resolve) => setTimeout(resolve, 50));
  // Frames in flight at the hang-up have had time to arrive.
  await new Promise((resolve) => setTimeout(resolve, 200));
  send(provider, { type: "report", ...window } satisfies ProviderRequest);
  const fake = await nextMessage<ProviderMessage, "report">(provider, "report");
  const [counted] = await database.db.select({ n: count() }).from(callsTable).where(and(isNotNull(callsTable.endTime), isNotNull(callsTable.cost)));
  const finalised = counted?.n ?? 0;

  await bench.close();
  for (const proc of [callers, provider]) if (proc.exitCode === null) proc.kill();

  const errors: number[] = [];
  for (const [key, heard] of Object.entries(report.heard)) {
    const cut = fake.truncations[key];
    if (cut !== undefined) errors.push(cut - heard);
  }
  const connected = Math.max(1, streaming.connected);
  return {
    calls,
    connected: streaming.connected,
    firstFailure: streaming.firstFailure,
    uplink: summarize(uplink),
    downlink: summarize(downlink),
    uplinkE2e: fake.uplinkE2e,
    downlinkE2e: report.downlinkE2e,
    framesUp: report.framesSent,
    lostUp: Math.round(report.framesSent - fake.appendedFrames),
    firstAudio: report.webhookToFirstAudio,
    providerDelayP50: fake.providerDelay.p50,
    truncation: summarize(errors),
    truncations: errors.length,
    clears: report.clears,
    cpuPerCall: ((used.user + used.system) / 1000 / wallMs / connected) * 100,
    memoryPerCallMb: (held(memory) - held(baseline)) / MB / connected,
    callersCpu: callersCpu * 100,
    providerCpu: providerCpu * 100,
    finalised,
  };
}

const ms = (v: number) => (Number.isFinite(v) ? (Math.abs(v) < 10 ? v.toFixed(2) : v.toFixed(0)) : "n/a");
const trio = (s: Summary) => `${ms(s.p50)} / ${ms(s.p99)} / ${ms(s.max)}`;

function table(rows: Row[]): string {
  const head = [
    "calls",
    "server in ms p50/p99/max",
    "server out ms p50/p99/max",
    "e2e in ms p50/p99/max",
    "e2e out ms p50/p99/max",
    "frames lost",
    "webhook→audio ms p50/p99",
    "trunc err ms p50/p99/max",
    "CPU/call %core",
    "mem/call MB",
    "callers %core",
  ];
  const body = rows.map((r) => [
    r.connected === r.calls ? String(r.calls) : `${r.connected}/${r.calls}`,
    trio(r.uplink),
    trio(r.downlink),
    trio(r.uplinkE2e),
    trio(r.downlinkE2e),
    `${r.lostUp}/${r.framesUp}`,
    `${ms(r.firstAudio.p50 - r.providerDelayP50)} / ${ms(r.firstAudio.p99 - r.providerDelayP50)}`,
    `${trio(r.truncation)} (n=${r.truncations})`,
    r.cpuPerCall.toFixed(3),
    r.memoryPerCallMb.toFixed(2),
    r.callersCpu.toFixed(0),
  ]);
  return markdownTable(head, body);
}

const [load1] = loadavg();
console.log(
  `bench:calls: ${counts.join(", ")} simultaneous phone calls, ${seconds} s each, 20 ms µ-law frames both ways, a barge-in every ${bargeInEveryMs / 1000} s ` +
    `(Node ${process.version}, ${cpus().length} CPUs, load average ${load1!.toFixed(2)} at start)`,
);
const rows: Row[] = [];
for (const calls of counts) {
  const started = performance.now();
  const row = await run(calls);
  rows.push(row);
  console.log(
    `  ${calls} calls: ${row.connected} connected, ${row.clears} clears, ${row.finalised} records finalised; fake provider ${row.providerCpu.toFixed(0)} % of a core; ` +
      `provider's own first-audio delay p50 ${ms(row.providerDelayP50)} ms; ${((performance.now() - started) / 1000).toFixed(1)} s` +
      (row.firstFailure ? `; first failure: ${row.firstFailure}` : ""),
  );
}
console.log();
console.log(table(rows));
console.log();
console.log(
  "server in/out: time the server spends on one media frame, from its arrival at one socket to its hand-off to the other (measured in the server).\n" +
    "e2e: the same frame timed from the sending process to the receiving one through every socket (an upper bound on what the server adds).\n" +
    "frames lost: caller frames that never reached the provider, counting those sent before the provider session was ready.\n" +
    "webhook→audio: from the voice webhook request to the first assistant audio at the caller, less the fake provider's own delay (p50).\n" +
    "trunc err: audio_end_ms of each truncation minus what the caller had heard of that item when the clear arrived.\n" +
    "CPU/call: server process CPU during the window / calls, % of one core; mem/call: JS heap + buffers after a full GC, less the idle baseline.",
);
const at = rows.find((r) => r.calls === AIM.at) ?? rows.at(-1);
if (at) {
  const worst = Math.max(at.uplinkE2e.p99, at.downlinkE2e.p99);
  const trunc = Math.max(Math.abs(at.truncation.max), Math.abs(at.truncation.p50));
  console.log(
    `Aims at ${at.calls} calls: ≤ ${AIM.cpuPerCall} % of a core per call — ${at.cpuPerCall <= AIM.cpuPerCall ? "met" : "not met"} (${at.cpuPerCall.toFixed(3)}); ` +
      `p99 < ${AIM.p99Ms} ms both ways — ${worst < AIM.p99Ms ? "met" : "not met"} (${ms(worst)} e2e); no lost frames — ${at.lostUp === 0 ? "met" : "not met"}; ` +
      `truncation within ${AIM.truncationMs} ms — ${trunc <= AIM.truncationMs ? "met" : "not met"}; < ${AIM.memoryPerCallMb} MB per call — ${at.memoryPerCallMb < AIM.memoryPerCallMb ? "met" : "not met"}.`,
  );
}
