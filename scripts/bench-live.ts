/**
 * `npm run bench:live [-- --calls 100 --listeners 10 --seconds 12]`: what listening in on calls
 * (the live board) costs the server, and how late the supervisor hears the caller.
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
import { child, markdownTable, positiveOption } from "./bench-process.ts";
import { nextMessage, send } from "./bench-voice-shared.ts";

const args = process.argv.slice(2);
const option = (name: string, fallback: number) => positiveOption(args, name, fallback);
const calls = Math.round(option("--calls", 100));
const listeners = Math.min(calls, Math.round(option("--listeners", 10)));
const phaseSeconds = Math.min(20, option("--seconds", 12));
/** After the last call is dialled, until every call is past its start (sessions opened, greetings spoken). */
const CALLS_SETTLE_MS = 6000;
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
// With a margin: connecting the supervisors takes a while on a loaded machine.
const callSeconds = 2 * phaseSeconds + (CALLS_SETTLE_MS + 4 * SETTLE_MS) / 1000;
send(provider, { type: "start", seconds: callSeconds, bargeInEveryMs: 3000 } satisfies ProviderRequest);
const { baseUrl, apiKey } = await nextMessage<ProviderMessage, "listening">(provider, "listening");
// Every call of the run is carried: this bench measures the board, not MAX_CALLS.
const bench = await startPhoneBenchApp({ baseUrl, apiKey }, undefined, { MAX_CALLS: String(calls) });
const callers = child("bench-calls-callers.ts");
const supervisors = child("bench-live-supervisors.ts");
try {
  send(callers, { type: "start", target: bench.target, calls, seconds: callSeconds } satisfies CallersRequest);
  const streaming = await nextMessage<CallersMessage, "streaming">(callers, "streaming", 120_000);
  const streamed = nextMessage<CallersMessage, "streamed">(callers, "streamed", 300_000);
  await sleep(CALLS_SETTLE_MS);
  const live = bench.app.ctx.liveCalls.supervisedBy(bench.organizationId);
  // The process CPU of a loaded, shared machine wobbles by more than ten listeners cost: the
  // audio taps of every call are also timed directly (mix and send to the listeners' sockets).
  let tapMs = 0;
  let callerFrames = 0;
  for (const supervision of live) {
    for (const tap of ["callerAudio", "assistantAudio"] as const) {
      const original = supervision[tap].bind(supervision);
      supervision[tap] = (samples: Int16Array) => {
        // CPU time, not wall time: on a loaded machine a tap may be preempted midway.
        const started = process.cpuUsage();
        original(samples);
        if (tap === "callerAudio") callerFrames += 1;
        const used = process.cpuUsage(started);
        tapMs += (used.user + used.system) / 1000;
      };
    }
  }

  tapMs = 0;
  callerFrames = 0;
  const alone = await serverCpu(phaseSeconds * 1000);
  const tapsAlone = tapMs;
  const framesAlone = callerFrames;

  const base = bench.origin.replace(/^http/, "ws");
  send(supervisors, { type: "start", base, cookie: bench.cookie, callIds: live.slice(0, listeners).map((s) => s.callId!) } satisfies SupervisorsRequest);
  const listening = await nextMessage<SupervisorsMessage, "listening">(supervisors, "listening");
  await sleep(SETTLE_MS);
  const from = String(process.hrtime.bigint());
  tapMs = 0;
  callerFrames = 0;
  const withListeners = await serverCpu(phaseSeconds * 1000);
  const tapsWith = tapMs;
  const framesWith = callerFrames;
  const window = { from, to: String(process.hrtime.bigint()) };
  send(supervisors, { type: "end", ...window } satisfies SupervisorsRequest);
  const heard = await nextMessage<SupervisorsMessage, "report">(supervisors, "report");

  await streamed;
  send(callers, { type: "end", ...window } satisfies CallersRequest);
  await nextMessage<CallersMessage, "report">(callers, "report", 120_000);
  // The same frames' way to the provider in the same window: what the loaded machine adds anyway.
  send(provider, { type: "report", ...window } satisfies ProviderRequest);
  const toProvider = (await nextMessage<ProviderMessage, "report">(provider, "report")).uplinkE2e;

  const perCall = alone / Math.max(1, streaming.connected);
  const perListener = (withListeners - alone) / Math.max(1, listening.listeners);
  const tapPerListener = ((tapsWith - tapsAlone) / (phaseSeconds * 1000) / Math.max(1, listening.listeners)) * 100;
  const ms = (v: number) => (Number.isFinite(v) ? v.toFixed(1) : "n/a");
  console.log();
  console.log(
    markdownTable(
      [
        "calls",
        "listeners",
        "server CPU %core, 0 listeners",
        `with ${listening.listeners}`,
        "extra per listener %core",
        "listen work per listener %core",
        "per call %core",
        "frames heard",
        "caller→supervisor ms p50/p99/max (n)",
        "caller→provider ms p50/p99",
      ],
      [
        [
          String(streaming.connected),
          String(listening.listeners),
          alone.toFixed(1),
          withListeners.toFixed(1),
          perListener.toFixed(3),
          tapPerListener.toFixed(4),
          perCall.toFixed(3),
          String(heard.frames),
          `${ms(heard.delay.p50)} / ${ms(heard.delay.p99)} / ${ms(heard.delay.max)} (${heard.stamped})`,
          `${ms(toProvider.p50)} / ${ms(toProvider.p99)}`,
        ],
      ],
    ),
  );
  console.log();
  console.log(
    "extra per listener: (server CPU with the listeners − without) / listeners, % of one core; per call: server CPU without listeners / calls.\n" +
      "listen work per listener: time spent in the calls' audio taps (mixing, handing frames to the listeners' sockets) with the listeners − without, / listeners.\n" +
      "delay: from the caller process stamping a 20 ms frame to the supervisor process receiving the mixed frame that carries it (monotonic clock shared by the processes);\n" +
      "frames whose stamp the assistant's audio overlapped in the mix are left out of the delay (n counts those read).\n" +
      "caller→provider: the same callers' frames to the fake provider in the same window, through the call engine (what the machine's load adds to any path).",
  );
  const [loadEnd] = loadavg();
  console.log(
    `Aims: listening costs less than a call — ${Math.max(perListener, tapPerListener) < perCall ? "met" : "not met"} (${perListener.toFixed(3)} by process CPU, ${tapPerListener.toFixed(4)} by the taps, vs ${perCall.toFixed(3)} % of a core per call); ` +
      `delay p99 < ${AIM.p99Ms} ms — ${heard.delay.p99 < AIM.p99Ms ? "met" : "not met"} (${ms(heard.delay.p99)} ms). Load average ${loadEnd!.toFixed(2)} at the end.` +
      ` Caller frames reaching the calls: ${framesAlone} without listeners, ${framesWith} with (${Math.round((phaseSeconds * 1000 * live.length) / 20)} expected).` +
      (streaming.firstFailure ? ` First call failure: ${streaming.firstFailure}.` : "") +
      (listening.firstFailure ? ` First listener failure: ${listening.firstFailure}.` : ""),
  );
} finally {
  await bench.close();
  for (const proc of [callers, provider, supervisors]) if (proc.exitCode === null) proc.kill();
}
