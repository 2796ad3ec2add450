/**
 * Child process of `npm run bench:webhooks`: simulated phone calls speaking Twilio's side (signed
 * voice webhook, media stream, 20 ms µ-law frames, marks echoed when their audio would have
 * played, `clear` honoured, `stop`), in two kinds: `steady` calls that talk until told to stop
 * (the phone load whose figures are compared), and short calls placed at a fixed rate that each
 * hang up after a few seconds — each one's end is a real `call.ended` event in the server.
 */
import { randomBytes } from "node:crypto";
import WebSocket from "ws";
import { BYTES_PER_MS, FRAME_BYTES, FRAME_MS, type CallerTarget } from "./bench-calls-shared.ts";
import { dialTwilioStream, hangUpStream, Refused } from "./bench-twilio-dial.ts";
import { nextMessage, send } from "./bench-voice-shared.ts";
import type { WebhookCallersMessage, WebhookCallersRequest } from "./bench-webhooks-shared.ts";

const SILENCE = Buffer.alloc(FRAME_BYTES, 0xff).toString("base64");

class PhoneCall {
  private ws: WebSocket | null = null;
  readonly callSid = `CA${randomBytes(16).toString("hex")}`;
  readonly streamSid = `MZ${randomBytes(16).toString("hex")}`;
  private startedAt = 0;
  private framesSent = 0;
  private playheadEnd = 0;
  private marks: Array<{ name: string; dueAt: number }> = [];
  closed = false;
  /** Resolves once the server has closed the stream (or it failed). */
  readonly ended: Promise<void>;
  private onEnded!: () => void;

  constructor(private readonly target: CallerTarget) {
    this.ended = new Promise((resolve) => (this.onEnded = resolve));
  }

  async dial(): Promise<void> {
    this.ws = await dialTwilioStream(this.target, this, (ws) => {
      ws.on("message", (data) => this.onMessage(data.toString()));
      ws.on("close", () => {
        this.closed = true;
        this.onEnded();
      });
    });
    this.startedAt = performance.now();
  }

  /** The frames due since the start and the mark echoes due; called by the shared timer. */
  tick(now: number): void {
    if (this.closed || !this.ws) return;
    const due = Math.floor((now - this.startedAt) / FRAME_MS);
    while (this.framesSent < due) {
      this.framesSent += 1;
      this.ws.send(
        `{"event":"media","sequenceNumber":"${this.framesSent + 1}","streamSid":"${this.streamSid}","media":{"track":"inbound","chunk":"${this.framesSent}","timestamp":"${this.framesSent * FRAME_MS}","payload":"${SILENCE}"}}`,
      );
    }
    while (this.marks[0] && this.marks[0].dueAt <= now) this.echo(this.marks.shift()!.name);
  }

  private echo(name: string): void {
    this.ws?.send(`{"event":"mark","streamSid":"${this.streamSid}","mark":{"name":"${name}"}}`);
  }

  private onMessage(text: string): void {
    const now = performance.now();
    const message = JSON.parse(text) as { event: string; media?: { payload: string }; mark?: { name: string } };
    if (message.event === "media") {
      this.playheadEnd = Math.max(now, this.playheadEnd) + (message.media!.payload.length * 3) / 4 / BYTES_PER_MS;
    } else if (message.event === "mark") {
      this.marks.push({ name: message.mark!.name, dueAt: this.playheadEnd });
    } else if (message.event === "clear") {
      this.playheadEnd = now;
      for (const mark of this.marks.splice(0)) this.echo(mark.name);
    }
  }

  hangUp(): void {
    if (!this.ws || this.closed) return;
    hangUpStream(this.ws, this);
  }
}

const live = new Set<PhoneCall>();
const timer = setInterval(() => {
  const now = performance.now();
  for (const call of live) call.tick(now);
}, 5);

let firstFailure: string | null = null;
/** Dials; answers whether the call streams (a refused or failed one is counted by the caller). */
async function place(call: PhoneCall): Promise<"streaming" | "refused" | "failed"> {
  try {
    await call.dial();
    live.add(call);
    void call.ended.then(() => live.delete(call));
    return "streaming";
  } catch (err) {
    if (err instanceof Refused) return "refused";
    firstFailure ??= String(err);
    return "failed";
  }
}

const start = await nextMessage<WebhookCallersRequest, "start">(process, "start");
const steady = Array.from({ length: start.steady }, () => new PhoneCall(start.target));
const placed = await Promise.all(steady.map(place));
send(process, { type: "steady", connected: placed.filter((p) => p === "streaming").length, firstFailure } satisfies WebhookCallersMessage);

const churn = await nextMessage<WebhookCallersRequest, "churn">(process, "churn");
let ended = 0;
let failed = 0;
let refused = 0;
const calls: Promise<void>[] = [];
const begun = performance.now();
for (let i = 0; i < churn.events; i += 1) {
  // On a fixed schedule, whatever the server's pace: a late server sees calls pile up, as it would.
  const wait = begun + (i * 1000) / churn.rate - performance.now();
  if (wait > 0) await new Promise((resolve) => setTimeout(resolve, wait));
  const call = new PhoneCall(start.target);
  calls.push(
    place(call).then(async (outcome) => {
      if (outcome === "refused") refused += 1;
      if (outcome === "failed") failed += 1;
      if (outcome !== "streaming") return;
      await new Promise((resolve) => setTimeout(resolve, churn.callSeconds * 1000));
      call.hangUp();
      await call.ended;
      ended += 1;
    }),
  );
}
await Promise.all(calls);
send(process, { type: "churned", ended, failed, refused, firstFailure } satisfies WebhookCallersMessage);

await nextMessage<WebhookCallersRequest, "stop">(process, "stop", 900_000);
clearInterval(timer);
for (const call of steady) call.hangUp();
await Promise.race([Promise.all(steady.map((c) => c.ended)), new Promise((resolve) => setTimeout(resolve, 30_000))]);
send(process, { type: "stopped" } satisfies WebhookCallersMessage);
process.disconnect();
