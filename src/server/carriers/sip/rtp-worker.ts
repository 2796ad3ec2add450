/**
 * The media thread's side of rtp-thread.ts: it runs every call's RtpSession (sockets, the one
 * 20 ms clock, reordering, SRTP) and does nothing else, so its clock is late only when the
 * machine is. What the sessions heard since the clock's last pass is sent to the main thread after
 * each pass, in one message for all calls: at most 50 a second, where a message per loop turn
 * (nearly one per datagram) cost the main thread more than the calls' audio itself.
 */
import { parentPort } from "node:worker_threads";
import { packAudio, type FromMediaThread, type MediaCommand, type MediaEvent, type ToMediaThread } from "./rtp-thread.ts";
import { rtpClock } from "./rtp-clock.ts";
import { RtpSession } from "./rtp-session.ts";
import type { MediaPlan } from "./sdp.ts";

const port = parentPort!;
const sessions = new Map<number, RtpSession>();
let outbox: MediaEvent[] = [];
/** The audio of the pass's audio events, in their order (views: each datagram is a buffer of its own). */
let heardAudio: Uint8Array[] = [];
let heardBytes = 0;

function report(event: MediaEvent) {
  outbox.push(event);
}

function heard(id: number, payload: Uint8Array) {
  report([id, "audio", heardBytes, payload.length]);
  heardAudio.push(payload);
  heardBytes += payload.length;
}

// Every event comes while the clock runs (a session hears only once its media is agreed).
rtpClock.onPass(() => {
  if (outbox.length === 0) return;
  const events = outbox;
  const audio = packAudio(heardAudio);
  outbox = [];
  heardAudio = [];
  heardBytes = 0;
  port.postMessage({ op: "events", events, audio } satisfies FromMediaThread, [audio.buffer]);
});

// A Buffer crosses threads as a plain Uint8Array: the SRTP key is made a Buffer again.
const withBuffers = (plan: MediaPlan): MediaPlan => (plan.srtp ? { ...plan, srtp: { ...plan.srtp, remoteKey: Buffer.from(plan.srtp.remoteKey) } } : plan);

async function open(id: number, message: Extract<MediaCommand, { op: "open" }>) {
  try {
    const session = await RtpSession.open(message.options);
    sessions.set(id, session);
    session.on({
      audio: (payload) => heard(id, payload),
      digit: (digit) => report([id, "digit", digit]),
      played: (tag, bytes) => report([id, "played", tag, bytes]),
    });
    port.postMessage({ op: "opened", id, port: session.port, srtpKey: session.srtpKey } satisfies FromMediaThread);
  } catch (err) {
    port.postMessage({ op: "failed", id, message: err instanceof Error ? err.message : String(err) } satisfies FromMediaThread);
  }
}

port.on("message", ({ commands, audio }: ToMediaThread) => {
  const buffer = Buffer.from(audio.buffer, audio.byteOffset, audio.byteLength);
  for (const command of commands) run(command, buffer);
});

function run(message: MediaCommand, audio: Buffer) {
  if (message.op === "open") return void open(message.id, message);
  if (message.op === "clock") return port.postMessage({ op: "clock", passes: rtpClock.recentPasses() } satisfies FromMediaThread);
  const session = sessions.get(message.id);
  if (!session) return;
  switch (message.op) {
    case "configure":
      return session.configure(withBuffers(message.plan));
    case "play":
      return session.play(audio.subarray(message.at, message.at + message.bytes), message.tag);
    case "digit":
      return void session.sendDigit(message.digit);
    case "clear":
      return session.clear();
    case "watch":
      return session.onSilent(() => report([message.id, "silent"]));
    case "close":
      session.close();
      return void sessions.delete(message.id);
  }
}
