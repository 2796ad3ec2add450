/**
 * The seams a CallSession is built from. Each is an interface so the session stays free of
 * the database, the storage module, the HTTP tool engine and the socket libraries: the app
 * wires the real ones, tests wire in-memory ones or real local fakes.
 */
import type { ProviderCost } from "../../shared/call-records.ts";
import type { CallLogs, ServerMessage, ToolUse, TranscriptEntry, UserEndReason } from "../../shared/calls.ts";
import type { CallAudioFormat, WireAudio } from "./audio.ts";
import type { ToolDefinition } from "./tool-resolution.ts";

// ---------------------------------------------------------------------------
// Transport: the caller's side (browser socket, Twilio media stream)

export interface TransportHandlers {
  /**
   * Caller audio in the transport's `audioFormat` (PCM16 LE 24 kHz bytes, or µ-law 8 kHz as the
   * base64 text Twilio sent: passed on to the provider as it came).
   */
  audio(chunk: WireAudio): void;
  /** A typed message (browser only). */
  userText(text: string): void;
  /** The caller has heard `playedMs` of assistant item `itemId` (browser reports, Twilio marks). */
  playback(itemId: string, playedMs: number): void;
  /** A keypad key the caller pressed (Twilio `dtmf`: 0-9, *, #). */
  keypad?(digit: string): void;
  /** The caller asked to end the call. */
  end(reason: UserEndReason): void;
  /** The caller's connection is gone without an end request (hang-up, tab closed, timeout). */
  disconnect(left: CallerLeft): void;
}

/** Why and when the caller left, as the transport saw it. */
export interface CallerLeft {
  /** The call's ended reason ("Client disconnected", "Caller hung up", ...). */
  reason: string;
  /**
   * Unix ms the caller was last heard from, when that is earlier than now: a socket that died
   * silently is found by the heartbeat late, and the call ends (and is billed) at this moment.
   */
  lastHeardAt?: number;
}

export interface Transport {
  readonly audioFormat: CallAudioFormat;
  /** Attach the session; called once, synchronously after construction of the session. */
  start(handlers: TransportHandlers): void;
  /**
   * Assistant audio of provider item `itemId`, in `audioFormat`, to be played in order (base64
   * text as the provider sent it, or bytes; each transport takes either without copying when it can).
   * Returns false when the audio was not sent (socket closed or backed up): it is then neither
   * recorded nor counted as played-out audio of the item.
   */
  sendAudio(itemId: string, audio: WireAudio): boolean;
  /** No more audio will come for item `itemId`: whatever of it was sent is to be reported played in full. */
  audioDone?(itemId: string): void;
  /**
   * Barge-in: drop every queued, unplayed assistant sample (Twilio `clear`, the browser's
   * `clear`), then call `flushed` once the played figures reported so far are final for the
   * flushed audio (at once for Twilio, whose marks already say it; after the browser's flush
   * report, or a short timeout, for the browser).
   */
  clearPlayback(flushed: () => void): void;
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
  /** Who carries the call (Twilio when absent). */
  carrier?: "twilio" | "sip";
  /** The carrier's id of the call: Twilio's CallSid, or the SIP Call-ID. */
  providerCallSid: string;
  /** An outbound call: the record made when it was dialled, which the call takes over. */
  recordId?: string;
  /** The `{{name}}` values the call runs with, kept on the record. */
  variables?: Record<string, string>;
  /** A campaign's call: which campaign (its webhooks name it). */
  campaignId?: string;
  /** A SIP call's dialog (carriers/sip/dialog.ts `DialogState`), kept on the record so another instance can hang up if this one dies. */
  sipDialog?: Record<string, unknown>;
}

export interface CallStart {
  assistantId: string;
  /** The published version the call runs; null for the draft. */
  assistantVersion?: number | null;
  organizationId: string;
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
  /** What the call cost at the AI provider, from the usage it reported (usage-meter.ts). */
  providerCost?: ProviderCost | null;
}

/** What the session re-reads after finishing, to verify the write (spec §4 "Test call"). */
export interface CallRecordCheck {
  endTime: string | null;
  cost: number | null;
}

/** One transcript entry (by its slot) or tool call (by its index) as it is now. */
export type CallEntryWrite = { kind: "transcript"; position: number; body: TranscriptEntry } | { kind: "tool"; position: number; body: ToolUse };

export interface CallStore {
  /** Insert the record of a call that starts; returns its id. */
  insert(start: CallStart): Promise<string>;
  /**
   * Saves the transcript entries and tool calls changed since the last save (after each finished
   * turn), so a crash of the instance loses at most the turn in progress; the cost of a save is
   * that of what changed, not of the call so far. Never writes to a finished record.
   */
  saveProgress(id: string, entries: readonly CallEntryWrite[]): Promise<void>;
  finish(id: string, update: CallFinish): Promise<void>;
  read(id: string): Promise<CallRecordCheck | null>;
}

/**
 * A recording written while the call runs (the storage module's AppendWriter): appended in
 * slices, the WAV header patched in by `finish({ head })`.
 */
export interface RecordingWriter {
  append(chunk: Uint8Array): Promise<void>;
  finish(options: { head: Uint8Array }): Promise<unknown>;
  abort(): Promise<void>;
}

/** Opens the recording object under `key` (the storage module's openAppend). */
export type OpenRecording = (key: string) => Promise<RecordingWriter>;

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
 * `audio` is the frame's base64 as it was handed on, where it travels as text (the phone's and the
 * provider's), for a bench that stamps its frames to read when each left the server.
 */
export interface FrameMetrics {
  uplink(ms: number, audio?: string): void;
  downlink(ms: number, audio?: string): void;
}

