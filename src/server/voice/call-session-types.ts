/** The constructor options and the result of a CallSession (call-session.ts). */
import type { CallLogs } from "../../shared/calls.ts";
import type { RealtimeProvider } from "./providers/openai-realtime.ts";
import type { CallTransfer, HandoffSettings } from "./builtins.ts";
import type { CallStore, OpenRecording, PhoneCallParty, SessionLogger, ToolRunner, Transport } from "./seams.ts";
import type { ToolDefinition } from "./tool-resolution.ts";

/** The assistant as a call needs it: configuration sent inline in session.update. */
export interface CallAssistant {
  id: string;
  name: string;
  /** The published version the call runs; null or absent for the draft (browser Test Call). */
  version?: number | null;
  instructions: string;
  firstMessage?: string | null;
  model: string;
  voice: string;
  tools: ToolDefinition[];
  /** Transfer destinations, end-call and keypad switches (defaults: none, on, on). */
  handoff?: HandoffSettings;
}

export interface CallSessionOptions {
  transport: Transport;
  provider: RealtimeProvider;
  /**
   * Opens another session of the same provider (same key and model): with it, a call outlives
   * a provider session (session-renewal.ts). Without it, the end of the session ends the call.
   */
  newProvider?: () => RealtimeProvider;
  /** How long before a session's `expires_at` its replacement is prepared (default 5 min). */
  renewBeforeExpiryMs?: number;
  toolRunner: ToolRunner;
  store: CallStore;
  /** Where the recording is streamed while the call runs. */
  openRecording: OpenRecording;
  assistant: CallAssistant;
  organizationId: string;
  /** A browser test call (true) or a real phone call (false): the record's logs.isTest and the tariff. */
  isTest: boolean;
  /** A phone call's parties: who called, which number, Twilio's CallSid. */
  phone?: PhoneCallParty;
  /** How a transfer is carried out (phone calls); absent, a transfer is only shown (test calls). */
  transfer?: CallTransfer;
  /** Clock in ms (tests pass a controllable one). */
  now?: () => number;
  /** Give up when the provider session is not ready by then. */
  connectTimeoutMs?: number;
  toolTimeoutMs?: number;
  /** Pauses before each retry of a failed final write of the record (call-record.ts). */
  finalWriteRetryDelaysMs?: readonly number[];
  logger?: SessionLogger;
}

export interface CallOutcome {
  callId: string | null;
  reason: string;
  startTime: string;
  endTime: string;
  durationMs: number;
  cost: number;
  recording: string | null;
  logs: CallLogs;
  /** The record was re-read after the update and holds the end time and cost written. */
  verified: boolean;
}
