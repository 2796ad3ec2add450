/**
 * Child process of `npm run bench:live`: supervisors, each on WS /api/live/calls/:callId of one
 * call with `listen` on, as the live board's page would be. Every binary frame is the call mixed
 * (PCM16 8 kHz); the caller's send stamp is read back from it (bench-calls-shared.ts
 * `stampCallerFrame`): both copies must read the same — a frame where the assistant's tagged
 * bytes spoiled one is left out of the delay (not of the frame count).
 */
import WebSocket from "ws";
import { clockUs, STAMP_COPIES, type SupervisorsMessage, type SupervisorsRequest } from "./bench-calls-shared.ts";
import { nextMessage, send, summarize, within, type FrameAge } from "./bench-voice-shared.ts";

const ages: FrameAge[] = [];
let frames = 0;
let bytes = 0;
const MAX_AGE_US = 10e6;

/** The 32-bit stamp of one copy, or null when a sample is too weak to be sure of its sign (overlapped). */
function copyAt(frame: Buffer, at: number): number | null {
  if (frame.length < (at + 32) * 2) return null;
  let value = 0;
  for (let bit = 0; bit < 32; bit += 1) {
    const sample = frame.readInt16LE((at + bit) * 2);
    if (Math.abs(sample) < 16_000) return null;
    if (sample > 0) value |= 1 << bit;
  }
  return value >>> 0;
}

/** The caller's send time (µs clock) a mixed frame carries, when both copies read the same. */
function stampOf(frame: Buffer): number | null {
  const [first, second] = STAMP_COPIES.map((at) => copyAt(frame, at));
  return first !== null && first === second ? first! : null;
}

async function listen(base: string, cookie: string, callId: string): Promise<void> {
  const ws = new WebSocket(`${base}/api/live/calls/${callId}`, { headers: { cookie } });
  ws.on("error", () => {});
  ws.on("message", (data, isBinary) => {
    if (!isBinary) return;
    const frame = data as Buffer;
    frames += 1;
    bytes += frame.length;
    const stamp = stampOf(frame);
    if (stamp === null) return;
    const ageUs = (clockUs() - stamp + 2 ** 32) % 2 ** 32;
    // The window is in monotonic ns: the frame's own arrival time stands for its stamp's.
    if (ageUs < MAX_AGE_US) ages.push({ stampedAt: Number(process.hrtime.bigint()), ageMs: ageUs / 1000 });
  });
  await new Promise<void>((resolve, reject) => {
    ws.once("open", () => resolve());
    ws.once("error", reject);
  });
  ws.send(JSON.stringify({ type: "listen", on: true }));
}

const start = await nextMessage<SupervisorsRequest, "start">(process, "start");
let failed = 0;
let firstFailure: string | null = null;
await Promise.all(
  start.callIds.map((callId) =>
    listen(start.base, start.cookie, callId).catch((err: unknown) => {
      failed += 1;
      firstFailure ??= String(err);
    }),
  ),
);
send(process, { type: "listening", listeners: start.callIds.length - failed, failed, firstFailure } satisfies SupervisorsMessage);
const window = await nextMessage<SupervisorsRequest, "end">(process, "end", 300_000);
const delays = within(ages, window);
send(process, { type: "report", frames, stamped: delays.length, bytes, delay: summarize(delays) } satisfies SupervisorsMessage);
process.disconnect();
process.exit(0);
