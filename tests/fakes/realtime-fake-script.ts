/** The script of a fake Realtime connection: what the caller says and how the model replies. */

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



export function splitWords(text: string): string[] {
  return text.match(/\S+\s*/g) ?? [text];
}

/** The text the engine's greeting instructions quote (between the first and last double quote). */
export function quoted(instructions: string): string {
  const first = instructions.indexOf('"');
  const last = instructions.lastIndexOf('"');
  return first >= 0 && last > first ? instructions.slice(first + 1, last) : instructions;
}
