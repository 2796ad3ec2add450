/**
 * `npm run bench:live [-- --calls 100 --listeners 10 --seconds 15]`: what listening in on calls
 * (the live board, issue 17) costs the server, and how late the supervisor hears the caller.
 *
 * Four processes, all on 127.0.0.1 through real sockets:
 *  - this one: the real app (bench-phone-app.ts), the server being measured;
 *  - bench-calls-provider.ts: the fake OpenAI Realtime server (answers at real-time pace,
 *    a caller turn every 3 s);
 *  - bench-calls-callers.ts: `--calls` simulated Twilio callers (20 ms µ-law frames, stamped);
 *  - bench-live-supervisors.ts: `--listeners` supervisors, each listening to one call.
 *
 * The server's CPU is measured over `--seconds` with nobody listening, then over as long with
 * the listeners on: the difference per listener is the cost of listening, printed next to the
 * cost of a call itself. The delay runs from a caller frame's send stamp to the arrival of the
 * mixed frame carrying it at the supervisor. The whole run stays within about a minute.
 */
import { cpus, loadavg } from "node:os";
import type { CallersMessage, CallersRequest, ProviderMessage, ProviderRequest, SupervisorsMessage, SupervisorsRequest } from "./bench-calls-shared.ts";
import { startPhoneBenchApp } from "./bench-phone-app.ts";
import { child, markdownTable } from "./bench-process.ts";
import { nextMessage, send } from "./bench-voice-shared.ts";

const args = process.argv.slice(2);
const option = (name: string, fallback: number) => {
  const at = args.indexOf(name);
  const value = at >= 0 ? Number(args[at + 1]) : Number.NaN;
  return Number.isFinite(value) && value > 0 ? value : fallback;
};
const calls = Math.round(option("--calls", 100));
const listeners = Math.min(calls, Math.round(option("--listeners", 10)));
const phaseSeconds = Math.min(20, option("--seconds", 15));
const SETTLE_MS = 2000;
const AIM = { p99Ms: 300 };

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** Server CPU over `ms`, in % of one core. */
async function serverCpu(ms: number): Promise<number> {
  const before = process.cpuUsage();
  const started = performance.now();
  await sleep(ms);
  const used = process.cpuUsage(before);
  return ((used.user + used.system) / 1000 / (performance.now() - started)) * 100;
}

const [load1] = loadavg();
console.log(
  `bench:live: ${calls} phone calls in progress, ${listeners} supervisors each listening to one, ${phaseSeconds} s measured without and with listeners ` +
    `(Node ${process.version}, ${cpus().length} CPUs, load average ${load1!.toFixed(2)} at start)`,
);

const provider = child("bench-calls-provider.ts");
const callSeconds = 2 * phaseSeconds + 4 * (SETTLE_MS / 1000) + 2;
send(provider, { type: "start", seconds: callSeconds, bargeInEveryMs: 3000 } satisfies ProviderRequest);
const { baseUrl, apiKey } = await nextMessage<ProviderMessage, "listening">(provider, "listening");
const bench = await startPhoneBenchApp({ baseUrl, apiKey });
const callers = child("bench-calls-callers.ts");
const supervisors = child("bench-live-supervisors.ts");
try {
  send(callers, { type: "start", target: bench.target, calls, seconds: callSeconds } satisfies CallersRequest);
  const streaming = await nextMessage<CallersMessage, "streaming">(callers, "streaming", 120_000);
  const streamed = nextMessage<CallersMessage, "streamed">(callers, "streamed", 300_000);
  await sleep(SETTLE_MS);
  const live = bench.app.ctx.liveCalls.supervisedBy(bench.userId);

  const alone = await serverCpu(phaseSeconds * 1000);

  const base = bench.origin.replace(/^http/, "ws");
  send(supervisors, { type: "start", base, cookie: bench.cookie, callIds: live.slice(0, listeners).map((s) => s.callId!) } satisfies SupervisorsRequest);
  const listening = await nextMessage<SupervisorsMessage, "listening">(supervisors, "listening");
  await sleep(SETTLE_MS);
  const from = String(process.hrtime.bigint());
  const withListeners = await serverCpu(phaseSeconds * 1000);
  const window = { from, to: String(process.hrtime.bigint()) };
  send(supervisors, { type: "end", ...window } satisfies SupervisorsRequest);
  const heard = await nextMessage<SupervisorsMessage, "report">(supervisors, "report");

  await streamed;
  send(callers, { type: "end", ...window } satisfies CallersRequest);
  await nextMessage<CallersMessage, "report">(callers, "report", 120_000);

  const perCall = alone / Math.max(1, streaming.connected);
  const perListener = (withListeners - alone) / Math.max(1, listening.listeners);
  const ms = (v: number) => (Number.isFinite(v) ? v.toFixed(1) : "n/a");
  console.log();
  console.log(
    markdownTable(
      ["calls", "listeners", "server CPU %core, 0 listeners", `with ${listening.listeners}`, "extra per listener %core", "per call %core", "frames heard", "delay ms p50/p99/max (n)"],
      [
        [
          String(streaming.connected),
          String(listening.listeners),
          alone.toFixed(1),
          withListeners.toFixed(1),
          perListener.toFixed(3),
          perCall.toFixed(3),
          String(heard.frames),
          `${ms(heard.delay.p50)} / ${ms(heard.delay.p99)} / ${ms(heard.delay.max)} (${heard.stamped})`,
        ],
      ],
    ),
  );
  console.log();
  console.log(
    "extra per listener: (server CPU with the listeners − without) / listeners, % of one core; per call: server CPU without listeners / calls.\n" +
      "delay: from the caller process stamping a 20 ms frame to the supervisor process receiving the mixed frame that carries it (monotonic clock shared by the processes);\n" +
      "frames whose stamp the assistant's audio overlapped in the mix are left out of the delay (n counts those read).",
  );
  const [loadEnd] = loadavg();
  console.log(
    `Aims: listening costs less than a call — ${perListener < perCall ? "met" : "not met"} (${perListener.toFixed(3)} vs ${perCall.toFixed(3)} % of a core); ` +
      `delay p99 < ${AIM.p99Ms} ms — ${heard.delay.p99 < AIM.p99Ms ? "met" : "not met"} (${ms(heard.delay.p99)} ms). Load average ${loadEnd!.toFixed(2)} at the end.` +
      (streaming.firstFailure ? ` First call failure: ${streaming.firstFailure}.` : "") +
      (listening.firstFailure ? ` First listener failure: ${listening.firstFailure}.` : ""),
  );
} finally {
  await bench.close();
  for (const proc of [callers, provider, supervisors]) if (proc.exitCode === null) proc.kill();
}
