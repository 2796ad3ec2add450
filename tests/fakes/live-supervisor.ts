/**
 * A supervisor's side of the live board for tests: a real `ws` client on WS /api/live/board or
 * WS /api/live/calls/:callId, every message checked against the contract (src/shared/live.ts),
 * binary frames (PCM16 audio) kept with their arrival time.
 */
import WebSocket from "ws";
import { socketOpened, Waiters } from "./waiters.ts";
import {
  boardServerMessageSchema,
  callServerMessageSchema,
  type BoardServerMessage,
  type CallServerMessage,
  type SupervisorMessage,
} from "../../src/shared/live.ts";
import { pcm16ToMulaw } from "../../src/server/voice/audio.ts";
import type { TwilioCaller } from "./twilio-caller.ts";

type Message = { type: string };

export class LiveClient<M extends Message> {
  readonly messages: M[] = [];
  /** Binary frames received, with performance.now() at arrival. */
  readonly frames: Array<{ data: Buffer; at: number }> = [];
  closed: { code: number; reason: string } | null = null;
  private readonly waiters = new Waiters();

  private constructor(
    private readonly ws: WebSocket,
    parse: (json: unknown) => M,
    onFrame?: (data: Buffer, at: number) => void,
  ) {
    ws.on("message", (data, isBinary) => {
      if (isBinary) {
        const at = performance.now();
        if (onFrame) onFrame(data as Buffer, at);
        else this.frames.push({ data: data as Buffer, at });
      } else {
        this.messages.push(parse(JSON.parse(data.toString())));
      }
      this.waiters.notify();
    });
    ws.on("close", (code, reason) => {
      this.closed = { code, reason: reason.toString() };
      this.waiters.notify();
    });
    ws.on("error", () => {});
  }

  /** Rejects with "Unexpected server response: <status>" when the upgrade is refused. */
  static async open<M extends Message>(
    url: string,
    parse: (json: unknown) => M,
    options: { headers?: Record<string, string>; onFrame?: (data: Buffer, at: number) => void } = {},
  ): Promise<LiveClient<M>> {
    const ws = new WebSocket(url, { headers: options.headers });
    const client = new LiveClient(ws, parse, options.onFrame);
    await socketOpened(ws);
    return client;
  }

  until(check: () => boolean, what = "condition", timeoutMs = 5000): Promise<void> {
    return this.waiters.until(check, () => `live client: timed out waiting for ${what}; got ${this.messages.map((m) => m.type).join(", ")}`, timeoutMs);
  }

  of<T extends M["type"]>(type: T): Array<Extract<M, { type: T }>> {
    return this.messages.filter((m): m is Extract<M, { type: T }> => m.type === type);
  }

  /** The latest message of `type` once at least `count` have come. */
  async next<T extends M["type"]>(type: T, count = 1, timeoutMs?: number): Promise<Extract<M, { type: T }>> {
    await this.until(() => this.of(type).length >= count, `${count} × ${type}`, timeoutMs);
    return this.of(type).at(-1)!;
  }

  send(message: SupervisorMessage | Record<string, unknown>): void {
    this.ws.send(JSON.stringify(message));
  }

  sendRaw(data: string | Buffer): void {
    this.ws.send(data, { binary: Buffer.isBuffer(data) });
  }

  get bytesReceived(): number {
    return this.frames.reduce((sum, frame) => sum + frame.data.length, 0);
  }

  close(): void {
    this.ws.close();
  }

  untilClosed(timeoutMs?: number): Promise<void> {
    return this.until(() => this.closed !== null, "close", timeoutMs);
  }
}

export type BoardClient = LiveClient<BoardServerMessage>;
export type CallClient = LiveClient<CallServerMessage>;

export interface LiveSocketOptions {
  cookie?: string;
  origin?: string;
  onFrame?: (data: Buffer, at: number) => void;
}

function headers(options: LiveSocketOptions): Record<string, string> {
  return { ...(options.cookie ? { cookie: options.cookie } : {}), ...(options.origin ? { origin: options.origin } : {}) };
}

/** `base`: ws://127.0.0.1:<port> */
export function openBoard(base: string, options: LiveSocketOptions): Promise<BoardClient> {
  return LiveClient.open(`${base}/api/live/board`, (json) => boardServerMessageSchema.parse(json), { headers: headers(options) });
}

export function openCall(base: string, callId: string, options: LiveSocketOptions): Promise<CallClient> {
  return LiveClient.open(`${base}/api/live/calls/${encodeURIComponent(callId)}`, (json) => callServerMessageSchema.parse(json), {
    headers: headers(options),
    onFrame: options.onFrame,
  });
}

/** 20 ms of a loud 1 kHz tone as PCM16 8 kHz: a frame of a supervisor's microphone. */
export function supervisorVoiceFrame(): Buffer {
  const samples = new Int16Array(160);
  for (let i = 0; i < samples.length; i += 1) samples[i] = Math.round(12_000 * Math.sin((2 * Math.PI * 1000 * i) / 8000));
  return Buffer.from(samples.buffer);
}

/**
 * `boss` takes over `call`: once they have control and the caller's playback has been cleared
 * (`cleared` names it in a timeout), the audio the caller hears from the clear on, kept as it comes.
 */
export async function takeOver(boss: CallClient, call: TwilioCaller, cleared: string): Promise<Buffer[]> {
  const clears = call.clears;
  const afterClear: Buffer[] = [];
  call.onMedia = (audio) => {
    if (call.clears > clears) afterClear.push(audio);
  };
  boss.send({ type: "take_over" });
  await boss.until(() => boss.of("control").some((m) => m.control.youHaveControl), "control");
  await call.until(() => call.clears > clears, cleared);
  return afterClear;
}

/** `boss` speaks `count` frames of supervisorVoiceFrame(); the µ-law frame the caller should hear for each. */
export function speakAsSupervisor(boss: CallClient, count = 15): Buffer {
  const frame = supervisorVoiceFrame();
  for (let i = 0; i < count; i += 1) boss.sendRaw(frame);
  return Buffer.from(pcm16ToMulaw(new Int16Array(frame.buffer, frame.byteOffset, 160)));
}

/** Runs `start` (which places a call from `callerNumber`) with the board open; what it returned and the call's id as the board shows it. */
export async function callOnBoard<T>(base: string, cookie: string, callerNumber: string, start: () => Promise<T>): Promise<{ started: T; callId: string }> {
  const board = await openBoard(base, { cookie });
  try {
    const started = await start();
    const match = () => board.of("call_updated").find((m) => m.call.callerNumber === callerNumber);
    await board.until(() => match() !== undefined, "the call on the board");
    return { started, callId: match()!.call.callId };
  } finally {
    board.close();
  }
}
