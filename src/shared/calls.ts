/**
 * Shapes of a call shared by the server's call engine and the browser: transcript entries,
 * the call logs stored on the record, the live-socket control messages of a test call, and
 * the cost formula. No DOM and no node:* here — both sides import this file.
 */
import { z } from "zod";
import { withExamples } from "./examples.js";

// ---------------------------------------------------------------------------
// Transcript and logs (spec §3 "calls")

export const transcriptEntryTypes = ["user", "assistant", "system", "tool-request", "tool-response"] as const;
export const transcriptEntryTypeSchema = z.enum(transcriptEntryTypes);
export type TranscriptEntryType = z.infer<typeof transcriptEntryTypeSchema>;

/** Extra facts about a tool entry, for the raw-log view and debugging. */
export const toolDataSchema = z.object({
  toolName: z.string(),
  toolId: z.string().optional(),
  callId: z.string(),
  cached: z.boolean().optional(),
  status: z.number().int().optional(),
  /** A built-in function of the engine (end_call, transfer_call), not one of the user's tools. */
  builtIn: z.boolean().optional(),
});
export type ToolData = z.infer<typeof toolDataSchema>;

/**
 * What a supervisor did on the live board (src/shared/live.ts). Kept on the transcript entry
 * (type "system") that says it, so the record shows who listened, guided, took over and handed
 * back, and when.
 */
export const supervisorActions = ["listen", "stop_listening", "guide", "take_over", "hand_back", "spoke", "end_call"] as const;
export const supervisorActionSchema = z.enum(supervisorActions);
export type SupervisorAction = z.infer<typeof supervisorActionSchema>;

export const transcriptEntrySchema = z.object({
  type: transcriptEntryTypeSchema,
  content: z.string(),
  timestamp: z.iso.datetime(),
  toolData: toolDataSchema.optional(),
  isError: z.boolean().optional(),
  /** tool-request only: the arguments the model passed. */
  parameters: z.unknown().optional(),
  /** tool-response only: what the tool returned (or the error). */
  result: z.unknown().optional(),
  /**
   * assistant only: the caller barged in and heard only this many milliseconds of the
   * entry's audio. The content keeps the full generated text (the provider drops the
   * unheard part from its context), so a reader knows the tail was never heard.
   */
  interruptedAtMs: z.number().int().nonnegative().optional(),
  /** system only: the entry records a supervisor's action (who, what). */
  supervisor: z.object({ name: z.string(), action: supervisorActionSchema }).optional(),
});
export type TranscriptEntry = z.infer<typeof transcriptEntrySchema>;

export const toolUseSchema = z.object({
  name: z.string(),
  id: z.string(),
  parameters: z.unknown(),
  result: z.unknown(),
  timestamp: z.iso.datetime(),
  callId: z.string().optional(),
  cached: z.boolean().optional(),
  /** end_call / transfer_call (id "builtin:<name>"). */
  builtIn: z.boolean().optional(),
});
export type ToolUse = z.infer<typeof toolUseSchema>;

/**
 * One caller turn of a pipeline call, each stage in ms after the end of the caller's speech (the
 * transcriber's endpoint), measured where it happens; a stage the turn never reached is missing.
 */
export const turnLatencySchema = z.object({
  /** When the caller's speech ended, ms after the call's voice engine session began. */
  speechEndedAtMs: z.number().nonnegative(),
  transcriptMs: z.number().nonnegative(),
  firstTokenMs: z.number().nonnegative().optional(),
  firstVoiceAudioMs: z.number().nonnegative().optional(),
  firstAudioSentMs: z.number().nonnegative().optional(),
});
export type TurnLatency = z.infer<typeof turnLatencySchema>;

/** What a pipeline call used of each service: audio sent to the transcriber, characters sent to the voice. */
export const serviceUsageSchema = z.object({
  transcriberSeconds: z.number().nonnegative(),
  voiceCharacters: z.number().int().nonnegative(),
  /** The language model's tokens as it reported them (older records have none). */
  modelInputTokens: z.number().int().nonnegative().optional(),
  modelCachedTokens: z.number().int().nonnegative().optional(),
  modelOutputTokens: z.number().int().nonnegative().optional(),
});
export type ServiceUsage = z.infer<typeof serviceUsageSchema>;

export const callLogsSchema = z.object({
  isTest: z.boolean(),
  transcript: z.array(transcriptEntrySchema),
  toolsUsed: z.array(toolUseSchema).default([]),
  /** Pipeline calls only; older records have none. */
  turns: z.array(turnLatencySchema).optional(),
  serviceUsage: serviceUsageSchema.optional(),
});

/** The call details' per-turn table (spec: Calls page, Turn Latency). */
export const TURN_LATENCY_TEXTS = {
  title: "Turn Latency",
  columns: ["Turn", "Transcript", "First token", "First voice audio", "First audio sent"],
  missing: "–",
} as const;

/** The median of the turns' end of speech → first audio sent (ms), or null with no such turn. */
export function medianTurnLatency(turns: ReadonlyArray<Pick<TurnLatency, "firstAudioSentMs">>): number | null {
  const values = turns.flatMap((t) => (t.firstAudioSentMs === undefined ? [] : [t.firstAudioSentMs])).sort((a, b) => a - b);
  if (values.length === 0) return null;
  const mid = Math.floor(values.length / 2);
  return values.length % 2 === 1 ? values[mid]! : (values[mid - 1]! + values[mid]!) / 2;
}
export type CallLogs = z.infer<typeof callLogsSchema>;

// ---------------------------------------------------------------------------
// Test session (POST /api/calls/test-session { assistantId })

/** A short-lived session id for the live socket below, and what the panel shows of the call. */
export const testSessionSchema = z.object({
  session_id: z.string(),
  model: z.string(),
  assistant: z.object({ id: z.string(), name: z.string() }),
});
export type TestSession = z.infer<typeof testSessionSchema>;

/**
 * Texts of a live call that the server sends and the browser shows or compares (spec §4 "Test
 * call", §8): written once here, so the panel's checks cannot drift from what the server says.
 */
export const LIVE_CALL_TEXTS = {
  /** The final status of a call that ended without a failure. */
  callCompleted: "Call completed",
  /** The system line of a normal (1000) close. */
  sessionEndedNormally: "Session ended normally",
  /** A call that could not start: the socket's close reason and the panel's toast title. */
  startFailed: "Failed to start call",
  /** The ended reason (and close reason) of every call still live when the server stops. */
  shuttingDown: "Server shutting down",
} as const;

/** The Test Call panel's toasts (spec §4 "Test call", §8). */
export const TEST_CALL_MESSAGES = {
  noAssistant: "No assistant selected",
  started: "Call started successfully",
  startFailed: LIVE_CALL_TEXTS.startFailed,
  ended: "Call ended",
  sendFailed: "Failed to send message",
  micOn: "Microphone activated",
  micOff: "Microphone deactivated",
  micError: (message: string) => `Error initializing microphone: ${message}`,
  toolFailed: "Failed to execute tool",
  toolStatus: (status: number) => `Tool completed with status ${status}`,
  initFailed: (reason: string) => `Failed to initialize session: ${reason}`,
} as const;

// ---------------------------------------------------------------------------
// Live socket of a test call (WS /api/calls/live)
//
// Binary frames both ways are PCM16 little-endian, 24 kHz, mono: browser → server is the
// microphone, server → browser is the assistant's voice. Text frames are the JSON messages
// below, one per frame.

/** The ended reasons a browser may ask for (spec §4 "Test call"). */
export const userEndReasons = ["User ended call", "Sheet closed"] as const;
export const userEndReasonSchema = z.enum(userEndReasons);
export type UserEndReason = z.infer<typeof userEndReasonSchema>;

export const clientMessageSchema = z.discriminatedUnion("type", [
  /** A typed message from the message box. */
  z.object({ type: z.literal("user_text"), text: z.string().max(10_000) }),
  /** End the call; the reason defaults to "User ended call". */
  z.object({ type: z.literal("end"), reason: userEndReasonSchema.optional() }),
  /**
   * Played-audio accounting: how many milliseconds of the assistant item `itemId` (named by
   * the last `audio_start`) the speaker has actually played so far. Send it while playing
   * (every ~100 ms or per played chunk) and when an item has played to its end: on barge-in
   * the server truncates the provider's item at the latest value it has.
   */
  z.object({
    type: z.literal("playback"),
    itemId: z.string().min(1).max(200),
    playedMs: z.number().nonnegative().finite(),
  }),
]);
export type ClientMessage = z.infer<typeof clientMessageSchema>;

export const callStates = ["connecting", "active", "ended"] as const;
export const callStateSchema = z.enum(callStates);
export type CallState = z.infer<typeof callStateSchema>;

/**
 * Set `entries[index] = entry`: a new entry or a replacement (a merged assistant entry grew, an
 * interrupted one got its mark). Indexes may skip a number that is filled later (a user turn
 * whose transcription is still running); render in index order, skipping holes. The Test Call's
 * socket and the live board's watch socket both send it.
 */
export const transcriptMessageSchema = z.object({ type: z.literal("transcript"), index: z.number().int().nonnegative(), entry: transcriptEntrySchema });
/**
 * Append `text` to the content of `entries[index]` (set earlier by a `transcript` message): a
 * further piece of an assistant entry being spoken. The entry itself is not sent again, so a
 * long turn costs traffic in proportion to its length.
 */
export const transcriptDeltaMessageSchema = z.object({ type: z.literal("transcript_delta"), index: z.number().int().nonnegative(), text: z.string() });

export const serverMessageSchema = z.discriminatedUnion("type", [
  /** Status line of the panel (texts of spec §4) and the state that drives the buttons. */
  z.object({ type: z.literal("status"), state: callStateSchema, text: z.string() }),
  /** The call record exists; its id. */
  z.object({ type: z.literal("started"), callId: z.string() }),
  transcriptMessageSchema,
  transcriptDeltaMessageSchema,
  /** A failure to show as a toast (e.g. "Failed to send message"). */
  z.object({ type: z.literal("error"), message: z.string() }),
  /** The binary frames that follow belong to this assistant item (until the next audio_start). */
  z.object({ type: z.literal("audio_start"), itemId: z.string() }),
  /** Barge-in: drop every queued, unplayed assistant sample now, then report `playback`. */
  z.object({ type: z.literal("clear") }),
  /** Final figures, sent once just before the server closes the socket. */
  z.object({
    type: z.literal("ended"),
    callId: z.string().nullable(),
    reason: z.string(),
    durationMs: z.number().int().nonnegative(),
    cost: z.number().nonnegative(),
  }),
]);
export type ServerMessage = z.infer<typeof serverMessageSchema>;

// ---------------------------------------------------------------------------
// Cost and duration (spec §9 "Test call cost")

const FIRST_BLOCK_MS = 60_000;
const FIRST_BLOCK_CENTS = 5;
const NEXT_BLOCK_MS = 12_000;
const NEXT_BLOCK_CENTS = 1;

/**
 * $0.05 for the first 60 s, then $0.01 for each further 12 s or part of them.
 *
 * The duration is billed in whole seconds, rounded down, so 72.9 s bills as 72 s ($0.06):
 * the rule is stated in seconds and the table shows m:ss, so a caller never pays for a
 * fraction of a second they cannot see. A connected call of 0 s still costs the first
 * block ($0.05): the block is the price of connecting. Negative or non-finite durations
 * (clock skew) count as 0 s. Computed in integer cents so the result is exact to the cent.
 */
export function callCost(durationMs: number): number {
  const seconds = Number.isFinite(durationMs) && durationMs > 0 ? Math.floor(durationMs / 1000) : 0;
  const extraMs = seconds * 1000 - FIRST_BLOCK_MS;
  const cents = FIRST_BLOCK_CENTS + (extraMs > 0 ? Math.ceil(extraMs / NEXT_BLOCK_MS) * NEXT_BLOCK_CENTS : 0);
  return cents / 100;
}

/** The kinds of call, each with its tariff (spec §9: one tariff for both, for now). */
export const callKinds = ["test", "phone"] as const;
export type CallKind = (typeof callKinds)[number];

export const callTariffs: Record<CallKind, (durationMs: number) => number> = {
  test: callCost,
  phone: callCost,
};

// ---------------------------------------------------------------------------
// Ended reasons of a phone call (Calls page "Status")

export const PHONE_END_REASONS = {
  /** Twilio's `stop` (the caller put the phone down) or its stream closing. */
  callerHungUp: "Caller hung up",
  /** Twilio's stream went silent: no frame and no pong for a heartbeat. */
  connectionLost: "Connection to the caller lost",
} as const;

/** Texts of the hand-off built-ins: ended reasons, transcript lines, what the caller hears. */
export const HANDOFF_TEXTS = {
  assistantEnded: "Assistant ended call",
  transferredTo: (label: string) => `Transferred to ${label}`,
  /** How a SIP call was handed on, in its transcript: the trunk or PBX took it (REFER)... */
  referredTo: (label: string, phone: string) => `Handed to the phone system to call ${label} (${phone}) by SIP REFER`,
  /** ...or this server called the destination, briefed whoever answered, and joined the two calls. */
  bridgedTo: (label: string, phone: string, referRefused: string | null) =>
    `Put through to ${label} (${phone}) after the spoken briefing: this server called them and bridged the call${referRefused ? ` (the phone system refused REFER: ${referRefused})` : ""}`,
  wouldTransfer: (label: string, phone: string, summary: string) => `Would transfer to ${label} (${phone}) with: ${summary}`,
  keypad: (digits: string) => `The caller pressed ${digits}`,
  /** Said to the caller when the destination does not answer, before the assistant comes back. */
  notAnswered: "Sorry, nobody is available to take your call right now. Let me bring the assistant back.",
  /** Said when the call cannot return to the assistant. */
  notAnsweredGoodbye: "Sorry, nobody is available to take your call right now. Please call again later. Goodbye.",
  /** The record's ended reason after an unanswered transfer. */
  transferNotAnswered: (label: string, status: string, returned: boolean) =>
    `Transfer to ${label} not answered (${status}); ${returned ? "returned to the assistant" : "call ended"}`,
} as const;

/** A provider failure ending a phone call: "Provider error: <the provider's message>". */
export function providerErrorReason(message: string): string {
  return `Provider error: ${message}`;
}

/** Duration as m:ss (minutes are not wrapped into hours: 61:05). Whole seconds, rounded down. */
export function formatDuration(durationMs: number): string {
  const total = Number.isFinite(durationMs) && durationMs > 0 ? Math.floor(durationMs / 1000) : 0;
  const minutes = Math.floor(total / 60);
  const seconds = total % 60;
  return `${minutes}:${seconds.toString().padStart(2, "0")}`;
}

/** What a caller hears when every line of the instance their call reached is taken (MAX_CALLS). */
export const PHONE_BUSY_MESSAGE = "All our lines are busy right now. Please call again in a few minutes. Goodbye.";
/** The longest busy message an account may set (spoken by Twilio's <Say> before the hang-up). */
export const BUSY_MESSAGE_MAX_LENGTH = 300;

/**
 * Settings → Calls: what the account's callers hear when every line is taken (GET/PUT
 * /api/settings/busy-message). An empty message puts back PHONE_BUSY_MESSAGE.
 */
export const busyMessageSettingsSchema = withExamples(
  z.object({
    busy_message: z
      .string({ error: "Busy message must be text" })
      .trim()
      .max(BUSY_MESSAGE_MAX_LENGTH, `Busy message must be at most ${BUSY_MESSAGE_MAX_LENGTH} characters`)
      // Control characters would make the TwiML unreadable for Twilio.
      .refine((text) => ![...text].some((c) => c.charCodeAt(0) < 0x20 || c.charCodeAt(0) === 0x7f), "Busy message must be one line of plain text"),
  }),
  { busy_message: "All our lines are busy right now. Please call again in a few minutes." },
);
export type BusyMessageSettings = z.infer<typeof busyMessageSettingsSchema>;

export const BUSY_MESSAGE_TEXTS = {
  label: "Message when all lines are busy",
  hint: "What a phone caller hears before the hang-up when every line is taken. Leave it empty for the default.",
  save: "Save message",
  saved: "Busy message saved",
  saveFailed: "Failed to save the busy message.",
} as const;

/** A test call refused for the same reason (HTTP 503; the panel's toast says Failed to start call). */
export const AT_CAPACITY_MESSAGE = "All lines are busy right now. Please try again in a few minutes.";

/** What a caller hears when the number they called is not in service (unknown, or no assistant). */
export const PHONE_UNAVAILABLE_MESSAGE = "Sorry, this number is not available right now. Please try again later. Goodbye.";
