/**
 * `npm run bench:pipeline [-- 50 200] [--seconds 20] [--speech-ms 1500] [--final-ms 150]
 * [--first-token-ms 200] [--first-audio-ms 100] [--pipeline-only] [--speak [--silence-ms 2500]
 * [--words-after-ms 700]]`: N simultaneous phone calls on a pipeline
 * assistant (Deepgram → Chat Completions → ElevenLabs, stand-ins with fixed delays in their own
 * process: bench-pipeline-services.ts), and the same N on a Realtime assistant (bench:calls's fake
 * provider) in the same sitting. Three processes, as in bench:calls: the real app here (embedded
 * database, a real port), the services or the fake provider, and the Twilio callers
 * (bench-calls-callers.ts, talking without pause: each caller turn interrupts the last answer).
 *
 * Printed per N and engine: the latency the pipeline adds on top of the services' own, per turn,
 * end to end — from the transcriber's final (its send time rides in the answer's first audio
 * chunk) to that chunk's arrival at the caller, less the time the model and the voice stand-ins held
 * the turn's requests (each measured in the stand-ins, not their nominal delays); the
 * same split as the call record keeps it (measured in the server); the barge-in stop time — from
 * the transcriber's first words during the answer to the `clear` at the caller; server CPU and
 * RSS per call (every pipeline call runs voice activity detection, Silero VAD, on all of its
 * caller's audio, so its CPU per call includes the VAD; the VAD's own share is measured first, on
 * its own, over a minute of a call's audio); how late each process's event loop ran (the server's,
 * and the stand-ins', whose CPU is shown too: late stand-ins would pass for a slow server), and the
 * TCP connections the server opened to the stand-ins (keep-alive reuse). `--pipeline-only` leaves
 * out the Realtime runs.
 *
 * `--speak`: the callers say a real sentence (espeak-ng µ-law), are silent `--silence-ms`, and say
 * it again, over the answer; the pipeline assistant ends turns on the VAD (`turn_end: "vad"`), and
 * the stand-in transcriber listens to the audio, its words coming `--words-after-ms` into an
 * utterance (after the VAD's decision). The barge-in is then the VAD's: from the send of the frame
 * the speech starts in to the `clear`, and to the interrupted answer's last audio at the caller,
 * less the VAD's own decision time (the same VAD run here over the same audio).
 */
import { cpus, loadavg } from "node:os";
import { eq } from "drizzle-orm";
import { calls as callsTable, phoneNumbers } from "../src/server/db/schema.ts";
import { callLogsSchema, type TurnLatency } from "../src/shared/calls.ts";
import { FRAME_MS, UNTAGGED, type CallerSpeech, type CallersMessage, type SpokenBargeIn, type CallersRequest, type ProviderMessage, type ProviderRequest } from "./bench-calls-shared.ts";
import { finalisedCalls, startPhoneBenchApp, type PhoneBenchApp } from "./bench-phone-app.ts";
import type { ServiceDelays, ServicesMessage, ServicesRequest } from "./bench-pipeline-services.ts";
import { child, collectGarbage, cpuSecondsOf, markdownTable, watchEventLoop } from "./bench-process.ts";
import { nextMessage, send, summarize, type Summary } from "./bench-voice-shared.ts";
import { mulawToPcm16, pcm16ToMulaw } from "../src/server/voice/audio.ts";
import { mulawSpeech } from "../tests/fakes/twilio-speech.ts";
import { seededRandom } from "../tests/seeded-random.ts";
import { VoiceActivity } from "../src/server/voice/pipeline/voice-activity.ts";
import { loadSilero } from "../src/server/voice/pipeline/silero-vad.ts";

const args = process.argv.slice(2);
const option = (name: string, fallback: number) => {
  const at = args.indexOf(name);
  const value = at >= 0 ? Number(args[at + 1]) : Number.NaN;
  return Number.isFinite(value) && value >= 0 ? value : fallback;
};
const flags = new Set(["--pipeline-only", "--speak"]);
const positional = args.filter((a, i) => !a.startsWith("--") && !(i > 0 && args[i - 1]!.startsWith("--") && !flags.has(args[i - 1]!)));
/** `--pipeline-only`: no Realtime runs beside (a quicker sitting, or a profile of the pipeline alone). */
const engines = args.includes("--pipeline-only") ? (["pipeline"] as const) : (["pipeline", "realtime"] as const);
const counts = (positional.length ? positional : ["50", "200"]).map(Number).filter((n) => Number.isInteger(n) && n > 0 && n <= 500);
const seconds = Math.min(120, Math.max(5, option("--seconds", 20)));
/** `--speak`: the callers say real speech (espeak-ng), pause, and speak again over the answer; the assistant's turns end on the VAD. */
const speaking = args.includes("--speak");
const delays: ServiceDelays = {
  speechMs: option("--speech-ms", 1500),
  finalMs: option("--final-ms", 150),
  firstTokenMs: option("--first-token-ms", 200),
  firstAudioMs: option("--first-audio-ms", 100),
  ...(speaking ? { wordsAfterMs: option("--words-after-ms", 700) } : {}),
};
// One sentence with no pause inside it: one utterance, one turn.
const SPOKEN = "Sorry to stop you there but I have one more question about my order";
const silenceMs = option("--silence-ms", 2500);
const AIM = { addedP99: 30, bargeInP99: 100 };
const WARM_UP_MS = 1000;
const MB = 1024 * 1024;
const KEY = "bench-pipeline-key";

type Engine = "realtime" | "pipeline";
interface Row {
  engine: Engine;
  calls: number;
  connected: number;
  added: Summary;
  stages: { model: Summary; voice: Summary; send: Summary } | null;
  bargeIn: Summary;
  /**
   * Speaking callers: from the send of the frame that completed the VAD's decision to the clear and
   * to the interrupted answer's last audio at the caller; and from the send of the frame the speech
   * starts in to the clear.
   */
  spoken: { decisionToClear: Summary; decisionToLastAudio: Summary; onsetToClear: Summary } | null;
  clears: number;
  cpuPerCall: number;
  rssMb: number;
  /** The server's event loop (this process) and the stand-ins' (their own): lateness p99, ms. */
  serverLoopP99: number;
  servicesLoopP99: number | null;
  /** The stand-ins' CPU over the run, % of a core: whether they, not the server, were short of it. */
  servicesCpu: number | null;
  finalised: number;
  /** The stand-ins' report: requests made, and TCP connections opened for them. */
  services: { chatRequests: number; speechRequests: number; tcpConnections: number; overshoot: { model: Summary; voice: Summary } } | null;
}

/** The bench assistant's number now answers with a pipeline assistant on the services' stand-ins. */
async function usePipeline(bench: PhoneBenchApp, baseUrl: string): Promise<void> {
  const post = async (url: string, payload: Record<string, unknown>) => {
    const res = await bench.app.inject({ method: "POST", url, headers: { cookie: bench.cookie }, payload });
    if (res.statusCode !== 201) throw new Error(`${url}: ${res.statusCode} ${res.body}`);
    return (res.json() as { id: string }).id;
  };
  const provider = (name: string, kind: string, protocol: string, base: string) => post("/api/providers", { name, kind, protocol, base_url: base, api_key: KEY });
  const voice_engine = {
    type: "pipeline",
    transcriber: { provider_id: await provider("Deepgram", "transcriber", "deepgram", baseUrl), model: "nova-3", language: "en" },
    model: { provider_id: await provider("Model", "model", "openai-compatible", `${baseUrl}/v1`), model: "llama-3.3-70b" },
    voice: { provider_id: await provider("ElevenLabs", "voice", "elevenlabs", baseUrl), voice: "bench-voice", model: "eleven_flash_v2_5" },
    ...(speaking ? { turn_end: "vad" } : {}),
  };
  const assistantId = await post("/api/assistants", { name: "Bench pipeline", instructions: "Talk.", first_message: "Hello, thanks for calling.", voice_engine });
  await bench.database.db.update(phoneNumbers).set({ assistantId }).where(eq(phoneNumbers.phoneNumber, bench.target.to));
}

/** The pipeline's turns as its records keep them. */
async function recordedTurns(bench: PhoneBenchApp): Promise<TurnLatency[]> {
  const rows = await bench.database.db.select({ logs: callsTable.logs }).from(callsTable);
  return rows.flatMap((r) => callLogsSchema.safeParse(r.logs).data?.turns ?? []);
}

/** Speaking callers' barge-ins, timed from the VAD's decision (each utterance's own, by where its clip fell in the windows) and from the speech's onset. */
function spokenBargeIns(bargeIns: SpokenBargeIn[], speech: Awaited<ReturnType<typeof speakingCallers>>): NonNullable<Row["spoken"]> {
  // Times are from the send of the clip's first frame, which goes once its 20 ms has passed.
  const decisionSent = (b: SpokenBargeIn) => speech.decisionByPhase.get(b.clipAtMs % 32)! - FRAME_MS;
  const onsetSent = Math.floor(speech.onsetMs / FRAME_MS) * FRAME_MS;
  return {
    decisionToClear: summarize(bargeIns.map((b) => b.clearMs - decisionSent(b))),
    decisionToLastAudio: summarize(bargeIns.map((b) => b.lastAudioMs - decisionSent(b))),
    onsetToClear: summarize(bargeIns.map((b) => b.clearMs - onsetSent)),
  };
}

async function run(engine: Engine, calls: number): Promise<Row> {
  const stub = engine === "pipeline" ? child("bench-pipeline-services.ts") : child("bench-calls-provider.ts");
  let provider: { baseUrl: string; apiKey: string };
  if (engine === "pipeline") {
    send(stub, { type: "start", delays } satisfies ServicesRequest);
    const listening = await nextMessage<ServicesMessage, "listening">(stub, "listening");
    provider = { baseUrl: listening.baseUrl, apiKey: "sk-bench-unused" };
  } else {
    send(stub, { type: "start", seconds, bargeInEveryMs: delays.speechMs + delays.finalMs } satisfies ProviderRequest);
    provider = await nextMessage<ProviderMessage, "listening">(stub, "listening");
  }
  const bench = await startPhoneBenchApp(provider, undefined, { TOOL_ALLOWED_HOSTS: "127.0.0.1", MAX_CALLS: String(calls) });
  if (engine === "pipeline") await usePipeline(bench, provider.baseUrl);
  await collectGarbage();

  const callers = child("bench-calls-callers.ts");
  send(callers, { type: "start", target: bench.target, calls, seconds, ...(speech ? { speech: speech.callers } : {}) } satisfies CallersRequest);
  const streaming = await nextMessage<CallersMessage, "streaming">(callers, "streaming", 300_000);
  const streamed = nextMessage<CallersMessage, "streamed">(callers, "streamed", 900_000);
  await new Promise((resolve) => setTimeout(resolve, WARM_UP_MS));
  const cpuBefore = process.cpuUsage();
  const servicesCpuBefore = cpuSecondsOf(stub.pid);
  const loop = watchEventLoop();
  const wallStart = performance.now();
  const from = String(process.hrtime.bigint());
  await streamed;
  const cpu = process.cpuUsage(cpuBefore);
  const wallMs = performance.now() - wallStart;
  const servicesCpu = engine === "pipeline" ? ((cpuSecondsOf(stub.pid) - servicesCpuBefore) * 1e5) / wallMs : null;
  const serverLoopP99 = loop.stop().delayP99;
  const rssMb = process.memoryUsage().rss / MB;
  send(callers, { type: "end", from, to: String(process.hrtime.bigint()) } satisfies CallersRequest);
  const report = await nextMessage<CallersMessage, "report">(callers, "report", 300_000);
  while (bench.app.ctx.liveCalls.size > 0) await new Promise((resolve) => setTimeout(resolve, 50));
  await new Promise((resolve) => setTimeout(resolve, 500));
  const finalised = await finalisedCalls(bench.database.db);

  let added: number[] = [];
  let bargeIn: number[] = [];
  let stages: Row["stages"] = null;
  let servicesLoopP99: number | null = null;
  let servicesReport: Row["services"] = null;
  if (engine === "pipeline") {
    send(stub, { type: "report" } satisfies ServicesRequest);
    const services = await nextMessage<ServicesMessage, "report">(stub, "report");
    servicesLoopP99 = services.loopDelayP99;
    servicesReport = services;
    // A turn's first audio chunk carries its final's send time moved on by the time the two stand-ins
    // held its requests (measured there): its age is what the turn took outside the services.
    // Only the answers' first sentences (item turn × 100 + 0) carry it; the greeting and later sentences do not.
    // Speaking callers' turns end on the VAD, with no stamped final: their first chunks carry only a send time.
    if (!speaking) added = Object.entries(report.itemStarts)
      .filter(([key]) => Number(key.split(":")[0]) !== UNTAGGED && Number(key.split(":")[1]) % 100 === 0)
      .map(([, age]) => age);
    // Each clear, against the last time the transcriber heard that caller start speaking before it
    // (speaking callers: the VAD clears before the words come, so their own report says it instead).
    if (!speaking) bargeIn = Object.entries(report.clearedAt).flatMap(([key, at]) => {
      const started = (services.heardStarting[Number(key.split(":")[0])] ?? []).filter((t) => t <= at).at(-1);
      return started === undefined ? [] : [(at - started) / 1e6];
    });
    const turns = (await recordedTurns(bench)).filter((t) => t.firstAudioSentMs !== undefined && t.firstTokenMs !== undefined && t.firstVoiceAudioMs !== undefined);
    stages = {
      model: summarize(turns.map((t) => t.firstTokenMs! - delays.firstTokenMs)),
      voice: summarize(turns.map((t) => t.firstVoiceAudioMs! - t.firstTokenMs! - delays.firstAudioMs)),
      send: summarize(turns.map((t) => t.firstAudioSentMs! - t.firstVoiceAudioMs!)),
    };
  }
  await bench.close();
  for (const proc of [callers, stub]) if (proc.exitCode === null) proc.kill();
  const connected = Math.max(1, streaming.connected);
  return {
    engine,
    calls,
    connected: streaming.connected,
    added: summarize(added),
    stages,
    bargeIn: summarize(bargeIn),
    spoken: speech ? spokenBargeIns(report.spokenBargeIns, speech) : null,
    clears: report.clears,
    cpuPerCall: (((cpu.user + cpu.system) / 1e3 / wallMs) * 100) / connected,
    rssMb,
    finalised,
    serverLoopP99,
    servicesLoopP99,
    servicesCpu,
    services: servicesReport,
  };
}

const ms = (v: number) => (Number.isFinite(v) ? v.toFixed(1) : "n/a");
const pair = (s: Summary) => `${ms(s.p50)} / ${ms(s.p99)} (n=${s.count})`;

console.log(
  `bench:pipeline: ${counts.join(", ")} simultaneous phone calls, ${seconds} s each, on a pipeline and on a Realtime assistant; stand-in delays: ` +
    `transcriber final ${delays.finalMs} ms after the caller's words start being heard (${delays.speechMs} ms of speech per turn), first token ${delays.firstTokenMs} ms, first voice audio ${delays.firstAudioMs} ms ` +
    `(Node ${process.version}, ${cpus().length} CPUs ${cpus()[0]?.model ?? ""}, load average ${loadavg().map((l) => l.toFixed(1)).join(" / ")} at start)`,
);
/** The VAD alone on a minute of a phone call's audio in 20 ms frames (half noise, half silence: inference costs the same either way). */
async function vadCpu(): Promise<{ percentOfCore: number; msPerWindow: number }> {
  await loadSilero();
  const seconds = 60;
  const vad = new VoiceActivity({ format: "audio/pcmu" }, { speechStarted: () => {}, speechStopped: () => {} });
  const random = seededRandom(7);
  const frames = Array.from({ length: (seconds * 1000) / 20 }, (_, i) =>
    pcm16ToMulaw(Int16Array.from({ length: 160 }, () => (Math.floor(i / 50) % 2 === 0 ? Math.round((random() - 0.5) * 8000) : 0))),
  );
  const before = process.cpuUsage();
  for (const frame of frames) vad.push(frame);
  await vad.idle();
  const cpu = process.cpuUsage(before);
  const cpuMs = (cpu.user + cpu.system) / 1000;
  return { percentOfCore: (cpuMs / (seconds * 1000)) * 100, msPerWindow: cpuMs / ((seconds * 1000) / 32) };
}

/**
 * The speaking callers' clip, and when the VAD decides it is speech as the server's VAD meets it.
 * Its 32 ms windows count from the call's first frame, so the decision depends on where the clip
 * starts modulo 32 ms (a multiple of 4: frames are 20 ms). For each such phase the clip (padded to
 * whole frames, as the callers send it), about the callers' silence, and the clip again go through
 * the same VAD in 20 ms frames — the second clip meets the state the first left, as an utterance
 * does — and the decision's time after the second clip's start is kept.
 */
async function speakingCallers(): Promise<{ callers: CallerSpeech; onsetMs: number; decisionByPhase: Map<number, number> }> {
  const clip = mulawSpeech(SPOKEN);
  const onsetMs = mulawToPcm16(clip).findIndex((x) => Math.abs(x) > 1500) / 8;
  const padded = Buffer.alloc(Math.ceil(clip.length / 160) * 160, 0xff);
  clip.copy(padded);
  const decisionByPhase = new Map<number, number>();
  for (let phase = 0; phase < 32; phase += 4) {
    let lead = silenceMs - (silenceMs % 20);
    while ((padded.length / 8 + lead) % 32 !== phase) lead += 20;
    const clipAt = padded.length / 8 + lead;
    const audio = Buffer.concat([padded, Buffer.alloc(lead * 8, 0xff), padded]);
    const decidedAt: number[] = [];
    const fed = { ms: 0 };
    const vad = new VoiceActivity({ format: "audio/pcmu" }, { speechStarted: () => decidedAt.push(fed.ms), speechStopped: () => {} });
    for (let at = 0; at < audio.length; at += 160) {
      fed.ms = (at + 160) / 8;
      vad.push(audio.subarray(at, at + 160));
      await vad.idle();
    }
    vad.close();
    const decided = decidedAt.find((at) => at > clipAt);
    if (decided === undefined) throw new Error("the VAD did not hear the callers' clip");
    decisionByPhase.set(phase, decided - clipAt);
  }
  return { callers: { clip: clip.toString("base64"), silenceMs }, onsetMs, decisionByPhase };
}

const vad = await vadCpu();
console.log(`VAD alone (Silero v5, ONNX Runtime CPU, one thread): ${vad.percentOfCore.toFixed(3)} % of a core per call, ${vad.msPerWindow.toFixed(3)} ms per 32 ms window`);
const speech = speaking ? await speakingCallers() : null;
if (speech) {
  console.log(
    `speaking callers: "${SPOKEN}" (espeak-ng, ${(Buffer.from(speech.callers.clip, "base64").length / 8).toFixed(0)} ms, speech from ${speech.onsetMs.toFixed(0)} ms), then ${silenceMs} ms of silence, over and over; ` +
      `the assistant's turns end on the VAD; the stand-in transcriber's first words ${delays.wordsAfterMs} ms into each utterance; the VAD decides ${[...speech.decisionByPhase.values()].join(" / ")} ms after the clip's start (by where it falls in the VAD's 32 ms windows)`,
  );
}
const rows: Row[] = [];
for (const calls of counts) {
  for (const engine of engines) {
    const row = await run(engine, calls);
    rows.push(row);
    const over = row.services?.overshoot;
    const services = row.services
      ? `; ${row.services.chatRequests} model and ${row.services.speechRequests} voice requests on ${row.services.tcpConnections} TCP connections;` +
        ` stand-ins held requests longer than nominal by ${ms(over!.model.p50)}/${ms(over!.model.p99)} (model) and ${ms(over!.voice.p50)}/${ms(over!.voice.p99)} (voice) ms p50/p99, taken out of "added"`
      : "";
    console.log(`  ${engine}, ${calls} calls: ${row.connected} connected, ${row.clears} clears, ${row.finalised} records finalised${services}; load average ${loadavg()[0]!.toFixed(1)}`);
  }
}
console.log();
console.log(
  markdownTable(
    ["engine", "calls", "added per turn ms p50/p99", "in the server: model / voice / send ms p50/p99", speaking ? "barge-in ms p50/p99: VAD decision → clear · → last audio · speech onset → clear" : "barge-in stop ms p50/p99", "CPU/call % core (pipeline: VAD included)", "RSS MB", "loop p99 ms: server / stand-ins", "stand-ins CPU % core"],
    rows.map((r) => [
      r.engine,
      r.connected === r.calls ? String(r.calls) : `${r.connected}/${r.calls}`,
      r.engine === "pipeline" ? pair(r.added) : "n/a",
      r.stages ? `${ms(r.stages.model.p50)}/${ms(r.stages.model.p99)} · ${ms(r.stages.voice.p50)}/${ms(r.stages.voice.p99)} · ${ms(r.stages.send.p50)}/${ms(r.stages.send.p99)}` : "n/a",
      r.engine !== "pipeline" ? "n/a" : r.spoken
          ? `${ms(r.spoken.decisionToClear.p50)}/${ms(r.spoken.decisionToClear.p99)} · ${ms(r.spoken.decisionToLastAudio.p50)}/${ms(r.spoken.decisionToLastAudio.p99)} · ${ms(r.spoken.onsetToClear.p50)}/${ms(r.spoken.onsetToClear.p99)} (n=${r.spoken.onsetToClear.count})`
          : pair(r.bargeIn),
      r.cpuPerCall.toFixed(3),
      r.rssMb.toFixed(0),
      `${ms(r.serverLoopP99)} / ${r.servicesLoopP99 === null ? "n/a" : ms(r.servicesLoopP99)}`,
      r.servicesCpu === null ? "n/a" : r.servicesCpu.toFixed(0),
    ]),
  ),
);
console.log(
  "\nadded per turn: from the transcriber's final leaving the stand-in to the answer's first audio reaching the caller, less the time the model and the voice stand-ins held the turn's requests, as each measured it (end to end, every socket included).\n" +
    "in the server: the call record's stages less the nominal delays (a late stand-in timer counts here: see each run's line) — the model request (final → first token), the voice request (first token → first voice audio), the send (→ first audio to the phone).\n" +
    "barge-in stop: from the transcriber's first words during an answer to the clear at the caller.\n" +
    "loop p99: how late a 1 ms timer ran, p99, in the server and in the stand-ins' process; with the stand-ins' CPU it tells whether they, rather than the server, held a turn up.",
);
for (const r of rows.filter((row) => row.engine === "pipeline")) {
  if (r.spoken) {
    const stop = r.spoken.decisionToLastAudio.p99;
    console.log(
      `${r.calls} speaking calls: the voice stopped (the interrupted answer's last audio at the caller) ${ms(stop)} ms after the VAD's decision at p99 ` +
        `(aim ≤ ${AIM.bargeInP99}: ${stop <= AIM.bargeInP99 ? "held" : "NOT held"}); the clear ${ms(r.spoken.onsetToClear.p99)} ms after the speech's onset. Added per turn is not measured here (the VAD, not a stamped final, ends each turn).`,
    );
    continue;
  }
  console.log(
    `${r.calls} calls: added p99 ${ms(r.added.p99)} ms (aim < ${AIM.addedP99}: ${r.added.p99 < AIM.addedP99 ? "held" : "NOT held"}), barge-in stop p99 ${ms(r.bargeIn.p99)} ms (aim ≤ ${AIM.bargeInP99}: ${r.bargeIn.p99 <= AIM.bargeInP99 ? "held" : "NOT held"}).`,
  );
}
console.log(`load average at end ${loadavg().map((l) => l.toFixed(1)).join(" / ")}`);
