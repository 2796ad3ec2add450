/**
 * What the live board's hold on a call (supervision.ts) talks to: the session it supervises
 * and the supervisors' sockets (docs/decisions/032-live-board.md).
 */
import type { SupervisorAction, ToolUse, TranscriptEntry } from "../../shared/calls.ts";
import type { CallServerMessage } from "../../shared/live.ts";

export interface CallFacts {
  organizationId: string;
  assistant: { id: string; name: string };
  kind: "test" | "phone";
  callerNumber: string | null;
  calledNumber: string | null;
  /** PCM16 sample rate of both audio directions. */
  sampleRate: number;
}

/** What the session does on a supervisor's behalf (call-session.ts). */
export interface SupervisedCall {
  /** A system item for the assistant; false when it could not be sent. */
  instruct(text: string): boolean;
  /** Stop the assistant at once (as on barge-in) and stop it answering turns. */
  silence(): void;
  /** Answers on again; `context` goes to the assistant as a system item, then a response. */
  resume(context: string): void;
  /** Whether the assistant heard the caller while silenced (an engine that cannot be told not to answer hears silence instead). */
  heardCallerWhileSilenced(): boolean;
  /** The controller's voice (PCM16 at the call's rate) to the caller, and into the recording. */
  speak(samples: Int16Array): void;
  note(content: string, supervisor: { name: string; action: SupervisorAction }): void;
  end(reason: string): void;
  transcript(): Array<TranscriptEntry | null>;
  toolsUsed(): ToolUse[];
}

/** One supervisor's socket on the call. */
export interface Watcher {
  readonly name: string;
  send(message: CallServerMessage): void;
  audio(frame: Buffer): void;
  /** The call is over (`ended` was sent): close the socket. */
  close(): void;
  /** What this supervisor did, once it took effect (the audit log listens here). */
  acted?(action: SupervisorAction): void;
}
