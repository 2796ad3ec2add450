/**
 * `npm run bench:sip [-- 50 200] [--seconds 15] [--barge-in-every 3]`: N SIP calls at once against
 * the real app's SIP endpoint, for each N, with µ-law RTP both ways and a barge-in every few
 * seconds from the fake OpenAI Realtime provider (bench-calls-provider.ts, the one bench:calls
 * uses). Compare with `npm run bench:calls -- 50 200 --only switchboard` run in the same sitting.
 *
 * Three processes: this one (the real app, embedded database, a trunk admitting 127.0.0.1 and a
 * SIP number on it, the SIP endpoint on a free port), the fake provider, and the callers
 * (bench-sip-callers.ts: our own SIP stack as N UACs). All traffic stays on 127.0.0.1.
 *
 * Printed per N: calls answered/refused, server CPU per call (ms of CPU per second of call), the
 * server's RSS, the interval between RTP packets as the callers receive them (p50/p99), and the
 * first audio after the ACK (p50/p99: the greeting's first non-silent frame).
 */
import { cpus, loadavg } from "node:os";
import { performance } from "node:perf_hooks";
import { phoneNumbers } from "../src/server/db/schema.ts";
import { createSipTrunksService } from "../src/server/modules/sip-trunks/sip-trunks.service.ts";
import { sipTrunkInputSchema } from "../src/shared/sip-trunks.ts";
import type { ProviderMessage, ProviderRequest } from "./bench-calls-shared.ts";
import type { SipCallersMessage, SipCallersRequest } from "./bench-sip-callers.ts";
import { startPhoneBenchApp } from "./bench-phone-app.ts";
import { child, collectGarbage, cpuSecondsOf, markdownTable, rssMbOf } from "./bench-process.ts";
import { nextMessage, send } from "./bench-voice-shared.ts";

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
const NUMBER = "+15550199";
const fmt = (n: number, digits = 1) => (Number.isFinite(n) ? n.toFixed(digits) : "–");

async function run(calls: number) {
  const provider = child("bench-calls-provider.ts");
  send(provider, { type: "start", seconds: seconds + 5, bargeInEveryMs } satisfies ProviderRequest);
  const { baseUrl, apiKey } = await nextMessage<ProviderMessage, "listening">(provider, "listening");
  const bench = await startPhoneBenchApp({ baseUrl, apiKey }, undefined, { MAX_CALLS: String(calls) });
  const { app, organizationId } = bench;
  const trunks = createSipTrunksService({ db: bench.database.db, secrets: app.ctx.secrets, sip: app.ctx.config.sip });
  const trunk = await trunks.create(organizationId, sipTrunkInputSchema.parse({ name: "Bench PBX", inbound_addresses: ["127.0.0.1"] }));
  const [twilioNumber] = await bench.database.db.select({ assistantId: phoneNumbers.assistantId }).from(phoneNumbers).limit(1);
  await bench.database.db.insert(phoneNumbers).values({ organizationId, phoneNumber: NUMBER, provider: "sip", sipTrunkId: trunk.id, status: "active", assistantId: twilioNumber!.assistantId });
  if (!(await app.sip.start({ host: "127.0.0.1", port: 0, publicAddress: "127.0.0.1", rtpPorts: { min: 40000, max: 49999 } }))) throw new Error("SIP did not start");
  await collectGarbage();

  const callers = child("bench-sip-callers.ts");
  const setUpAt = performance.now();
  send(callers, { type: "start", uri: `sip:${NUMBER}@127.0.0.1:${app.sip.port}`, calls, seconds } satisfies SipCallersRequest);
  const up = await nextMessage<SipCallersMessage, "up">(callers, "up", 120_000);
  const setUpMs = performance.now() - setUpAt;
  const cpu = cpuSecondsOf(process.pid);
  const wallStart = performance.now();
  await new Promise((resolve) => setTimeout(resolve, seconds * 1000));
  const wallMs = performance.now() - wallStart;
  const used = cpuSecondsOf(process.pid) - cpu;
  const rssMb = rssMbOf(process.pid);
  send(callers, { type: "end" } satisfies SipCallersRequest);
  const report = await nextMessage<SipCallersMessage, "report">(callers, "report", 120_000);
  while (app.ctx.liveCalls.size > 0) await new Promise((resolve) => setTimeout(resolve, 50));
  await bench.close();
  for (const proc of [callers, provider]) if (proc.exitCode === null) proc.kill();
  const perCallMs = up.answered > 0 ? (used * 1000 * 1000) / wallMs / up.answered : Number.NaN;
  return [
    String(calls),
    `${up.answered} / ${up.refused}${up.refused ? ` (${Object.entries(up.statuses).map(([s, n]) => `${n}×${s}`).join(", ")})` : ""}`,
    fmt(setUpMs / 1000),
    fmt(perCallMs),
    fmt(rssMb, 0),
    `${fmt(report.interval.p50)} / ${fmt(report.interval.p99)}`,
    `${fmt(report.firstAudio.p50, 0)} / ${fmt(report.firstAudio.p99, 0)}`,
  ];
}

const rows: string[][] = [];
for (const n of counts) rows.push(await run(n));
console.log(`\nbench:sip — ${new Date().toISOString()}, ${cpus().length} × ${cpus()[0]?.model ?? "cpu"}, load ${loadavg().map((l) => l.toFixed(1)).join(" ")}, ${seconds} s per sitting, barge-in every ${bargeInEveryMs / 1000} s\n`);
console.log(markdownTable(["calls", "answered / refused", "all up after s", "server CPU ms per call-second", "server RSS MB", "RTP interval p50 / p99 ms", "first audio after ACK p50 / p99 ms"], rows));
process.exit(0);
