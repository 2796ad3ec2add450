/**
 * The live board (`/live`): supervisors watch the calls of their account that are in progress,
 * listen in, guide the assistant, take over and hand back, and end a call. The whole socket
 * contract of the board lives here; both sides import it. No DOM and no node:* here.
 *
 * Two sockets, both behind the session cookie and the same Origin check as the test call's:
 * - `WS /api/live/board`: the list. A `calls` snapshot on open, then one `call_updated` or
 *   `call_removed` per change (server push; the client never polls the whole list).
 * - `WS /api/live/calls/:callId`: one call. Answers HTTP 404 before the upgrade when the call is
 *   not a live call of the signed-in account (another account's id, a finished call, junk).
 *   A `watching` snapshot on open, then transcript changes, control changes and — while the
 *   supervisor listens — binary audio frames. Commands go the other way.
 *
 * Audio on the call socket: binary frames are PCM16 little-endian mono at the `sampleRate` of the
 * `watching` message (8000 for phone calls, whose caller audio is µ-law 8 kHz; 24000 for browser
 * test calls). Server → supervisor: the call mixed (caller and assistant, or caller and the
 * supervisor who took over), only while `listen` is on or while this supervisor has taken over
 * (then the caller only, so the supervisor does not hear an echo of their own voice).
 * Supervisor → server: the supervisor's microphone, accepted only from the supervisor who has
 * taken over; anything else is dropped.
 */
import { z } from "zod";
import { transcriptDeltaMessageSchema, transcriptEntrySchema, transcriptMessageSchema, toolUseSchema } from "./calls.js";

// ---------------------------------------------------------------------------
// Texts

export const LIVE_TEXTS = {
  pageTitle: "Live",
  /** A member below Supervisor opening /live: the board is refused to them, so say which role it needs. */
  needsRole: (roleLabel: string) => `The live board needs the Supervisor role or higher; your role is ${roleLabel}. Ask an admin of your team to change it.`,
  empty: "No calls in progress",
  /** The ended reason of a call a supervisor ended. */
  endedBySupervisor: "Ended by supervisor",
  /** Prefix of a guide message in the transcript: "Supervisor: <text>". */
  guide: (text: string) => `Supervisor: ${text}`,
  /** Transcript line for supervisor speech the provider could not transcribe. */
  supervisorSpoke: "Supervisor spoke",
  startedListening: (name: string) => `${name} started listening`,
  stoppedListening: (name: string) => `${name} stopped listening`,
  tookOver: (name: string) => `${name} took over the call`,
  handedBack: (name: string) => `${name} handed the call back to the assistant`,
  /** Refusal when another supervisor already has the call. */
  alreadyTakenOver: (name: string) => `${name} has already taken over this call`,
  notLive: "This call is no longer in progress",
  /** The board's badge of a call a transfer bridged on this server. */
  bridgedTo: (who: string) => `Bridged to ${who}`,
  /** Refusal of a hand back by a supervisor who has not taken over. */
  notInControl: "Only the supervisor who took over can hand the call back",
  /** Transcript line when a supervisor ends the call. */
  endedBy: (name: string) => `${name} ended the call`,
  /** A command the server could not read. */
  invalidCommand: "Invalid command",
} as const;

/** Why the board flags a caller as possibly stuck; the UI names each rule next to its badge. */
export const STUCK_RULES = {
  assistantTurns: "Three assistant turns in a row without the caller speaking",
  toolError: "A tool call failed",
  silence: "Nobody has spoken for 15 seconds",
} as const;
export const stuckReasons = ["assistantTurns", "toolError", "silence"] as const;
export const stuckReasonSchema = z.enum(stuckReasons);
export type StuckReason = z.infer<typeof stuckReasonSchema>;
/** The silence rule's threshold. */
export const STUCK_SILENCE_MS = 15_000;
/** The assistant-turns rule's threshold. */
export const STUCK_ASSISTANT_TURNS = 3;

/** Longest guide message accepted (characters). */
export const GUIDE_MAX_LENGTH = 2_000;

// ---------------------------------------------------------------------------
// The board list

export const liveCallSummarySchema = z.object({
  callId: z.string(),
  assistant: z.object({ id: z.string(), name: z.string() }),
  kind: z.enum(["test", "phone"]),
  /** Phone calls only: who called and which of the account's numbers they called (E.164). */
  callerNumber: z.string().nullable(),
  calledNumber: z.string().nullable(),
  /** ISO time the call started: the board ticks the duration from it. */
  startedAt: z.iso.datetime(),
  /** The last line said (by the caller, the assistant or the supervisor), trimmed to ~200 characters. */
  lastSaid: z.object({ speaker: z.enum(["caller", "assistant", "supervisor"]), text: z.string() }).nullable(),
  /** Empty when nothing suggests the caller is stuck. */
  stuck: z.array(stuckReasonSchema),
  /** Display name of the supervisor who has taken over, or null while the assistant talks. */
  takenOverBy: z.string().nullable(),
  /** How many supervisors have the call open. */
  watchers: z.number().int().nonnegative(),
  /**
   * Set once a SIP transfer has put the caller through to a person on this server: whom
   * ("Billing (+15550009999)"). The assistant has left the call; it stays on the board until
   * either side hangs up, and there is nothing to listen to or take over.
   */
  bridgedTo: z.string().nullable(),
});
export type LiveCallSummary = z.infer<typeof liveCallSummarySchema>;

export const boardServerMessageSchema = z.discriminatedUnion("type", [
  z.object({ type: z.literal("calls"), calls: z.array(liveCallSummarySchema) }),
  z.object({ type: z.literal("call_updated"), call: liveCallSummarySchema }),
  /** The call ended (sent within a second of its end). */
  z.object({ type: z.literal("call_removed"), callId: z.string() }),
]);
export type BoardServerMessage = z.infer<typeof boardServerMessageSchema>;

// ---------------------------------------------------------------------------
// One call

export const supervisorControlSchema = z.object({
  /** Display name of the supervisor who has taken over, or null. */
  takenOverBy: z.string().nullable(),
  /** True when this socket's supervisor is the one who has taken over. */
  youHaveControl: z.boolean(),
  /** True while this socket receives the call's audio because it asked to listen. */
  listening: z.boolean(),
  watchers: z.number().int().nonnegative(),
});
export type SupervisorControl = z.infer<typeof supervisorControlSchema>;

export const callServerMessageSchema = z.discriminatedUnion("type", [
  /** The call as it is now: sent once when the socket opens. */
  z.object({
    type: z.literal("watching"),
    call: liveCallSummarySchema,
    /** Entries in index order (holes already skipped); later `transcript` indexes continue from this array's indexes. */
    transcript: z.array(transcriptEntrySchema.nullable()),
    toolsUsed: z.array(toolUseSchema),
    control: supervisorControlSchema,
    /** Sample rate of the binary PCM16 frames both ways. */
    sampleRate: z.number().int().positive(),
  }),
  transcriptMessageSchema,
  transcriptDeltaMessageSchema,
  /** The summary changed (last thing said, stuck badges, take-over). */
  z.object({ type: z.literal("call_updated"), call: liveCallSummarySchema }),
  z.object({ type: z.literal("control"), control: supervisorControlSchema }),
  /** A command was refused (e.g. another supervisor has taken over); show as a toast. */
  z.object({ type: z.literal("error"), message: z.string() }),
  /** The call is over; the server closes the socket after this. */
  z.object({ type: z.literal("ended"), callId: z.string(), reason: z.string() }),
]);
export type CallServerMessage = z.infer<typeof callServerMessageSchema>;

export const supervisorMessageSchema = z.discriminatedUnion("type", [
  /** Start (true) or stop (false) receiving the call's mixed audio. */
  z.object({ type: z.literal("listen"), on: z.boolean() }),
  /** An instruction for the rest of the call: a system item for the assistant, "Supervisor: …" in the transcript. */
  z.object({ type: z.literal("guide"), text: z.string().trim().min(1).max(GUIDE_MAX_LENGTH) }),
  /** Silence the assistant and route audio between the caller and this supervisor. */
  z.object({ type: z.literal("take_over") }),
  /** Give the conversation back to the assistant (only the supervisor who took over). */
  z.object({ type: z.literal("hand_back") }),
  /** End the call with the reason "Ended by supervisor". */
  z.object({ type: z.literal("end_call") }),
]);
export type SupervisorMessage = z.infer<typeof supervisorMessageSchema>;
