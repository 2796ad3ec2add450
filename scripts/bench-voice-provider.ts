/**
 * Child process of `npm run bench:voice`: the fake OpenAI Realtime GA server (tests/fakes), in
 * its own process so its work is not counted as the server's. Every connection hears one user
 * turn from the first 300 ms of caller audio, then streams the assistant's voice in 100 ms
 * deltas at real-time pace for the length of the run. It stamps each delta with its send time
 * and reads the stamp of each caller frame, so both directions are timed end to end.
 */
import { startFakeRealtime } from "../tests/fakes/fake-realtime.ts";
import type { FakeReplySpec } from "../tests/fakes/realtime-fake-script.ts";
import {
  ageOfFrame,
  DELTA_MS,
  nextMessage,
  send,
  stampFrame,
  summarize,
  within,
  type FrameAge,
  type ProviderMessage,
  type ProviderRequest,
} from "./bench-voice-shared.ts";

const { seconds } = await nextMessage<ProviderRequest, "start">(process, "start");

let appends = 0;
let deltas = 0;
const uplinkE2e: FrameAge[] = [];

const chunks = Math.ceil((seconds * 1000) / DELTA_MS);
// A word about every 300 ms, like real speech; the other deltas carry audio only.
const pieces = Array.from({ length: chunks }, (_, i) => (i % 3 === 0 ? "word " : ""));
const reply: FakeReplySpec = { say: pieces.join(""), pieces, pieceGapMs: DELTA_MS, audioMs: chunks * DELTA_MS };

const fake = await startFakeRealtime({
  apiKey: "sk-bench-voice",
  script: {
    userSays: ["Hello, I would like to hear a long answer."],
    replies: [reply],
    chunkMs: DELTA_MS,
    keepAudioEvents: false,
    beforeAudioDelta: (audio) => {
      deltas += 1;
      stampFrame(audio);
    },
    onClientEvent: (event) => {
      if (event["type"] !== "input_audio_buffer.append") return;
      appends += 1;
      // 16 base64 characters are the frame's first 12 bytes: enough for the stamp.
      const age = ageOfFrame(Buffer.from(String(event["audio"]).slice(0, 16), "base64"));
      if (age) uplinkE2e.push(age);
    },
  },
});

send(process, { type: "listening", baseUrl: fake.baseUrl, apiKey: fake.apiKey } satisfies ProviderMessage);

const window = await nextMessage<ProviderRequest, "report">(process, "report", 600_000);
send(process, {
  type: "report",
  appends,
  deltas,
  uplinkE2e: summarize(within(uplinkE2e, window)),
  connections: fake.connections.length,
} satisfies ProviderMessage);
await fake.close();
process.disconnect();
