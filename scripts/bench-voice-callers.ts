/**
 * Child process of `npm run bench:voice`: N browsers speaking the live-socket protocol over
 * real `ws` sockets (the session cookie on the upgrade, as a browser sends it). Each streams
 * 4096-sample PCM16 frames at real-time pace, every frame stamped with its send time; each
 * frame of assistant audio received is timed against the fake provider's stamp.
 */
import WebSocket from "ws";
import { tone } from "../tests/fakes/realtime-audio.ts";
import {
  ageOfFrame,
  FRAME_BYTES,
  FRAME_MS,
  nextMessage,
  send,
  stampFrame,
  summarize,
  within,
  type CallersMessage,
  type FrameAge,
  type CallersRequest,
} from "./bench-voice-shared.ts";

const CONNECT_CONCURRENCY = 50;
const CONNECT_TIMEOUT_MS = 60_000;
const TICK_MS = 5;

interface Caller {
  ws: WebSocket;
  connected: boolean;
  /** The assistant's answer has been received whole ("Assistant finished responding"). */
  answered: boolean;
  ended: boolean;
  closed: { code: number; reason: string } | null;
  nextFrameAt: number;
  failure: string | null;
}

const { urls, cookie, seconds } = await nextMessage<CallersRequest, "start">(process, "start");
const voice = tone("audio/pcm", FRAME_MS + 1).subarray(0, FRAME_BYTES);
const downlinkE2e: FrameAge[] = [];
const errors: string[] = [];
let framesSent = 0;
let framesReceived = 0;

function open(url: string): Promise<Caller> {
  return new Promise((resolve) => {
    const ws = new WebSocket(url, { headers: { cookie }, perMessageDeflate: false });
    const caller: Caller = { ws, connected: false, answered: false, ended: false, closed: null, nextFrameAt: 0, failure: null };
    const timer = setTimeout(() => {
      caller.failure ??= "timed out waiting for Connected to ...";
      resolve(caller);
    }, CONNECT_TIMEOUT_MS);
    ws.on("message", (data: Buffer, isBinary) => {
      if (isBinary) {
        framesReceived += 1;
        const age = ageOfFrame(data);
        if (age) downlinkE2e.push(age);
        return;
      }
      const message = JSON.parse(data.toString()) as { type: string; text?: string; message?: string };
      if (message.type === "status" && message.text?.startsWith("Connected to")) {
        caller.connected = true;
        clearTimeout(timer);
        resolve(caller);
      } else if (message.type === "status" && message.text === "Assistant finished responding") {
        caller.answered = true;
      } else if (message.type === "error" && errors.length < 20) {
        errors.push(message.message ?? "error");
      } else if (message.type === "ended") {
        caller.ended = true;
      }
    });
    ws.on("close", (code, reason) => {
      caller.closed = { code, reason: reason.toString() };
      caller.failure ??= caller.connected ? null : `closed ${code} ${reason.toString()}`;
      clearTimeout(timer);
      resolve(caller);
    });
    ws.on("error", (err) => {
      caller.failure ??= err.message;
    });
  });
}

// Connect in waves, as many browsers starting calls within a few seconds would.
const callers: Caller[] = [];
for (let at = 0; at < urls.length; at += CONNECT_CONCURRENCY) {
  callers.push(...(await Promise.all(urls.slice(at, at + CONNECT_CONCURRENCY).map(open))));
}
const live = callers.filter((c) => c.connected);
send(process, {
  type: "connected",
  connected: live.length,
  failed: callers.length - live.length,
  firstFailure: callers.find((c) => c.failure)?.failure ?? null,
} satisfies CallersMessage);

await nextMessage<CallersRequest, "stream">(process, "stream");
// Spread the calls' frame clocks over one frame period, like independent microphones.
const started = performance.now();
live.forEach((caller, i) => (caller.nextFrameAt = started + (FRAME_MS * i) / live.length));
const stopAt = started + seconds * 1000;
await new Promise<void>((resolve) => {
  const timer = setInterval(() => {
    const now = performance.now();
    for (const caller of live) {
      while (caller.nextFrameAt <= now && caller.nextFrameAt < stopAt) {
        if (caller.ws.readyState !== WebSocket.OPEN) break;
        const frame = Buffer.allocUnsafe(FRAME_BYTES);
        voice.copy(frame);
        stampFrame(frame);
        caller.ws.send(frame, { binary: true });
        framesSent += 1;
        caller.nextFrameAt += FRAME_MS;
      }
    }
    if (now >= stopAt) {
      clearInterval(timer);
      resolve();
    }
  }, TICK_MS);
});
send(process, { type: "streamed" } satisfies CallersMessage);

const window = await nextMessage<CallersRequest, "end">(process, "end");
// Hang up only once each answer has arrived whole: audio still on its way would count as dropped.
const drainUntil = performance.now() + 30_000;
while (live.some((c) => !c.answered && !c.closed) && performance.now() < drainUntil) await new Promise((resolve) => setTimeout(resolve, 50));
await Promise.all(
  live.map(
    (caller) =>
      new Promise<void>((resolve) => {
        if (caller.closed) return resolve();
        caller.ws.once("close", () => resolve());
        caller.ws.send(JSON.stringify({ type: "end" }));
        setTimeout(resolve, 60_000).unref();
      }),
  ),
);
send(process, {
  type: "report",
  framesSent,
  framesReceived,
  downlinkE2e: summarize(within(downlinkE2e, window)),
  ended: live.filter((c) => c.ended).length,
  answered: live.filter((c) => c.answered).length,
  closedNormally: live.filter((c) => c.closed?.code === 1000).length,
  errors,
} satisfies CallersMessage);
for (const caller of callers) caller.ws.terminate();
process.disconnect();
