/**
 * Child process of `npm run bench:calls`: N simulated phone calls speaking Twilio's side
 * (signed voice webhook, media stream with `connected`/`start`/20 ms µ-law `media`, marks
 * echoed when their audio would have finished playing, `clear` honoured, `stop`). Lighter
 * than tests/fakes/twilio-caller.ts: one timer drives every call's frames and mark echoes.
 */
import { randomBytes } from "node:crypto";
import WebSocket from "ws";
import {
  BYTES_PER_MS,
  FRAME_BYTES,
  FRAME_MS,
  readTag,
  stampCallerFrame,
  type CallersMessage,
  type CallersRequest,
  type CallerSpeech,
  type CallerTarget,
  type Cuts,
  type SpokenBargeIn,
} from "./bench-calls-shared.ts";
import { dialTwilioStream, hangUpStream, Refused } from "./bench-twilio-dial.ts";
import { ageOfFrame, nextMessage, send, summarize, within, type FrameAge } from "./bench-voice-shared.ts";

interface Chunk {
  key: string | null;
  offsetMs: number;
  ms: number;
  endsAt: number;
}

const downlink: FrameAge[] = [];
const webhookToFirstAudio: number[] = [];
const streamToFirstAudio: number[] = [];
const heard: Cuts = {};
/** Each tagged item's first chunk: its age on arrival, ms (bench:pipeline stamps it with its turn's start). */
const itemStarts: Record<string, number> = {};
/** When a clear arrived (monotonic ns), by the item the caller was hearing. */
const clearedAt: Record<string, number> = {};
let framesSent = 0;
let framesReceived = 0;
let marksEchoed = 0;
let clears = 0;
let closedNormally = 0;
const spokenBargeIns: SpokenBargeIn[] = [];

/** A speaking caller's cycle, in 20 ms frames: the clip, then silence. */
class SpeechCycle {
  readonly frames: Buffer[];
  constructor(speech: CallerSpeech) {
    const clip = Buffer.from(speech.clip, "base64");
    const clipFrames = Math.ceil(clip.length / FRAME_BYTES);
    const silence = Buffer.alloc(FRAME_BYTES, 0xff);
    this.frames = Array.from({ length: clipFrames + Math.round(speech.silenceMs / FRAME_MS) }, (_, i) => {
      if (i >= clipFrames) return silence;
      const frame = Buffer.alloc(FRAME_BYTES, 0xff);
      clip.copy(frame, 0, i * FRAME_BYTES, Math.min(clip.length, (i + 1) * FRAME_BYTES));
      return frame;
    });
  }
}

/** One utterance of a speaking caller, while it may still be answered by a clear. */
interface Utterance {
  /** When its first frame was sent (monotonic ns), and where it starts in the call's audio (ms). */
  sentAt: number;
  clipAtMs: number;
  clearedAt: number | null;
  /** The interrupted answer (`${connection}:${turn}`), and when its last audio arrived. */
  answer: string | null;
  lastAudioAt: number;
}

class BenchCall {
  ws: WebSocket | null = null;
  readonly callSid = `CA${randomBytes(16).toString("hex")}`;
  readonly streamSid = `MZ${randomBytes(16).toString("hex")}`;
  private dialedAt = 0;
  private firstAudio = false;
  private queue: Chunk[] = [];
  private lastPlayed: Chunk | null = null;
  private playheadEnd = 0;
  private marks: Array<{ name: string; dueAt: number }> = [];
  private framesDue = 0;
  private startedAt = 0;
  private utterance: Utterance | null = null;
  closed = false;

  constructor(
    private readonly target: CallerTarget,
    private readonly speech: SpeechCycle | null = null,
    /** Where in the speech cycle this caller starts (frames). */
    private readonly phase = 0,
  ) {}

  async dial(): Promise<void> {
    this.dialedAt = performance.now();
    this.ws = await dialTwilioStream(this.target, this, (ws) => {
      ws.on("message", (data) => this.onMessage(data.toString()));
      ws.on("close", (code) => {
        this.closed = true;
        if (code === 1000 || code === 1005) closedNormally += 1;
      });
    });
    // The caller talks from the first moment (before the provider is ready: nothing may be lost).
    this.startedAt = performance.now();
  }

  /** Frames due since the start, and mark echoes due; called by the shared timer. */
  tick(now: number, until: number): void {
    if (this.closed || !this.ws) return;
    const due = Math.floor((Math.min(now, until) - this.startedAt) / FRAME_MS);
    while (this.framesDue < due) {
      const frame = this.speech ? this.spoken(this.framesDue) : Buffer.alloc(FRAME_BYTES, 0xff);
      if (!this.speech) stampCallerFrame(frame);
      this.framesDue += 1;
      this.ws.send(
        `{"event":"media","sequenceNumber":"${this.framesDue + 1}","streamSid":"${this.streamSid}","media":{"track":"inbound","chunk":"${this.framesDue}","timestamp":"${this.framesDue * FRAME_MS}","payload":"${frame.toString("base64")}"}}`,
      );
      framesSent += 1;
    }
    while (this.marks[0] && this.marks[0].dueAt <= now) this.echo(this.marks.shift()!.name);
  }

  /** A speaking caller's frame `n` (of the call); the clip's first frame opens an utterance. */
  private spoken(n: number): Buffer {
    const cycle = this.speech!;
    const at = (n + this.phase) % cycle.frames.length;
    if (at === 0) {
      this.settleUtterance();
      this.utterance = { sentAt: Number(process.hrtime.bigint()), clipAtMs: n * FRAME_MS, clearedAt: null, answer: null, lastAudioAt: 0 };
    }
    return cycle.frames[at]!;
  }

  /** The utterance's barge-in, if a clear answered it. */
  settleUtterance(): void {
    const u = this.utterance;
    this.utterance = null;
    if (u?.clearedAt == null) return;
    spokenBargeIns.push({ clearMs: (u.clearedAt - u.sentAt) / 1e6, lastAudioMs: (Math.max(u.clearedAt, u.lastAudioAt) - u.sentAt) / 1e6, clipAtMs: u.clipAtMs });
  }

  private echo(name: string): void {
    marksEchoed += 1;
    this.ws?.send(`{"event":"mark","streamSid":"${this.streamSid}","mark":{"name":"${name}"}}`);
  }

  private onMessage(text: string): void {
    const now = performance.now();
    const message = JSON.parse(text) as { event: string; media?: { payload: string }; mark?: { name: string } };
    if (message.event === "media") {
      const audio = Buffer.from(message.media!.payload, "base64");
      framesReceived += 1;
      if (!this.firstAudio) {
        this.firstAudio = true;
        webhookToFirstAudio.push(now - this.dialedAt);
        streamToFirstAudio.push(now - this.startedAt);
      }
      const age = ageOfFrame(audio);
      if (age) downlink.push(age);
      const tag = readTag(audio);
      if (tag?.offsetMs === 0 && age) itemStarts[`${tag.connection}:${tag.item}`] = age.ageMs;
      // Audio of an answer already cleared: the caller hears it (the voice had not stopped yet).
      const u = this.utterance;
      if (u?.answer && tag && `${tag.connection}:${Math.floor(tag.item / 100)}` === u.answer) u.lastAudioAt = Number(process.hrtime.bigint());
      while (this.queue[0] && this.queue[0].endsAt <= now) this.lastPlayed = this.queue.shift()!;
      const ms = audio.length / BYTES_PER_MS;
      this.playheadEnd = Math.max(now, this.playheadEnd) + ms;
      this.queue.push({ key: tag ? `${tag.connection}:${tag.item}` : null, offsetMs: tag?.offsetMs ?? 0, ms, endsAt: this.playheadEnd });
    } else if (message.event === "mark") {
      this.marks.push({ name: message.mark!.name, dueAt: this.playheadEnd });
    } else if (message.event === "clear") {
      clears += 1;
      // What the caller was hearing when the clear took effect: that item, that far in.
      while (this.queue[0] && this.queue[0].endsAt <= now) this.lastPlayed = this.queue.shift()!;
      const playing = this.queue[0];
      const key = playing?.key && now >= playing.endsAt - playing.ms ? playing.key : this.lastPlayed?.key;
      if (playing?.key && now >= playing.endsAt - playing.ms) heard[playing.key] = playing.offsetMs + (now - (playing.endsAt - playing.ms));
      else if (this.lastPlayed?.key) heard[this.lastPlayed.key] = this.lastPlayed.offsetMs + this.lastPlayed.ms;
      if (key) clearedAt[key] = Number(process.hrtime.bigint());
      const u = this.utterance;
      if (u && u.clearedAt === null) {
        u.clearedAt = Number(process.hrtime.bigint());
        const [connection, item] = (key ?? "").split(":");
        u.answer = key ? `${connection}:${Math.floor(Number(item) / 100)}` : null;
      }
      this.queue = [];
      this.lastPlayed = null;
      this.playheadEnd = now;
      // Twilio echoes the marks of the discarded audio at once.
      for (const mark of this.marks.splice(0)) this.echo(mark.name);
    }
  }

  hangUp(): void {
    if (!this.ws || this.closed) return;
    hangUpStream(this.ws, this);
  }
}

const start = await nextMessage<CallersRequest, "start">(process, "start");
const cycle = start.speech ? new SpeechCycle(start.speech) : null;
// Speaking callers start at random points of their cycle, as real callers would not speak in step.
const calls = Array.from({ length: start.calls }, () => new BenchCall(start.target, cycle, cycle ? Math.floor(Math.random() * cycle.frames.length) : 0));
let failed = 0;
let refused = 0;
let firstFailure: string | null = null;
// Dialled in batches, like calls arriving over a second or two.
for (let i = 0; i < calls.length; i += 50) {
  await Promise.all(
    calls.slice(i, i + 50).map((call) =>
      call.dial().catch((err: unknown) => {
        call.closed = true;
        if (err instanceof Refused) {
          refused += 1;
          return;
        }
        failed += 1;
        firstFailure ??= String(err);
      }),
    ),
  );
}
const until = performance.now() + start.seconds * 1000;
const timer = setInterval(() => {
  const now = performance.now();
  for (const call of calls) call.tick(now, until);
}, 5);
send(process, { type: "streaming", connected: calls.length - failed - refused, failed, refused, firstFailure } satisfies CallersMessage);
await new Promise((resolve) => setTimeout(resolve, Math.max(0, until - performance.now()) + 50));
send(process, { type: "streamed" } satisfies CallersMessage);

const window = await nextMessage<CallersRequest, "end">(process, "end");
clearInterval(timer);
for (const call of calls) {
  call.settleUtterance();
  call.hangUp();
}
const deadline = Date.now() + 60_000;
while (calls.some((c) => !c.closed) && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 50));
send(process, {
  type: "report",
  framesSent,
  framesReceived,
  marksEchoed,
  clears,
  downlinkE2e: summarize(within(downlink, window)),
  webhookToFirstAudio: summarize(webhookToFirstAudio),
  streamToFirstAudio: summarize(streamToFirstAudio),
  heard,
  itemStarts,
  clearedAt,
  spokenBargeIns,
  closedNormally,
} satisfies CallersMessage);
process.disconnect();
