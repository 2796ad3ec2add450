/**
 * `npm run bench:sip [-- 50 200 500] [--seconds 15] [--barge-in-every 3] [--beyond 5] [--sip-only]`: N SIP
 * calls at once against the real app's SIP endpoint, for each N, with µ-law RTP both ways and a
 * barge-in every few seconds from the fake OpenAI Realtime provider (bench-calls-provider.ts, the
 * one bench:calls uses), plus `--beyond` calls more than MAX_CALLS (= N) dialled with them, which
 * must be refused (503 with Retry-After). Then, unless `--sip-only`, the same counts of Twilio-path
 * calls (`bench:calls --only switchboard`, same seconds and barge-ins, MAX_CALLS the largest count)
 * in a child process, and each SIP row's CPU beside theirs.
 *
 * Three processes: this one (the real app, embedded database, a trunk admitting 127.0.0.1 and a
 * SIP number on it, the SIP endpoint on a free port), the fake provider, and the callers
 * (bench-sip-callers.ts: our own SIP stack as UACs). All traffic stays on 127.0.0.1.
 *
 * Printed per N: calls answered/refused (and how long a refusal took), server CPU per call (ms of
 * CPU per second of call, from a second after every call is up, as bench:calls measures the Twilio path), the server's RSS, the interval between RTP packets as the server sends
 * them (the passes of its media thread's clock) and as the callers receive them (p50/p99), the first audio after the ACK
 * (p50/p99: the greeting's first non-silent frame), and what did not end cleanly (BYEs never
 * answered, calls still up on the server after the wait). Progress goes to stderr; every wait is
 * bounded, and a sitting that overruns its whole budget ends the bench with what it has.
 */
import { spawn, type ChildProcess } from "node:child_process";
import { readFileSync, rmSync } from "node:fs";
import { cpus, loadavg, tmpdir } from "node:os";
import { join } from "node:path";
import { performance } from "node:perf_hooks";
import { phoneNumbers } from "../src/server/db/schema.ts";
import { createSipTrunksService } from "../src/server/modules/sip-trunks/sip-trunks.service.ts";
import { sipTrunkInputSchema } from "../src/shared/sip-trunks.ts";
import type { ProviderMessage, ProviderRequest } from "./bench-calls-shared.ts";
import type { SipCallersMessage, SipCallersRequest } from "./bench-sip-callers.ts";
import { startPhoneBenchApp } from "./bench-phone-app.ts";
import { mediaClockPasses } from "../src/server/carriers/sip/rtp-thread.ts";
import { child, collectGarbage, cpuSecondsOf, markdownTable, rssMbOf, watchEventLoop } from "./bench-process.ts";
import { nextMessage, send, summarize } from "./bench-voice-shared.ts";

const args = process.argv.slice(2);
const option = (name: string) => {
  const at = args.indexOf(name);
  return at >= 0 ? args[at + 1] : undefined;
};
const positional = args.filter((a, i) => !a.startsWith("--") && !(i > 0 && args[i - 1]!.startsWith("--")));
// At most 500 calls: the bench is bounded (and stays on 127.0.0.1).
const counts = (positional.length ? positional : ["50", "200"]).flatMap((a) => a.split(",")).map(Number).filter((n) => Number.isInteger(n) && n > 0 && n <= 500);
const seconds = Math.min(120, Math.max(5, Number(option("--seconds") ?? 15) || 15));
const bargeInEveryMs = Math.max(1000, (Number(option("--barge-in-every") ?? 3) || 3) * 1000);
const beyond = Math.min(50, Math.max(0, Number(option("--beyond") ?? 5) || 0));
const NUMBER = "+15550199";
/** As bench:calls measures the Twilio path: from a second after every call is up (its setup done). */
const WARM_UP_MS = 1000;
const RTP_PORTS = { min: 40000, max: 49999 };
/** Waits of a sitting: all calls up, the callers' report (their BYEs answered), the server's calls ended. */
const UP_MS = 300_000;
const REPORT_MS = 120_000;
const CALLS_END_MS = 180_000;
/** The whole sitting, whatever happens in it. */
const sittingBudgetMs = () => UP_MS + seconds * 1000 + REPORT_MS + CALLS_END_MS + 120_000;
const fmt = (n: number, digits = 1) => (Number.isFinite(n) ? n.toFixed(digits) : "–");
const load = () => loadavg().map((l) => l.toFixed(1)).join(" ");

const benchStart = performance.now();
let phase = "starting";
function progress(text: string) {
  phase = text;
  process.stderr.write(`bench:sip [${((performance.now() - benchStart) / 1000).toFixed(0)} s, load ${load()}] ${text}\n`);
}

/**
 * The server's send clock as the server keeps it: every call's RTP goes out on one 20 ms clock on
 * the media thread (rtp-thread.ts), and each pass of it sends each call its frame(s). The interval
 * between passes while measuring is the interval between the packets of every call.
 */
async function clockIntervals(from: number): Promise<number[]> {
  const { total, times } = await mediaClockPasses();
  const fresh = times.slice(Math.max(0, times.length - (total - from)));
  return fresh.slice(1).map((at, i) => at - fresh[i]!);
}

/** The next message of `type` from a child; fails at once when the child exits first. */
function fromChild<M extends { type: string }, T extends M["type"]>(proc: ChildProcess, type: T, timeoutMs: number) {
  return new Promise<Extract<M, { type: T }>>((resolve, reject) => {
    const exited = (code: number | null) => reject(new Error(`the callers process exited (${code}) before "${type}"`));
    proc.once("exit", exited);
    nextMessage<M, T>(proc, type, timeoutMs).then(resolve, reject).finally(() => proc.off("exit", exited));
  });
}

/** Resolves true once `done` holds, false after `ms`. */
async function until(done: () => boolean, ms: number): Promise<boolean> {
  const end = performance.now() + ms;
  while (!done()) {
    if (performance.now() > end) return false;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  return true;
}

const children = new Set<ChildProcess>();

async function run(calls: number): Promise<string[]> {
  progress(`${calls} calls: starting the fake provider and the app`);
  const provider = child("bench-calls-provider.ts");
  children.add(provider);
  send(provider, { type: "start", seconds: seconds + 5, bargeInEveryMs } satisfies ProviderRequest);
  const { baseUrl, apiKey } = await nextMessage<ProviderMessage, "listening">(provider, "listening");
  const bench = await startPhoneBenchApp({ baseUrl, apiKey }, undefined, { MAX_CALLS: String(calls) });
  const { app, organizationId } = bench;
  const trunks = createSipTrunksService({ db: bench.database.db, secrets: app.ctx.secrets, sip: app.ctx.config.sip });
  const trunk = await trunks.create(organizationId, sipTrunkInputSchema.parse({ name: "Bench PBX", inbound_addresses: ["127.0.0.1"] }));
  const [twilioNumber] = await bench.database.db.select({ assistantId: phoneNumbers.assistantId }).from(phoneNumbers).limit(1);
  await bench.database.db.insert(phoneNumbers).values({ organizationId, phoneNumber: NUMBER, provider: "sip", sipTrunkId: trunk.id, status: "active", assistantId: twilioNumber!.assistantId });
  if (!(await app.sip.start({ host: "127.0.0.1", port: 0, publicAddress: "127.0.0.1", rtpPorts: RTP_PORTS }))) throw new Error("SIP did not start");
  await collectGarbage();

  progress(`${calls} calls: dialling ${calls + beyond} at once (MAX_CALLS ${calls})`);
  const callers = child("bench-sip-callers.ts");
  children.add(callers);
  const setUpAt = performance.now();
  send(callers, { type: "start", uri: `sip:${NUMBER}@127.0.0.1:${app.sip.port}`, calls: calls + beyond, seconds } satisfies SipCallersRequest);
  const up = await fromChild<SipCallersMessage, "up">(callers, "up", UP_MS);
  const setUpMs = performance.now() - setUpAt;
  const refusals = Object.entries(up.statuses).map(([s, n]) => `${n}×${s}`).join(", ");
  progress(`${calls} calls: ${up.answered} answered, ${up.refused} refused${refusals ? ` (${refusals})` : ""}; measuring ${seconds} s`);
  await new Promise((resolve) => setTimeout(resolve, WARM_UP_MS));
  const cpu = cpuSecondsOf(process.pid);
  const wallStart = performance.now();
  const clockFrom = (await mediaClockPasses()).total;
  const loopWatch = watchEventLoop();
  await new Promise((resolve) => setTimeout(resolve, seconds * 1000));
  const loop = loopWatch.stop();
  const clockGaps = await clockIntervals(clockFrom);
  const wallMs = performance.now() - wallStart;
  const used = cpuSecondsOf(process.pid) - cpu;
  const rssMb = rssMbOf(process.pid);
  const sentInterval = summarize(clockGaps);
  const loadAtEnd = load();

  progress(`${calls} calls: hanging up (each caller waits for its BYE's answer)`);
  send(callers, { type: "end" } satisfies SipCallersRequest);
  const report = await fromChild<SipCallersMessage, "report">(callers, "report", REPORT_MS);
  progress(`${calls} calls: ${report.byesAnswered} BYEs answered, ${report.byesUnanswered} not; waiting for the server's calls to end`);
  await until(() => app.ctx.liveCalls.size === 0, CALLS_END_MS);
  const leftUp = app.ctx.liveCalls.size;
  progress(`${calls} calls: closing the app${leftUp ? ` (${leftUp} calls still up: closing ends them)` : ""}`);
  await bench.close();
  for (const proc of [callers, provider]) {
    if (proc.exitCode === null) proc.kill();
    children.delete(proc);
  }
  const perCallMs = up.answered > 0 ? (used * 1000 * 1000) / wallMs / up.answered : Number.NaN;
  return [
    String(calls),
    loadAtEnd,
    `${up.answered} / ${up.refused}${refusals ? ` (${refusals})` : ""}`,
    up.refused ? fmt(up.refusedAfter.p99, 0) : "–",
    fmt(setUpMs / 1000),
    fmt(perCallMs),
    fmt(rssMb, 0),
    `${fmt(sentInterval.p50)} / ${fmt(sentInterval.p99)}`,
    `${fmt(loop.delayP99)} / ${fmt(loop.delayMax)}, ${fmt(loop.gcTotal, 0)} / ${fmt(loop.gcMax)}`,
    `${fmt(report.interval.p50)} / ${fmt(report.interval.p99)}`,
    `${fmt(report.firstAudio.p50, 0)} / ${fmt(report.firstAudio.p99, 0)}`,
    `${report.byesUnanswered} / ${leftUp}`,
  ];
}

const HEAD = [
  "calls",
  "load 1/5/15 min",
  "answered / refused",
  "refused after ms p99",
  "all up after s",
  "server CPU ms per call-second",
  "server RSS MB",
  "RTP sent interval p50 / p99 ms (server clock)",
  "loop delay p99 / max ms, GC pauses total / max ms",
  "RTP received interval p50 / p99 ms (callers)",
  "first audio after ACK p50 / p99 ms",
  "BYEs unanswered / calls left up",
];
const rows: string[][] = [];
function print() {
  console.log(`\nbench:sip — ${new Date().toISOString()}, ${cpus().length} × ${cpus()[0]?.model ?? "cpu"}, load (1/5/15 min) in each row as its measuring ended, ${seconds} s per sitting, barge-in every ${bargeInEveryMs / 1000} s, ${beyond} calls beyond MAX_CALLS\n`);
  console.log(markdownTable(HEAD, rows));
}

/** Prints what was measured so far and where the bench stood, and ends it (children too). */
function stop(why: string, code: number): never {
  print();
  console.error(`\nbench:sip: ${why} after ${((performance.now() - benchStart) / 1000).toFixed(0)} s, at: ${phase}`);
  for (const proc of children) proc.kill();
  process.exit(code);
}
// Nothing waits forever: past the budget of every sitting the bench stops and says where it was,
// as it does when interrupted.
const watchdog = setTimeout(() => stop("out of time", 1), counts.length * sittingBudgetMs());
process.once("SIGINT", () => stop("interrupted", 130));
process.once("SIGTERM", () => stop("terminated", 143));

try {
  for (const n of counts) {
    rows.push(await run(n));
    progress(`${n} calls: done | ${rows.at(-1)!.join(" | ")}`);
  }
} catch (err) {
  stop(`failed (${(err as Error).message})`, 1);
}
clearTimeout(watchdog);
print();
if (!args.includes("--sip-only")) await besideTwilio();
process.exit(0);

/** The same counts through the Twilio path (bench:calls), and each SIP row's CPU per call against theirs. */
async function besideTwilio() {
  progress(`the Twilio path: ${counts.join(", ")} calls (bench:calls)`);
  const file = join(tmpdir(), `bench-sip-twilio-${process.pid}.json`);
  const code = await new Promise<number | null>((resolve) => {
    const proc = spawn(process.execPath, ["--expose-gc", "--import", "tsx", join(import.meta.dirname, "bench-calls.ts"), ...counts.map(String), "--seconds", String(seconds), "--barge-in-every", String(bargeInEveryMs / 1000), "--only", "switchboard", "--max-calls", String(Math.max(...counts)), "--json", file], { stdio: ["ignore", "ignore", "inherit"] });
    children.add(proc);
    proc.on("exit", resolve);
  });
  if (code !== 0) return console.error(`bench:sip: the Twilio path's bench exited ${code}; no comparison`);
  const twilio = JSON.parse(readFileSync(file, "utf8")) as { calls: number; connected: number; cpuPerCall: number; rssMb: number; streamFirstAudio: { p50: number; p99: number }; providerDelayP50: number }[];
  rmSync(file, { force: true });
  const table = counts.map((n, i) => {
    const t = twilio.find((r) => r.calls === n);
    const sipMs = Number(rows[i]?.[5]);
    // bench:calls gives % of a core per call: ×10 is ms of CPU per second of call.
    const twilioMs = t ? t.cpuPerCall * 10 : Number.NaN;
    return [String(n), t ? `${t.connected}` : "–", fmt(twilioMs), t ? fmt(t.rssMb, 0) : "–", t ? `${fmt(t.streamFirstAudio.p50 - t.providerDelayP50, 0)} / ${fmt(t.streamFirstAudio.p99 - t.providerDelayP50, 0)}` : "–", fmt(sipMs), `${fmt(sipMs / twilioMs, 2)}×`];
  });
  console.log(`
The Twilio path in the same sitting (bench:calls -- ${counts.join(" ")} --seconds ${seconds} --only switchboard), load ${load()} at its end:
`);
  console.log(markdownTable(["calls", "connected", "server CPU ms per call-second", "server RSS MB", "stream → first audio p50 / p99 ms", "SIP: server CPU ms per call-second", "SIP / Twilio CPU per call (aim ≤ 0.6×)"], table));
}
