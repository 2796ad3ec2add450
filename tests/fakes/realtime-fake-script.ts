/** The script of a fake Realtime connection: what the caller says and how the model replies. */

import type { FakeConnection } from "./realtime-fake-connection.ts";

export type Json = Record<string, unknown>;

export interface FakeToolCall {
  name: string;
  arguments: string | Record<string, unknown>;
  /** Defaults to call_<random>; set it to test the engine's refusal of other ids. */
  callId?: string;
  /** Number of argument deltas (default 3). */
  pieces?: number;
}

export interface FakeReplySpec {
  /** Spoken text: audio deltas plus transcript deltas. */
  say?: string;
  /** Transcript pieces (default: `say` split after each word). */
  pieces?: string[];
  /** Real delay before each piece after the first. */
  pieceGapMs?: number;
  /** Audio generated for the spoken item (default 400 ms). */
  audioMs?: number;
  /** Audio per output_audio.delta of this reply (default: the script's chunkMs). */
  chunkMs?: number;
  /** Function calls emitted after any speech, in this same response. */
  toolCalls?: FakeToolCall[];
  /** End the response with status failed and this message. */
  fail?: string;
  /**
   * Transcript deltas start this many audio chunks late (default 0). The real service often
   * streams audio ahead of its transcript, so a barge-in can come before the first text.
   */
  transcriptLagChunks?: number;
}

export interface FakeItem {
  id: string;
  type: "message" | "function_call" | "function_call_output";
  role?: "user" | "assistant" | "system";
  text?: string;
  call_id?: string;
  name?: string;
  arguments?: string;
  output?: string;
  audioMs?: number;
}

export interface FakeReplyContext {
  /** The response.create that asked, or undefined for one started by the fake's VAD. */
  request: Record<string, unknown> | undefined;
  conversation: readonly FakeItem[];
}

export type FakeReply = string | FakeReplySpec | ((ctx: FakeReplyContext) => string | FakeReplySpec);

export interface FakeScript {
  /** What the caller "says": one transcription per detected turn, in order. */
  userSays?: string[];
  /** Appended audio that makes one user turn (default 300 ms). */
  speechMs?: number;
  /** Delay of the transcription.completed event after the commit (default 0). */
  transcriptionDelayMs?: number;
  /** Replies of responses not carrying instructions, in order; then a default reply. */
  replies?: FakeReply[];
  /** Server VAD creates a response after each user turn (default true). */
  autoRespond?: boolean;
  /** Audio per output_audio.delta (default 100 ms). */
  chunkMs?: number;
  /** Called for every client event after the fake handled it (for cues). */
  onClientEvent?: (event: Record<string, unknown>, connection: FakeConnection) => void;
  /** Called with each chunk of assistant audio before it is sent; may write into it (the bench stamps a send time). */
  beforeAudioDelta?: (audio: Buffer, delta: { connection: FakeConnection; itemId: string; offsetMs: number }) => void;
  /**
   * Keep audio events (input_audio_buffer.append, response.output_audio.delta) in `received`,
   * `sent` and `timeline` (default true). The bench turns this off: hundreds of calls streaming
   * for seconds would otherwise hold every audio byte in the fake's memory.
   */
  keepAudioEvents?: boolean;
  /**
   * The session's maximum duration (the real cap is 60 minutes): session.created carries the
   * matching `expires_at`, and the session ends with `session_expired` when it is reached.
   */
  sessionCapMs?: number;
  /** Client events to refuse with an error naming them, as `refuseNext` does (e.g. a session.update). */
  refuse?: Array<{ type: string; code: string; message: string }>;
}


export function splitWords(text: string): string[] {
  return text.match(/\S+\s*/g) ?? [text];
}

/** The text the engine's greeting instructions quote (between the first and last double quote). */
export function quoted(instructions: string): string {
  const first = instructions.indexOf('"');
  const last = instructions.lastIndexOf('"');
  return first >= 0 && last > first ? instructions.slice(first + 1, last) : instructions;
}
