/**
 * Child process of `npm run bench:analysis`: the fake OpenAI behind one base URL — Realtime for
 * the calls in progress (bench-voice's script: one caller turn, then the assistant's voice in
 * 100 ms deltas for the run) and the Responses API answering each analysis after `delayMs` —
 * in its own process, so its work is not counted as the server's.
 */
import { startFakeRealtime } from "../tests/fakes/fake-realtime.ts";
import { startFakeResponses } from "../tests/fakes/fake-responses.ts";
import type { FakeReplySpec } from "../tests/fakes/realtime-fake-script.ts";
import { serveUntilReport } from "./bench-responses-provider.ts";
import { DELTA_MS, nextMessage, stampFrame } from "./bench-voice-shared.ts";

type Request = { type: "start"; seconds: number; delayMs: number } | { type: "report" };

const { seconds, delayMs } = await nextMessage<Request, "start">(process, "start");
const chunks = Math.ceil((seconds * 1000) / DELTA_MS);
const pieces = Array.from({ length: chunks }, (_, i) => (i % 3 === 0 ? "word " : ""));
const reply: FakeReplySpec = { say: pieces.join(""), pieces, pieceGapMs: DELTA_MS, audioMs: chunks * DELTA_MS };

const realtime = await startFakeRealtime({
  apiKey: "sk-bench-analysis",
  // Each delta stamped with its send time: the callers time the assistant's audio end to end.
  script: { userSays: ["Hello, I would like to hear a long answer."], replies: [reply], chunkMs: DELTA_MS, keepAudioEvents: false, beforeAudioDelta: stampFrame },
});
const responses = await startFakeResponses({ apiKey: realtime.apiKey, serveOn: realtime, delayMs });
responses.script = () => ({
  kind: "answer",
  json: { summary: "The caller asked about order 42.", data: { order_id: "42" }, success: { reason: "The status was given.", value: "pass" } },
});

await serveUntilReport(realtime, responses, 900_000);
