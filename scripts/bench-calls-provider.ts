/**
 * Child process of `npm run bench:calls`: the fake OpenAI Realtime GA server (tests/fakes) in
 * its own process. Every connection says the first message, then hears a caller turn every
 * `bargeInEveryMs` of caller audio (the caller streams without pause, so each turn interrupts
 * the answer to the previous one) and answers in 20 ms µ-law deltas at real-time pace. Each
 * delta is stamped and tagged (bench-calls-shared.ts); caller frames' stamps are read back. It
 * answers the embeddings API too, for `--ingest`, passing it to a process of its own.
 */
import { request } from "node:http";
import { startFakeRealtime, type FakeConnection } from "../tests/fakes/fake-realtime.ts";
import type { FakeReplySpec } from "../tests/fakes/realtime-fake-script.ts";
import { FRAME_BYTES, FRAME_MS, writeTag, type Cuts, type EmbeddingsMessage, type ProviderMessage, type ProviderRequest } from "./bench-calls-shared.ts";
import { child } from "./bench-process.ts";
import { ageOfFrame, nextMessage, send, stampFrame, summarize, within, type FrameAge } from "./bench-voice-shared.ts";

const { seconds, bargeInEveryMs } = await nextMessage<ProviderRequest, "start">(process, "start");

let appendedBytes = 0;
let deltas = 0;
const uplinkE2e: FrameAge[] = [];
const providerDelay: number[] = [];
const truncations: Cuts = {};
const numbers = new WeakMap<FakeConnection, number>();
const greetingAsked = new WeakMap<FakeConnection, number>();
let nextNumber = 0;
const numberOf = (connection: FakeConnection) => {
  let n = numbers.get(connection);
  if (n === undefined) numbers.set(connection, (n = nextNumber++));
  return n;
};
const itemNumber = (itemId: string) => Number(/(\d+)$/.exec(itemId)?.[1] ?? 0);

// An answer longer than the gap between turns, at real-time pace: always interrupted.
const chunks = Math.ceil((bargeInEveryMs * 2) / FRAME_MS);
const pieces = Array.from({ length: chunks }, (_, i) => (i % 15 === 0 ? "word " : ""));
const answer: FakeReplySpec = { say: pieces.join(""), pieces, pieceGapMs: FRAME_MS, audioMs: chunks * FRAME_MS };
const turns = Math.ceil((seconds * 1000) / bargeInEveryMs) + 2;

const fake = await startFakeRealtime({
  apiKey: "sk-bench-calls",
  script: {
    userSays: Array.from({ length: turns }, (_, i) => `Turn ${i}`),
    speechMs: bargeInEveryMs,
    replies: Array.from({ length: turns }, () => answer),
    chunkMs: FRAME_MS,
    keepAudioEvents: false,
    beforeAudioDelta: (audio, { connection, itemId, offsetMs }) => {
      deltas += 1;
      const asked = greetingAsked.get(connection);
      if (asked !== undefined) {
        providerDelay.push(performance.now() - asked);
        greetingAsked.delete(connection);
      }
      if (audio.length < 20) return;
      stampFrame(audio);
      writeTag(audio, { connection: numberOf(connection), item: itemNumber(itemId), offsetMs });
    },
    onClientEvent: (event, connection) => {
      switch (event["type"]) {
        case "input_audio_buffer.append": {
          const audio = String(event["audio"]);
          appendedBytes += (audio.length * 3) / 4 - (audio.endsWith("==") ? 2 : audio.endsWith("=") ? 1 : 0);
          const age = ageOfFrame(Buffer.from(audio.slice(0, 16), "base64"));
          if (age) uplinkE2e.push(age);
          return;
        }
        case "response.create":
          // The greeting: the provider's own delay runs from here to its first delta.
          if (!numbers.has(connection) && !greetingAsked.has(connection)) greetingAsked.set(connection, performance.now());
          return;
        case "conversation.item.truncate":
          truncations[`${numberOf(connection)}:${itemNumber(String(event["item_id"]))}`] = Number(event["audio_end_ms"]);
          return;
      }
    },
  },
});

// The embeddings API on the same base URL, for `--ingest` (knowledge documents ingesting during the
// calls): passed through to a process of its own (bench-calls-embeddings.ts), so its work does not
// hold up this process's stamping of the callers' frames.
const embeddings = child("bench-calls-embeddings.ts");
send(embeddings, { type: "start", apiKey: fake.apiKey } satisfies EmbeddingsMessage);
const { origin: embeddingsOrigin } = await nextMessage<EmbeddingsMessage, "listening">(embeddings, "listening");
const otherRest = fake.rest;
fake.rest = (req, res) => {
  if (!new URL(req.url ?? "/", "http://x").pathname.endsWith("/embeddings")) return otherRest ? otherRest(req, res) : void res.writeHead(404).end();
  const upstream = request(`${embeddingsOrigin}${req.url ?? "/"}`, { method: req.method, headers: req.headers }, (answer) => {
    res.writeHead(answer.statusCode ?? 502, answer.headers);
    answer.pipe(res);
  });
  upstream.on("error", () => res.destroy());
  req.pipe(upstream);
};

send(process, { type: "listening", baseUrl: fake.baseUrl, apiKey: fake.apiKey } satisfies ProviderMessage);

const window = await nextMessage<ProviderRequest, "report">(process, "report", 900_000);
send(process, {
  type: "report",
  appendedFrames: appendedBytes / FRAME_BYTES,
  deltas,
  uplinkE2e: summarize(within(uplinkE2e, window)),
  providerDelay: summarize(providerDelay),
  truncations,
  connections: fake.connections.length,
} satisfies ProviderMessage);
await fake.close();
embeddings.disconnect();
process.disconnect();
