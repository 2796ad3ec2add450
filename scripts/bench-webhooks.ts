/**
 * `npm run bench:webhooks [-- --events 1000 --rate 5 --call-seconds 2 --steady 10]`: real
 * `call.ended` events, each produced by a simulated phone call ending, delivered to a receiver on
 * 127.0.0.1 that verifies each with the `standardwebhooks` package and answers after 50 ms; and
 * the phone bench's figures with and without those deliveries flowing.
 *
 * Two phases, each on a fresh app (bench-phone-app.ts: the real server in this process, embedded
 * database, a real port, a phone number with an assistant) and the same load: `steady` phone
 * calls talking throughout, and `events` less `steady` short calls placed `rate` a second, each
 * talking `call-seconds` then hanging up (bench-webhooks-callers.ts, its own process); the steady
 * calls' ends, after the window, make up the `events`. In the first
 * phase no endpoint subscribes, so each call's end stores nothing; in the second an endpoint
 * subscribed to `call.ended` receives every end-of-call report (bench-webhooks-receiver.ts, its
 * own process). The fake OpenAI Realtime provider is bench-calls-provider.ts.
 *
 * Printed per phase, over the window from the first short call to the last one's end: the
 * server's CPU per live call and the time it adds to a media frame each way (p50/p99, measured
 * in the server); for the second phase, p50/p99 from each call's end (its `end_time`) to the
 * receiver's receipt, and whether every event arrived once and verified.
 */
import { cpus, loadavg } from "node:os";
import type { ChildProcess } from "node:child_process";
import type { FrameMetrics } from "../src/server/voice/seams.ts";
import type { ProviderMessage, ProviderRequest } from "./bench-calls-shared.ts";
import { startPhoneBenchApp } from "./bench-phone-app.ts";
import { child, markdownTable } from "./bench-process.ts";
import { nextMessage, send, summarize, type Summary } from "./bench-voice-shared.ts";
import type { ReceiverMessage, ReceiverRequest, WebhookCallersMessage, WebhookCallersRequest } from "./bench-webhooks-shared.ts";

const args = process.argv.slice(2);
const option = (name: string, fallback: number, max: number) => {
  const at = args.indexOf(name);
  const value = at >= 0 ? Number(args[at + 1]) : fallback;
  return Math.min(max, Math.max(1, Number.isFinite(value) ? value : fallback));
};
const EVENTS = Math.round(option("--events", 1000, 5000));
const RATE = option("--rate", 5, 50);
const CALL_SECONDS = option("--call-seconds", 2, 30);
const STEADY = Math.round(option("--steady", 10, 200));
/** How long the deliveries may take to arrive after the last call ended. */
const DRAIN_MS = 300_000;
/** The steady calls end too (after the window): their reports count among the events. */
const SHORT_CALLS = Math.max(1, EVENTS - STEADY);
const churnSeconds = SHORT_CALLS / RATE + CALL_SECONDS;

interface Phase {
  webhooks: boolean;
  steady: number;
  ended: number;
  /** call.ended events expected: the short calls' and the steady calls' ends. */
  events: number;
  failed: number;
  refused: number;
  firstFailure: string | null;
  windowS: number;
  /** Mean calls live in the server during the window. */
  meanLive: number;
  cpuPercent: number;
  cpuPerCall: number;
  uplink: Summary;
  downlink: Summary;
  receipt?: Extract<ReceiverMessage, { type: "report" }>;
  drainS?: number;
}

const kill = (...procs: ChildProcess[]) => procs.forEach((p) => p.exitCode === null && p.kill());

async function phase(webhooks: boolean): Promise<Phase> {
  const provider = child("bench-calls-provider.ts");
  send(provider, { type: "start", seconds: churnSeconds + 30, bargeInEveryMs: 3000 } satisfies ProviderRequest);
  const { baseUrl, apiKey } = await nextMessage<ProviderMessage, "listening">(provider, "listening");

  const uplink: number[] = [];
  const downlink: number[] = [];
  let measuring = false;
  const metrics: FrameMetrics = { uplink: (ms) => measuring && uplink.push(ms), downlink: (ms) => measuring && downlink.push(ms) };
  // Room for the short calls to pile up on a slow machine: a call refused is an event lost to both phases.
  const maxCalls = String(STEADY + Math.ceil(RATE * CALL_SECONDS * 10) + 100);
  const bench = await startPhoneBenchApp({ baseUrl, apiKey }, metrics, { MAX_CALLS: maxCalls, TOOL_ALLOWED_HOSTS: "127.0.0.1", WEBHOOK_ALLOWED_HOSTS: "127.0.0.1" });

  const receiver = webhooks ? child("bench-webhooks-receiver.ts") : null;
  if (receiver) {
    const { url } = await nextMessage<ReceiverMessage, "listening">(receiver, "listening");
    const created = await bench.app.inject({ method: "POST", url: "/api/webhooks", headers: { cookie: bench.cookie }, payload: { url, events: ["call.ended"] } });
    if (created.statusCode !== 201) throw new Error(`bench: the endpoint was refused: ${created.body}`);
    send(receiver, { type: "secret", secret: (created.json() as { secret: string }).secret } satisfies ReceiverRequest);
  }

  const callers = child("bench-webhooks-callers.ts");
  send(callers, { type: "start", target: bench.target, steady: STEADY } satisfies WebhookCallersRequest);
  const steady = await nextMessage<WebhookCallersMessage, "steady">(callers, "steady", 300_000);
  // The steady calls past their greeting before the window opens.
  await new Promise((resolve) => setTimeout(resolve, 3000));

  let liveSamples = 0;
  let liveSum = 0;
  const sampler = setInterval(() => {
    liveSamples += 1;
    liveSum += bench.app.ctx.liveCalls.size;
  }, 200);
  const cpuBefore = process.cpuUsage();
  const wallStart = performance.now();
  measuring = true;
  const churned = nextMessage<WebhookCallersMessage, "churned">(callers, "churned", churnSeconds * 1000 * 4 + 120_000);
  send(callers, { type: "churn", events: SHORT_CALLS, rate: RATE, callSeconds: CALL_SECONDS } satisfies WebhookCallersRequest);
  const churn = await churned;
  measuring = false;
  const wallMs = performance.now() - wallStart;
  const cpu = process.cpuUsage(cpuBefore);
  clearInterval(sampler);

  const stopped = nextMessage<WebhookCallersMessage, "stopped">(callers, "stopped", 60_000);
  send(callers, { type: "stop" } satisfies WebhookCallersRequest);
  await stopped;

  let receipt: Phase["receipt"];
  let drainS: number | undefined;
  if (receiver) {
    const drainStart = performance.now();
    for (;;) {
      const counted = nextMessage<ReceiverMessage, "count">(receiver, "count");
      send(receiver, { type: "count" } satisfies ReceiverRequest);
      if ((await counted).callEnded >= churn.ended + steady.connected || performance.now() - drainStart > DRAIN_MS) break;
      await new Promise((resolve) => setTimeout(resolve, 500));
    }
    drainS = (performance.now() - drainStart) / 1000;
    const reported = nextMessage<ReceiverMessage, "report">(receiver, "report");
    send(receiver, { type: "report" } satisfies ReceiverRequest);
    receipt = await reported;
  }
  await bench.close();
  kill(callers, provider, ...(receiver ? [receiver] : []));

  const meanLive = liveSamples ? liveSum / liveSamples : Number.NaN;
  const cpuPercent = (((cpu.user + cpu.system) / 1000) / wallMs) * 100;
  return {
    webhooks,
    steady: steady.connected,
    ended: churn.ended,
    events: churn.ended + steady.connected,
    failed: churn.failed,
    refused: churn.refused,
    firstFailure: churn.firstFailure ?? steady.firstFailure,
    windowS: wallMs / 1000,
    meanLive,
    cpuPercent,
    cpuPerCall: cpuPercent / Math.max(1, meanLive),
    uplink: summarize(uplink),
    downlink: summarize(downlink),
    receipt,
    drainS,
  };
}

const ms = (v: number) => (Number.isFinite(v) ? (Math.abs(v) < 10 ? v.toFixed(2) : v.toFixed(0)) : "n/a");
const [load1, load5] = loadavg();
console.log(
  `bench:webhooks — ${EVENTS} call.ended events from simulated phone calls ending (${SHORT_CALLS} short calls placed ${RATE}/s, ${CALL_SECONDS} s each, alongside ${STEADY} steady calls that end last), ` +
    `receiver on 127.0.0.1 answering in 50 ms, embedded PostgreSQL; Node ${process.version}, ${cpus().length} CPUs ${cpus()[0]?.model ?? ""}, ` +
    `load average ${load1!.toFixed(2)} / ${load5!.toFixed(2)} at start${load1! > cpus().length ? " — A BUSY MACHINE: other work shares these cores, so the figures are that machine's" : ""}`,
);
const phases: Phase[] = [];
for (const webhooks of [false, true]) {
  const started = performance.now();
  const p = await phase(webhooks);
  phases.push(p);
  console.log(
    `  ${webhooks ? "with deliveries" : "no endpoint"}: ${p.steady}/${STEADY} steady calls, ${p.ended}/${SHORT_CALLS} short calls ended` +
      (p.refused ? `, ${p.refused} refused (MAX_CALLS)` : "") +
      (p.failed ? `, ${p.failed} failed (first: ${p.firstFailure})` : "") +
      `; window ${p.windowS.toFixed(0)} s; ${((performance.now() - started) / 1000).toFixed(0)} s in all; load average ${loadavg()[0]!.toFixed(2)}`,
  );
}

console.log();
console.log(
  markdownTable(
    ["webhooks", "calls live (mean)", "server CPU %core", "CPU/call %core", "server in ms p50/p99", "server out ms p50/p99"],
    phases.map((p) => [
      p.webhooks ? "call.ended delivered" : "none",
      p.meanLive.toFixed(1),
      p.cpuPercent.toFixed(0),
      p.cpuPerCall.toFixed(2),
      `${ms(p.uplink.p50)} / ${ms(p.uplink.p99)}`,
      `${ms(p.downlink.p50)} / ${ms(p.downlink.p99)}`,
    ]),
  ),
);
const [without, withHooks] = phases as [Phase, Phase];
const r = withHooks.receipt!;
console.log();
console.log(
  `call.ended: ${r.received}/${withHooks.events} received (${r.duplicates} repeated, ${r.unverified} unverified, ${r.requests} requests); ` +
    `call's end → receipt p50 ${ms(r.endToReceipt.p50)} ms, p99 ${ms(r.endToReceipt.p99)} ms, max ${ms(r.endToReceipt.max)} ms; ` +
    `the last arrived ${withHooks.drainS!.toFixed(1)} s after the last call ended.`,
);
const ratio = (a: number, b: number) => (Number.isFinite(a / b) ? `${(a / b).toFixed(2)}×` : "n/a");
console.log(
  `With deliveries flowing / without: CPU per call ${ratio(withHooks.cpuPerCall, without.cpuPerCall)}, ` +
    `server p99 in ${ratio(withHooks.uplink.p99, without.uplink.p99)}, out ${ratio(withHooks.downlink.p99, without.downlink.p99)}.`,
);
console.log(
  "server in/out: time the server spends on one media frame, from its arrival at one socket to its hand-off to the other (measured in the server), every call.\n" +
    "CPU/call: this process's CPU (the server; callers, provider and receiver run in their own processes) over the window / mean calls live.",
);
