/**
 * Child process of `npm run bench:pipeline`: the pipeline's three services in one process, each
 * speaking its real protocol (as the tests' stand-ins in tests/fakes do) with fixed, known delays,
 * so what the server adds can be told from what the services take:
 *  - Deepgram live (`/v1/listen`): connection k hears the caller's k-th utterance after `speechMs`
 *    of audio since its last final — an interim result (words: a barge-in when the assistant is
 *    speaking) — and the final with `speech_final` `finalMs` of audio later: "caller k turn n";
 *  - Chat Completions: the first token `firstTokenMs` after the request, the first sentence at
 *    once, the rest word by word; each sentence names the caller and turn it answers;
 *  - ElevenLabs (`/v1/text-to-speech/{voice}/stream`, `ulaw_8000`): the first audio
 *    `firstAudioMs` after the request, then 20 ms chunks faster than real time, each tagged with
 *    the caller, the turn and the offset (bench-calls-shared.ts) and stamped with the send time —
 *    but a turn's first chunk with the time its final was sent plus the time the model and the
 *    voice stand-ins held that turn's requests (each measured, from its body read to its first
 *    byte written), so the caller reads off it the turn's latency less the services' own.
 * It reports when each caller's speech was heard starting, for the barge-in stop time.
 */
import { createServer, type IncomingMessage } from "node:http";
import type { AddressInfo } from "node:net";
import { WebSocketServer } from "ws";
import { answerKeyCheck } from "../tests/fakes/key-check-route.ts";
import { tone } from "../tests/fakes/realtime-audio.ts";
import { mulawToPcm16 } from "../src/server/voice/audio.ts";
import { FRAME_MS, UNTAGGED, writeTag } from "./bench-calls-shared.ts";
import { watchEventLoop } from "./bench-process.ts";
import { nextMessage, send, stampFrame, summarize, type Summary } from "./bench-voice-shared.ts";

export interface ServiceDelays {
  speechMs: number;
  finalMs: number;
  firstTokenMs: number;
  firstAudioMs: number;
  /**
   * Speaking callers (bench:pipeline `--speak`): the transcriber listens to the audio itself — its
   * interim words `wordsAfterMs` after a caller's speech starts (later than the VAD's decision, so
   * the VAD's barge-in is the one measured), its final `finalMs` after the speech stops.
   */
  wordsAfterMs?: number;
}
export type ServicesRequest = { type: "start"; delays: ServiceDelays } | { type: "report" };
export type ServicesMessage =
  | { type: "listening"; baseUrl: string; apiKey: string }
  | {
      type: "report";
      connections: number;
      finals: number;
      chatRequests: number;
      speechRequests: number;
      speechCut: number;
      heardStarting: Record<number, number[]>;
      /** TCP connections the server opened to the stand-ins, the transcriber's sockets included (fewer: more reuse). */
      tcpConnections: number;
      /** This process's event-loop lateness p99 (ms): late stand-ins would add to the server's figures. */
      loopDelayP99: number;
      /** How much longer than nominal the model and the voice stand-ins held a request (ms, p50/p99): taken out of "added". */
      overshoot: { model: Summary; voice: Summary };
    };

const API_KEY = "bench-pipeline-key";
/** A speaking caller's frame with a sample this loud is speech; this long without one ends the speech. */
const LOUD = 1500;
const PAUSE_MS = 300;
const WORDS_PER_SENTENCE = 8;
const SENTENCES = 4;
/** How long a word of the stand-in voice lasts. */
const MS_PER_WORD = 100;

const { delays } = await nextMessage<ServicesRequest, "start">(process, "start");
const finalSentAt = new Map<string, bigint>();
/** How long the model stand-in held each turn's request (body read → first chunk written), ns, by "caller:turn". */
const chatHeld = new Map<string, bigint>();
/** What each stand-in's held time exceeded its nominal delay by (its own timer's lateness), ms. */
const overshoot: { model: number[]; voice: number[] } = { model: [], voice: [] };
const heardStarting: Record<number, number[]> = {};
let connections = 0;
let finals = 0;
let chatRequests = 0;
let speechRequests = 0;
let speechCut = 0;
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

const readJson = (req: IncomingMessage) =>
  new Promise<Record<string, unknown>>((resolve) => {
    const chunks: Buffer[] = [];
    req.on("data", (c: Buffer) => chunks.push(c));
    req.on("end", () => resolve(JSON.parse(Buffer.concat(chunks).toString() || "{}") as Record<string, unknown>));
  });

/** "caller k turn n" in a transcript or a reply: which caller and turn it is. */
const turnIn = (text: string) => {
  const m = /caller (\d+),? turn (\d+)/i.exec(text);
  return m ? { caller: Number(m[1]), turn: Number(m[2]) } : null;
};

const server = createServer((req, res) => {
  const url = new URL(req.url ?? "/", "http://x");
  const refusal = { error: "bad key" };
  if (answerKeyCheck(req, res, { path: "/v1/projects", accepted: req.headers.authorization === `Token ${API_KEY}`, refusal })) return;
  if (answerKeyCheck(req, res, { path: "/v1/models", accepted: req.headers.authorization === `Bearer ${API_KEY}` || req.headers["xi-api-key"] === API_KEY, refusal })) return;
  if (req.method === "POST" && url.pathname.endsWith("/chat/completions")) return void chat(req, res);
  if (req.method === "POST" && /^\/v1\/text-to-speech\/[^/]+\/stream$/.test(url.pathname)) return void speak(req, res);
  res.writeHead(404).end();
});

async function chat(req: IncomingMessage, res: import("node:http").ServerResponse): Promise<void> {
  const body = (await readJson(req)) as { model: string; messages: Array<{ role: string; content: unknown }> };
  chatRequests += 1;
  const lastUser = [...body.messages].reverse().find((m) => m.role === "user");
  const asked = turnIn(typeof lastUser?.content === "string" ? lastUser.content : JSON.stringify(lastUser?.content ?? ""));
  const heldFrom = process.hrtime.bigint();
  await sleep(delays.firstTokenMs);
  const held = process.hrtime.bigint() - heldFrom;
  overshoot.model.push(Number(held) / 1e6 - delays.firstTokenMs);
  if (asked) chatHeld.set(`${asked.caller}:${asked.turn}`, held);
  res.writeHead(200, { "content-type": "text/event-stream", "cache-control": "no-cache" });
  const chunk = (delta: Record<string, unknown>, finish: string | null = null) =>
    res.write(`data: ${JSON.stringify({ id: "chatcmpl-bench", object: "chat.completion.chunk", created: 0, model: body.model, choices: [{ index: 0, delta, finish_reason: finish }] })}\n\n`);
  const who = asked ? `Caller ${asked.caller}, turn ${asked.turn}` : "Caller unknown, turn 0";
  for (let s = 0; s < SENTENCES; s++) {
    const sentence = `${who}, part ${s} ${"and more ".repeat(WORDS_PER_SENTENCE / 2 - 3)}here. `;
    if (s === 0) chunk({ role: "assistant", content: sentence });
    else
      for (const word of sentence.match(/\S+\s*/g) ?? []) {
        await sleep(5);
        if (res.destroyed) return;
        chunk({ content: word });
      }
  }
  chunk({}, "stop");
  res.end("data: [DONE]\n\n");
}

async function speak(req: IncomingMessage, res: import("node:http").ServerResponse): Promise<void> {
  const body = (await readJson(req)) as { text: string };
  speechRequests += 1;
  const turn = turnIn(body.text);
  const part = Number(/part (\d+)/.exec(body.text)?.[1] ?? 0);
  const caller = turn?.caller ?? UNTAGGED;
  const item = turn ? turn.turn * 100 + part : 0;
  const key = turn ? `${turn.caller}:${turn.turn}` : "";
  const heldFrom = process.hrtime.bigint();
  await sleep(delays.firstAudioMs);
  const held = process.hrtime.bigint() - heldFrom;
  overshoot.voice.push(Number(held) / 1e6 - delays.firstAudioMs);
  // The stamp is moved on by the time both stand-ins held this turn, as measured (not their nominal
  // delays: a late stand-in timer is theirs, not the server's), so the chunk's age is ours alone.
  const modelHeld = chatHeld.get(key);
  const finalAt = part === 0 && modelHeld !== undefined ? finalSentAt.get(key) : undefined;
  const serviceEnd = finalAt === undefined ? undefined : finalAt + modelHeld! + held;
  res.writeHead(200, { "content-type": "audio/basic" });
  const totalMs = body.text.split(/\s+/).length * MS_PER_WORD;
  let gone = false;
  res.on("close", () => {
    if (!res.writableEnded) {
      gone = true;
      speechCut += 1;
    }
  });
  // Twice real time, in Twilio-sized chunks: the server's pacing, not ours, sets what the caller hears.
  for (let offsetMs = 0; offsetMs < totalMs && !gone; offsetMs += FRAME_MS) {
    const audio = tone("audio/pcmu", FRAME_MS, offsetMs * 8);
    stampFrame(audio);
    if (offsetMs === 0 && serviceEnd !== undefined) audio.writeBigInt64LE(serviceEnd, 0);
    writeTag(audio, { connection: caller, item, offsetMs });
    res.write(audio);
    if (offsetMs % 100 === 80) await sleep(50);
  }
  if (!gone) res.end();
}

let tcpConnections = 0;
server.on("connection", () => (tcpConnections += 1));

const wss = new WebSocketServer({ noServer: true });
server.on("upgrade", (req, socket, head) => {
  if (!req.url?.startsWith("/v1/listen") || req.headers.authorization !== `Token ${API_KEY}`) return void socket.end("HTTP/1.1 401 Unauthorized\r\nContent-Length: 0\r\n\r\n");
  const query = new URL(req.url, "http://x").searchParams;
  const bytesPerMs = query.get("encoding") === "mulaw" ? Number(query.get("sample_rate") ?? 8000) / 1000 : (Number(query.get("sample_rate") ?? 16000) / 1000) * 2;
  wss.handleUpgrade(req, socket, head, (ws) => {
    const caller = connections++;
    let audioMs = 0;
    let sinceFinal = 0;
    let turn = 0;
    let hearing = false;
    const results = (text: string, isFinal: boolean) =>
      ws.send(JSON.stringify({ type: "Results", channel_index: [0, 1], start: (audioMs - sinceFinal) / 1000, duration: sinceFinal / 1000, is_final: isFinal, speech_final: isFinal, channel: { alternatives: [{ transcript: text, confidence: 0.98, words: [] }] }, metadata: { request_id: "bench" } }));
    // Speaking callers: speech heard by its loudness; words once it has lasted `wordsAfterMs`, the
    // final `finalMs` after it stops. No final's time is kept: the VAD, not the final, ends these turns.
    let speechMs = 0;
    let quietMs = 0;
    const listen = (audio: Buffer, ms: number) => {
      const pcm = mulawToPcm16(audio);
      let loud = false;
      for (let i = 0; i < pcm.length && !loud; i += 1) loud = Math.abs(pcm[i]!) > LOUD;
      if (loud) {
        if (speechMs === 0) sinceFinal = ms;
        speechMs += ms;
        quietMs = 0;
        if (!hearing && speechMs >= delays.wordsAfterMs!) {
          hearing = true;
          turn += 1;
          (heardStarting[caller] ??= []).push(Number(process.hrtime.bigint()));
          results(`caller ${caller} turn ${turn}`, false);
        }
        return;
      }
      if (speechMs === 0) return;
      quietMs += ms;
      if (quietMs < PAUSE_MS + delays.finalMs) return;
      if (hearing) {
        finals += 1;
        results(`caller ${caller} turn ${turn}`, true);
      }
      hearing = false;
      speechMs = 0;
      sinceFinal = 0;
    };
    ws.on("message", (data, isBinary) => {
      if (!isBinary) {
        if ((JSON.parse(data.toString()) as { type?: string }).type === "CloseStream") {
          ws.send(JSON.stringify({ type: "Metadata", request_id: "bench", duration: audioMs / 1000, channels: 1 }));
          ws.close(1000);
        }
        return;
      }
      const ms = (data as Buffer).length / bytesPerMs;
      audioMs += ms;
      sinceFinal += ms;
      if (delays.wordsAfterMs !== undefined) return void listen(data as Buffer, ms);
      if (!hearing && sinceFinal >= delays.speechMs) {
        hearing = true;
        turn += 1;
        (heardStarting[caller] ??= []).push(Number(process.hrtime.bigint()));
        results("caller", false);
      } else if (hearing && sinceFinal >= delays.speechMs + delays.finalMs) {
        hearing = false;
        sinceFinal = 0;
        finals += 1;
        finalSentAt.set(`${caller}:${turn}`, process.hrtime.bigint());
        results(`caller ${caller} turn ${turn}`, true);
      }
    });
  });
});

await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
const loop = watchEventLoop();
send(process, { type: "listening", baseUrl: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, apiKey: API_KEY } satisfies ServicesMessage);
await nextMessage<ServicesRequest, "report">(process, "report", 900_000);
send(process, { type: "report", connections, finals, chatRequests, speechRequests, speechCut, heardStarting, tcpConnections, loopDelayP99: loop.stop().delayP99, overshoot: { model: summarize(overshoot.model), voice: summarize(overshoot.voice) } } satisfies ServicesMessage);
for (const ws of wss.clients) ws.terminate();
server.close();
process.disconnect();
