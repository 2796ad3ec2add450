/**
 * What the three processes of `npm run bench:voice` share: the audio framing, the send-time
 * stamp written into audio frames, percentiles, and the messages they exchange over IPC.
 */
import type { ChildProcess } from "node:child_process";

export const SAMPLE_RATE = 24_000;
/** The browser's worklet sends 4096-sample PCM16 frames (spec §9). */
export const FRAME_SAMPLES = 4096;
export const FRAME_BYTES = FRAME_SAMPLES * 2;
export const FRAME_MS = (FRAME_SAMPLES / SAMPLE_RATE) * 1000;
/** The fake streams the assistant's voice in 100 ms deltas, as OpenAI roughly does. */
export const DELTA_MS = 100;

/**
 * The first 8 bytes of every bench audio frame hold the monotonic clock (ns) at send time.
 * `process.hrtime` is CLOCK_MONOTONIC on Linux, shared by every process of the machine, so the
 * receiving process can subtract it from its own clock.
 */
export function stampFrame(frame: Buffer): void {
  frame.writeBigInt64LE(process.hrtime.bigint(), 0);
}

/** When a frame was stamped (monotonic ns) and how many ms ago; null for a frame too short to carry a stamp. */
export interface FrameAge {
  stampedAt: number;
  ageMs: number;
}

export function ageOfFrame(frame: Buffer): FrameAge | null {
  if (frame.length < 8) return null;
  const stamped = frame.readBigInt64LE(0);
  return { stampedAt: Number(stamped), ageMs: Number(process.hrtime.bigint() - stamped) / 1e6 };
}

/** The measured window, as monotonic ns (strings: IPC carries no bigint). */
export interface Window {
  from: string;
  to: string;
}

/** Ages of the frames stamped within the window. */
export function within(ages: readonly FrameAge[], window: Window): number[] {
  const from = Number(window.from);
  const to = Number(window.to);
  return ages.filter((a) => a.stampedAt >= from && a.stampedAt <= to).map((a) => a.ageMs);
}

export interface Summary {
  count: number;
  p50: number;
  p99: number;
  max: number;
}

export function summarize(samples: readonly number[]): Summary {
  const sorted = samples.filter(Number.isFinite).sort((a, b) => a - b);
  const at = (q: number) => (sorted.length === 0 ? Number.NaN : sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))]!);
  return { count: sorted.length, p50: at(0.5), p99: at(0.99), max: sorted.at(-1) ?? Number.NaN };
}

// ---------------------------------------------------------------------------
// IPC between bench-voice.ts (the server) and its two children

export type ProviderRequest = { type: "start"; seconds: number } | ({ type: "report" } & Window);
export type ProviderMessage =
  | { type: "listening"; baseUrl: string; apiKey: string }
  | { type: "report"; appends: number; deltas: number; uplinkE2e: Summary; connections: number };

export type CallersRequest =
  | { type: "start"; urls: string[]; cookie: string; seconds: number }
  | { type: "stream" }
  | ({ type: "end" } & Window);
export type CallersMessage =
  | { type: "connected"; connected: number; failed: number; firstFailure: string | null }
  | { type: "streamed" }
  | {
      type: "report";
      framesSent: number;
      framesReceived: number;
      downlinkE2e: Summary;
      ended: number;
      answered: number;
      closedNormally: number;
      errors: string[];
    };

type Channel = ChildProcess | NodeJS.Process;

/** The next IPC message of `type` on `channel`. */
export function nextMessage<M extends { type: string }, T extends M["type"]>(channel: Channel, type: T, timeoutMs = 120_000): Promise<Extract<M, { type: T }>> {
  return new Promise((resolve, reject) => {
    const onMessage = (message: M) => {
      if (message?.type !== type) return;
      cleanup();
      resolve(message as Extract<M, { type: T }>);
    };
    const timer = setTimeout(() => {
      cleanup();
      reject(new Error(`bench: no "${type}" message within ${timeoutMs} ms`));
    }, timeoutMs);
    const cleanup = () => {
      clearTimeout(timer);
      channel.off("message", onMessage);
    };
    channel.on("message", onMessage);
  });
}

export function send<M extends { type: string }>(channel: Channel, message: M): void {
  channel.send?.(message);
}
