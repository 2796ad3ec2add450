/**
 * The seams a CallSession is built from. Each is an interface so the session stays free of
 * the database, the storage module, the HTTP tool engine and the socket libraries: the app
 * wires the real ones, tests wire in-memory ones or real local fakes.
 */
import type { CallLogs, ServerMessage, UserEndReason } from "../../shared/calls.ts";
import type { CallAudioFormat } from "./audio.ts";
import type { ToolDefinition } from "./tool-resolution.ts";

// ---------------------------------------------------------------------------
// Transport: the caller's side (browser socket, Twilio media stream)

export interface TransportHandlers {
  /** Caller audio in the transport's `audioFormat` (PCM16 LE 24 kHz, or µ-law 8 kHz bytes). */
  audio(chunk: Uint8Array): void;
  /** A typed message (browser only). */
  userText(text: string): void;
  /** The caller has heard `playedMs` of assistant item `itemId` (browser reports, Twilio marks). */
  playback(itemId: string, playedMs: number): void;
  /** The caller asked to end the call. */
  end(reason: UserEndReason): void;
  /** The caller's connection is gone without an end request (hang-up, tab closed, timeout). */
  disconnect(): void;
}

export interface Transport {
  readonly audioFormat: CallAudioFormat;
  /** Attach the session; called once, synchronously after construction of the session. */
  start(handlers: TransportHandlers): void;
  /** Assistant audio of provider item `itemId`, in `audioFormat`, to be played in order. */
  sendAudio(itemId: string, audio: Uint8Array): void;
  /** Barge-in: drop every queued, unplayed assistant sample (Twilio `clear`). */
  clearPlayback(): void;
  /** A control message (status, transcript, ...). Transports without a UI may ignore it. */
  send(message: ServerMessage): void;
  /** End the caller's connection and release its listeners and timers. Idempotent. */
  close(code?: number, reason?: string): void;
}

// ---------------------------------------------------------------------------
// Tools

export interface ToolRunResult {
  success: boolean;
  /** HTTP status of the tool's endpoint (0 when it could not be reached). */
  status: number;
  data: unknown;
  error?: string;
}

/** Executes a tool through the HTTP tool engine (the same as the Tools page's Test button). */
export interface ToolRunner {
  run(tool: ToolDefinition, args: Record<string, unknown>, signal?: AbortSignal): Promise<ToolRunResult>;
}

// ---------------------------------------------------------------------------
// Call record and recording

/** Who called and on which number: set for phone calls, absent for browser test calls. */
export interface PhoneCallParty {
  callerNumber: string;
  calledNumber: string;
  phoneNumberId: string;
  /** Twilio's CallSid. */
  providerCallSid: string;
}

export interface CallStart {
  assistantId: string;
  userId: string;
  startTime: string;
  logs: CallLogs;
  phone?: PhoneCallParty;
}

export interface CallFinish {
  endTime: string;
  endedReason: string;
  cost: number;
  logs: CallLogs;
  /** Storage key of the WAV, or null when nothing was recorded or saving failed. */
  recording: string | null;
}

/** What the session re-reads after finishing, to verify the write (spec §4 "Test call"). */
export interface CallRecordCheck {
  endTime: string | null;
  cost: number | null;
}

export interface CallStore {
  /** Insert the record of a call that starts; returns its id. */
  insert(start: CallStart): Promise<string>;
  /**
   * Saves the transcript and tool calls so far (after each finished turn), so a crash of the
   * instance loses at most the turn in progress. Never overwrites a finished record.
   */
  saveProgress(id: string, logs: CallLogs): Promise<void>;
  finish(id: string, update: CallFinish): Promise<void>;
  read(id: string): Promise<CallRecordCheck | null>;
}

/** Stores the recording under `key` (the storage module's put). */
export type SaveRecording = (key: string, wav: Buffer) => Promise<void>;

export interface SessionLogger {
  info(obj: object, msg?: string): void;
  warn(obj: object, msg?: string): void;
  error(obj: object, msg?: string): void;
}

export const silentLogger: SessionLogger = { info() {}, warn() {}, error() {} };

// ---------------------------------------------------------------------------
// Measurement (npm run bench:voice); off unless a sink is passed

/**
 * Time the server spends on one audio frame, in ms, measured where the frame enters: from the
 * caller frame's arrival at the transport to its hand-off to the provider socket (`uplink`), and
 * from a provider audio event's arrival to the hand-off of its audio to the caller socket
 * (`downlink`). Socket library framing and time spent waiting in the event loop are not included.
 */
export interface FrameMetrics {
  uplink(ms: number): void;
  downlink(ms: number): void;
}

