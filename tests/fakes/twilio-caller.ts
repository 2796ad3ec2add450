/**
 * A simulated phone caller, speaking Twilio's side of a call over real HTTP and a real
 * WebSocket (protocols §3):
 *
 *   const call = await TwilioCaller.dial({ origin, publicUrl, authToken, to: "+15550100", from: "+15559876" });
 *   call.twiml                     // the voice webhook's answer (status in call.webhookStatus)
 *   await call.openStream();       // connected + start (with the <Parameter> token)
 *   call.speak(mulaw, ms)          // 20 ms media frames at real-time pace (silence to pad)
 *   call.heardMs / call.clears     // what the "phone" played; clear honoured
 *   await call.hangUp();           // stop, then close
 *
 * The webhook request is signed like Twilio signs it (HMAC-SHA1 of the public URL plus the
 * sorted form fields, with the number owner's auth token); so is the stream's upgrade. Audio
 * the server sends is "played" in real time: each mark is echoed when the audio queued before
 * it would have finished playing. A `clear` drops the queue and echoes every pending mark at
 * once, as Twilio does.
 */
import { randomBytes } from "node:crypto";
import twilio from "twilio";
import WebSocket from "ws";
import { socketOpened } from "./waiters.ts";

export const FRAME_MS = 20;
const BYTES_PER_MS = 8;

export interface DialOptions {
  /** Where the app listens: http://127.0.0.1:<port> */
  origin: string;
  /** PUBLIC_URL as configured (the URL Twilio would call); defaults to `origin`. */
  publicUrl?: string;
  /** The number owner's Twilio auth token; the signature is computed with it. */
  authToken: string;
  to: string;
  from: string;
  callSid?: string;
  /** Override the signature (forged-request tests); null sends none. */
  signature?: string | null;
  /**
   * An outbound call the callee answered (twilio-far-end.ts): Twilio requests the call's `Url`
   * (a public URL) with these fields instead of the number's voice webhook.
   */
  outbound?: { url: string; params: Record<string, string> };
}

export interface ReceivedMark {
  name: string;
  echoedAt: number;
}

function sid(prefix: string): string {
  return `${prefix}${randomBytes(16).toString("hex")}`;
}

export function signTwilio(authToken: string, url: string, params: Record<string, string>): string {
  return twilio.getExpectedTwilioSignature(authToken, url, params);
}

export class TwilioCaller {
  readonly callSid: string;
  readonly streamSid = sid("MZ");
  webhookStatus = 0;
  twiml = "";
  ws: WebSocket | null = null;
  closed: { code: number; reason: string } | null = null;
  /** Outbound (assistant) audio received, and how much of it has played. */
  receivedBytes = 0;
  clears = 0;
  readonly echoed: ReceivedMark[] = [];
  /** Audio played before each clear, in ms (what the caller heard of the assistant so far). */
  readonly heardAtClear: number[] = [];
  /** Sees every outbound audio payload (µ-law bytes) as it arrives: tests that check what the caller is sent. */
  onMedia: ((mulaw: Buffer) => void) | null = null;
  /** Time the first assistant audio arrived (performance.now()). */
  firstAudioAt: number | null = null;
  /** The server a <Redirect> led to: the stream goes there. */
  private redirectedTo: string | null = null;
  private playheadEnd = 0;
  private playedBytesBeforeQueue = 0;
  private queue: Array<{ bytes: number; endsAt: number }> = [];
  private readonly pendingMarks: Array<{ name: string; timer: NodeJS.Timeout }> = [];
  private readonly waiters = new Set<() => void>();
  private sequence = 0;
  private mediaTimestamp = 0;
  private speaking: NodeJS.Timeout | null = null;
  /** Settles the `speak` in progress: it ends when its audio is out, or is cut short (a close). */
  private spoken: (() => void) | null = null;

  private constructor(private readonly options: DialOptions) {
    this.callSid = options.callSid ?? sid("CA");
  }

  get publicUrl(): string {
    return this.options.publicUrl ?? this.options.origin;
  }

  /** The voice webhook's form fields, as Twilio sends them for an inbound call. */
  webhookParams(): Record<string, string> {
    if (this.options.outbound) return this.options.outbound.params;
    return {
      AccountSid: "AC" + "0".repeat(32),
      ApiVersion: "2010-04-01",
      CallSid: this.callSid,
      CallStatus: "ringing",
      Called: this.options.to,
      Caller: this.options.from,
      Direction: "inbound",
      From: this.options.from,
      To: this.options.to,
    };
  }

  static async dial(options: DialOptions): Promise<TwilioCaller> {
    const caller = new TwilioCaller(options);
    await caller.callWebhook();
    return caller;
  }

  private async callWebhook(): Promise<void> {
    if (this.options.outbound) {
      const res = await this.post(this.options.outbound.url, this.options.outbound.params);
      this.webhookStatus = res.status;
      this.twiml = res.body;
      return;
    }
    const params = this.webhookParams();
    const url = `${this.publicUrl}/telephony/twilio/voice`;
    const signature = this.options.signature === undefined ? signTwilio(this.options.authToken, url, params) : this.options.signature;
    const res = await fetch(`${this.options.origin}/telephony/twilio/voice`, {
      method: "POST",
      headers: { "content-type": "application/x-www-form-urlencoded", ...(signature ? { "x-twilio-signature": signature } : {}) },
      body: new URLSearchParams(params).toString(),
    });
    this.webhookStatus = res.status;
    this.twiml = await res.text();
  }

  /** Follows the TwiML's <Redirect> as Twilio does: the same fields, signed for and posted to its URL. */
  async followRedirect(): Promise<void> {
    const target = /<Redirect method="POST">([^<]+)<\/Redirect>/.exec(this.twiml)?.[1];
    if (!target) throw new Error(`no <Redirect> in the TwiML: ${this.twiml}`);
    const url = target.replace(/&amp;/g, "&");
    const params = this.webhookParams();
    const res = await fetch(url, {
      method: "POST",
      headers: { "content-type": "application/x-www-form-urlencoded", "x-twilio-signature": signTwilio(this.options.authToken, url, params) },
      body: new URLSearchParams(params).toString(),
    });
    this.webhookStatus = res.status;
    this.twiml = await res.text();
    this.redirectedTo = new URL(url).origin;
  }

  /** The `<Stream url>` and its `<Parameter>`s from the TwiML. */
  stream(): { url: string; parameters: Record<string, string> } | null {
    const url = /<Stream url="([^"]+)"/.exec(this.twiml)?.[1];
    if (!url) return null;
    const parameters: Record<string, string> = {};
    for (const match of this.twiml.matchAll(/<Parameter name="([^"]+)" value="([^"]+)"\/>/g)) parameters[match[1]!] = match[2]!;
    return { url: url.replace(/&amp;/g, "&"), parameters };
  }

  /**
   * Opens the media stream the TwiML names (connected to `origin`, whatever host PUBLIC_URL
   * names) and sends `connected` and `start`. `parameters` replaces the custom parameters.
   */
  /** `via`: the server a balancer hands the stream's connection to (workers behind one port), if not the webhook's. */
  async openStream(options: { parameters?: Record<string, string>; signUpgrade?: boolean; upgradeSignature?: string; via?: string } = {}): Promise<void> {
    const stream = this.stream();
    if (!stream) throw new Error(`no <Stream> in the TwiML: ${this.twiml}`);
    const path = new URL(stream.url).pathname;
    const signature = options.upgradeSignature ?? (options.signUpgrade === false ? undefined : signTwilio(this.options.authToken, stream.url, {}));
    this.closed = null;
    const ws = new WebSocket(`${(options.via ?? this.redirectedTo ?? this.options.origin).replace(/^http/, "ws")}${path}`, { headers: signature ? { "x-twilio-signature": signature } : {} });
    this.ws = ws;
    ws.on("message", (data) => this.onMessage(data.toString()));
    ws.on("close", (code, reason) => {
      this.closed = { code, reason: reason.toString() };
      this.stopSpeaking();
      this.notify();
    });
    ws.on("error", () => {});
    await socketOpened(ws);
    this.send({ event: "connected", protocol: "Call", version: "1.0.0" });
    this.send({
      event: "start",
      sequenceNumber: String(++this.sequence),
      streamSid: this.streamSid,
      start: {
        streamSid: this.streamSid,
        accountSid: "AC" + "0".repeat(32),
        callSid: this.callSid,
        tracks: ["inbound"],
        customParameters: options.parameters ?? stream.parameters,
        mediaFormat: { encoding: "audio/x-mulaw", sampleRate: 8000, channels: 1 },
      },
    });
  }

  private send(message: object): void {
    if (this.ws?.readyState === WebSocket.OPEN) this.ws.send(JSON.stringify(message));
  }

  /** One 20 ms frame of caller audio (160 µ-law bytes). */
  sendFrame(frame: Buffer): void {
    this.mediaTimestamp += FRAME_MS;
    this.send({
      event: "media",
      sequenceNumber: String(++this.sequence),
      streamSid: this.streamSid,
      media: { track: "inbound", chunk: String(this.sequence), timestamp: String(this.mediaTimestamp), payload: frame.toString("base64") },
    });
  }

  /**
   * Streams `audio` (µ-law) as 20 ms frames in real time, padded with silence to `totalMs`;
   * resolves when the last frame is sent.
   */
  speak(audio: Buffer, totalMs = audio.length / BYTES_PER_MS): Promise<void> {
    this.stopSpeaking();
    const frames = Math.ceil(totalMs / FRAME_MS);
    const frameBytes = FRAME_MS * BYTES_PER_MS;
    let index = 0;
    const started = performance.now();
    return new Promise((resolve) => {
      this.spoken = resolve;
      const tick = () => {
        // Catch up on frames due (timers drift); never run ahead of real time.
        while (index < frames && performance.now() - started >= index * FRAME_MS) {
          const frame = Buffer.alloc(frameBytes, 0xff);
          // Past the audio's end the frame stays silence (0xff is µ-law's zero).
          if (index * frameBytes < audio.length) audio.copy(frame, 0, index * frameBytes, Math.min(audio.length, (index + 1) * frameBytes));
          this.sendFrame(frame);
          index += 1;
        }
        if (index >= frames || this.closed) {
          this.speaking = null;
          resolve();
          return;
        }
        this.speaking = setTimeout(tick, 5);
      };
      tick();
    });
  }

  private stopSpeaking(): void {
    if (this.speaking) clearTimeout(this.speaking);
    this.speaking = null;
    const spoken = this.spoken;
    this.spoken = null;
    spoken?.();
  }

  /** Milliseconds of assistant audio the phone has played so far. */
  get heardMs(): number {
    const now = performance.now();
    let bytes = this.playedBytesBeforeQueue;
    for (const chunk of this.queue) {
      if (chunk.endsAt <= now) bytes += chunk.bytes;
      else {
        const startsAt = chunk.endsAt - chunk.bytes / BYTES_PER_MS;
        if (now > startsAt) bytes += (now - startsAt) * BYTES_PER_MS;
      }
    }
    return bytes / BYTES_PER_MS;
  }

  private onMessage(text: string): void {
    const message = JSON.parse(text) as { event: string; media?: { payload: string }; mark?: { name: string }; streamSid?: string };
    const now = performance.now();
    switch (message.event) {
      case "media": {
        const audio = Buffer.from(message.media!.payload, "base64");
        this.onMedia?.(audio);
        const bytes = audio.length;
        this.firstAudioAt ??= now;
        // Chunks played to their end are only a count now (keeps long calls cheap).
        while (this.queue[0] && this.queue[0].endsAt <= now) this.playedBytesBeforeQueue += this.queue.shift()!.bytes;
        this.receivedBytes += bytes;
        const startsAt = Math.max(now, this.playheadEnd);
        this.playheadEnd = startsAt + bytes / BYTES_PER_MS;
        this.queue.push({ bytes, endsAt: this.playheadEnd });
        break;
      }
      case "mark": {
        const name = message.mark!.name;
        const timer = setTimeout(() => this.echoMark(name), Math.max(0, this.playheadEnd - now));
        this.pendingMarks.push({ name, timer });
        break;
      }
      case "clear": {
        this.clears += 1;
        this.heardAtClear.push(this.heardMs);
        // What has played stays played; the rest of the queue is dropped.
        this.playedBytesBeforeQueue = this.heardMs * BYTES_PER_MS;
        this.queue = [];
        this.playheadEnd = now;
        for (const mark of this.pendingMarks.splice(0)) {
          clearTimeout(mark.timer);
          this.echoMark(mark.name, false);
        }
        break;
      }
    }
    this.notify();
  }

  private echoMark(name: string, played = true): void {
    const index = this.pendingMarks.findIndex((m) => m.name === name);
    if (index >= 0) this.pendingMarks.splice(index, 1);
    if (played) this.echoed.push({ name, echoedAt: performance.now() });
    this.send({ event: "mark", sequenceNumber: String(++this.sequence), streamSid: this.streamSid, mark: { name } });
  }

  private notify(): void {
    for (const waiter of this.waiters) waiter();
  }

  until(check: () => boolean, what: string, timeoutMs = 8000): Promise<void> {
    if (check()) return Promise.resolve();
    return new Promise((resolve, reject) => {
      const timer = setTimeout(() => {
        this.waiters.delete(waiter);
        reject(new Error(`twilio caller: timed out waiting for ${what}`));
      }, timeoutMs);
      const waiter = () => {
        if (!check()) return;
        clearTimeout(timer);
        this.waiters.delete(waiter);
        resolve();
      };
      this.waiters.add(waiter);
      const poll = setInterval(() => {
        if (!this.waiters.has(waiter)) clearInterval(poll);
        else waiter();
      }, 20);
    });
  }

  /** A keypad key (bidirectional streams only), as Twilio sends it. */
  pressKey(digit: string): void {
    this.send({ event: "dtmf", streamSid: this.streamSid, sequenceNumber: String(++this.sequence), dtmf: { track: "inbound_track", digit } });
  }

  /**
   * Twilio executing new TwiML for this call (a REST call update): the media stream is told
   * `stop` and closed, then a `<Dial><Number url>` rings the number. When the person answers,
   * Twilio fetches the Number's `url` (the whisper) on their leg; when the dial is over it
   * posts the Dial `action` with DialCallStatus, and the call goes on with the TwiML answered
   * (kept in `twiml`, so a new `<Stream>` can be opened with openStream()).
   */
  async followDial(twiml: string, dialStatus: "completed" | "busy" | "no-answer" | "failed"): Promise<{ number: string; whisperTwiml: string | null; actionStatus: number }> {
    await this.stopStream();
    const unescape = (v: string) => v.replace(/&amp;/g, "&");
    const action = /<Dial [^>]*action="([^"]+)"/.exec(twiml)?.[1];
    // A phone number (<Number>) or a SIP address (<Sip>), with the URL of what its answerer hears first.
    const found = /<(Number|Sip) [^>]*url="([^"]+)"[^>]*>([^<]+)<\/\1>/.exec(twiml);
    if (!action || !found) throw new Error(`no <Dial action><Number url> or <Sip url> in ${twiml}`);
    const number = [found[0], found[2], found[3]] as const;
    let whisperTwiml: string | null = null;
    const childSid = sid("CA");
    if (dialStatus === "completed") {
      // The whisper runs on the answering person's leg: its own CallSid, the parent's too.
      const res = await this.post(unescape(number[1]!), { ...this.webhookParams(), CallSid: childSid, ParentCallSid: this.callSid, To: number[2]!, Direction: "outbound-dial", CallStatus: "in-progress" });
      whisperTwiml = res.status === 200 ? res.body : null;
    }
    const res = await this.post(unescape(action), {
      ...this.webhookParams(),
      CallStatus: "in-progress",
      DialCallStatus: dialStatus,
      ...(dialStatus === "completed" ? { DialCallSid: childSid, DialCallDuration: "42" } : {}),
    });
    this.twiml = res.body;
    return { number: number[2]!, whisperTwiml, actionStatus: res.status };
  }

  /** Twilio leaving the stream for other TwiML: `stop`, then the socket closes. */
  async stopStream(): Promise<void> {
    if (!this.ws || this.closed !== null) return;
    this.stopSpeaking();
    this.send({ event: "stop", sequenceNumber: String(++this.sequence), streamSid: this.streamSid, stop: { accountSid: "AC" + "0".repeat(32), callSid: this.callSid } });
    this.ws.close(1000);
    await this.until(() => this.closed !== null, "stream closed");
  }

  /** A signed form POST to one of our public URLs, sent to `origin`. */
  private async post(publicUrl: string, params: Record<string, string>): Promise<{ status: number; body: string }> {
    const url = new URL(publicUrl);
    const res = await fetch(`${this.options.origin}${url.pathname}${url.search}`, {
      method: "POST",
      headers: { "content-type": "application/x-www-form-urlencoded", "x-twilio-signature": signTwilio(this.options.authToken, publicUrl, params) },
      body: new URLSearchParams(params).toString(),
    });
    return { status: res.status, body: await res.text() };
  }

  /** The caller puts the phone down: `stop`, then the socket closes. */
  async hangUp(): Promise<void> {
    this.stopSpeaking();
    for (const mark of this.pendingMarks.splice(0)) clearTimeout(mark.timer);
    this.send({ event: "stop", sequenceNumber: String(++this.sequence), streamSid: this.streamSid, stop: { accountSid: "AC" + "0".repeat(32), callSid: this.callSid } });
    this.ws?.close(1000);
    await this.until(() => this.closed !== null, "socket closed");
  }

  /** Twilio's status callback for this call (signed unless `signature` says otherwise). */
  async statusCallback(fields: Record<string, string>, signature?: string | null): Promise<number> {
    const params = { ...this.webhookParams(), CallStatus: "completed", ...fields };
    const url = `${this.publicUrl}/telephony/twilio/status`;
    const sig = signature === undefined ? signTwilio(this.options.authToken, url, params) : signature;
    const res = await fetch(`${this.options.origin}/telephony/twilio/status`, {
      method: "POST",
      headers: { "content-type": "application/x-www-form-urlencoded", ...(sig ? { "x-twilio-signature": sig } : {}) },
      body: new URLSearchParams(params).toString(),
    });
    await res.arrayBuffer();
    return res.status;
  }
}
