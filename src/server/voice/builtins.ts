/**
 * The engine's built-in functions: `end_call` and `transfer_call`, offered to the
 * model beside the user's tools, and the keypad (DTMF) digits of a phone caller.
 *
 * Both functions act only once the caller has HEARD what the assistant said before them (its
 * goodbye, its hand-off sentence): the response must be over and every item's audio played
 * (Twilio's echoed marks, the browser's playback reports), or a cap has passed. Meanwhile no
 * new response is asked for (`finishing`), so the model does not talk on after saying goodbye.
 *
 * Names: the user's tools are declared under names other than these (ToolCatalog's reserved
 * names), so `end_call` / `transfer_call` from the model always mean the built-ins.
 */
import { HANDOFF_TEXTS } from "../../shared/calls.ts";
import type { TransferDestination } from "../../shared/assistants.ts";
import type { SessionLogger } from "./seams.ts";
import type { ProviderFunctionTool } from "./tool-resolution.ts";
import type { TranscriptBuilder } from "./transcript.ts";

export const BUILT_IN_NAMES = { endCall: "end_call", transferCall: "transfer_call" } as const;
export const RESERVED_TOOL_NAMES: readonly string[] = Object.values(BUILT_IN_NAMES);

/** The assistant's hand-off settings, as a call needs them. */
export interface HandoffSettings {
  transferDestinations: TransferDestination[];
  allowEndCall: boolean;
  keypadInput: boolean;
}

/** A call given no settings (engine tests) gets no built-ins; assistants from the database always carry theirs. */
export const DEFAULT_HANDOFF: HandoffSettings = { transferDestinations: [], allowEndCall: false, keypadInput: false };

/** How long a transfer's destination rings before it counts as not answered, on every carrier. */
export const TRANSFER_RING_S = 25;

/** A transfer that went through, saying how when the carrier knows (a line in the transcript). */
export interface TransferDone {
  how: string;
}

/** Carries out a transfer of a phone call (Twilio: the live call is updated; SIP: REFER, or a call to the destination bridged). */
export interface CallTransfer {
  /** Resolves once the caller is on their way to the destination; rejects with why not, the call going on. */
  transfer(destination: TransferDestination, summary: string): Promise<TransferDone | void>;
  /**
   * True while the caller's line is still this call's during the transfer (the carrier is itself
   * dialling the destination): the caller going away then is a hang-up, not the transfer.
   */
  readonly holdsCaller?: boolean;
}

export interface BuiltInsDeps {
  settings: HandoffSettings;
  /** Absent in a browser test call: the transfer is only shown. */
  transferer?: CallTransfer;
  transcript: TranscriptBuilder;
  /** Whether the caller has heard everything said so far (no response running, all audio played). */
  heardAll: () => boolean;
  /** Ends the call with this reason. */
  hangUp: (reason: string) => void;
  /** Tells the model something (a system item) and lets it answer: a transfer that failed. */
  resume: (text: string) => void;
  after: (ms: number, fn: () => void) => () => void;
  logger: SessionLogger;
  /** How often the playback is checked, and the longest wait for it. */
  pollMs?: number;
  maxWaitMs?: number;
}

export interface BuiltInResult {
  value: unknown;
  isError: boolean;
}

const MAX_SUMMARY = 500;

/** The built-ins offered for these settings (a call's session.update, a replay's or a text test's request). */
export function builtInTools(settings: HandoffSettings): ProviderFunctionTool[] {
  const tools: ProviderFunctionTool[] = [];
  if (settings.allowEndCall) {
    tools.push({
      type: "function",
      name: BUILT_IN_NAMES.endCall,
      description:
        "Hang up the call. Use it only when the conversation is over: first say goodbye to the caller in the same turn, then call this.",
      parameters: { type: "object", properties: { reason: { type: "string", description: "Why the call ends, in a few words." } } },
    });
  }
  const destinations = settings.transferDestinations;
  if (destinations.length > 0) {
    const when = destinations.map((d) => `- "${d.label}": ${d.when_to_use}`).join("\n");
    tools.push({
      type: "function",
      name: BUILT_IN_NAMES.transferCall,
      description:
        `Transfer the caller to a person. First tell the caller you are transferring them, then call this. Destinations:\n${when}`,
      parameters: {
        type: "object",
        properties: {
          destination: { type: "string", enum: destinations.map((d) => d.label), description: "The label of the destination." },
          summary: { type: "string", description: "One sentence for the person who answers: who is calling and what they need." },
        },
        required: ["destination", "summary"],
      },
    });
  }
  return tools;
}

export class BuiltIns {
  private finishingNow = false;
  private transferringTo: string | null = null;

  constructor(private readonly deps: BuiltInsDeps) {}

  /** A hang-up or a transfer is under way: the model must not be asked for another response. */
  get finishing(): boolean {
    return this.finishingNow;
  }

  /**
   * While the live call is being re-pointed, Twilio may stop the media stream before its REST
   * answer reaches us: the caller's side going away then is the transfer, not a hang-up.
   */
  get leavingReason(): string | null {
    return this.deps.transferer?.holdsCaller ? null : this.transferringTo;
  }

  has(name: string): boolean {
    return this.providerTools().some((t) => t.name === name);
  }

  /** The built-ins offered in session.update for these settings. */
  providerTools(): ProviderFunctionTool[] {
    return builtInTools(this.deps.settings);
  }

  /** Runs a built-in: answers the model at once; the action itself waits until the caller has heard the assistant. */
  run(name: string, args: Record<string, unknown>): BuiltInResult {
    if (this.finishingNow) return { value: { error: "The call is already ending" }, isError: true };
    if (name === BUILT_IN_NAMES.endCall) {
      this.finishingNow = true;
      this.whenHeard(() => this.deps.hangUp(HANDOFF_TEXTS.assistantEnded));
      return { value: { ok: true, message: "The call will end after your goodbye." }, isError: false };
    }
    return this.transfer(args);
  }

  private transfer(args: Record<string, unknown>): BuiltInResult {
    const { settings, transferer, transcript } = this.deps;
    const wanted = typeof args["destination"] === "string" ? args["destination"].trim().toLowerCase() : "";
    const destination = settings.transferDestinations.find((d) => d.label.toLowerCase() === wanted);
    if (!destination) {
      const labels = settings.transferDestinations.map((d) => d.label).join(", ");
      return { value: { error: `Unknown destination "${String(args["destination"] ?? "")}". Destinations: ${labels}` }, isError: true };
    }
    const summary = (typeof args["summary"] === "string" ? args["summary"].trim() : "").slice(0, MAX_SUMMARY);
    if (summary === "") return { value: { error: "A one-sentence summary for the person who answers is required" }, isError: true };
    this.finishingNow = true;
    if (!transferer) {
      // A browser cannot be put through to a phone: say what would happen, and end there.
      const line = HANDOFF_TEXTS.wouldTransfer(destination.label, destination.phone_number, summary);
      transcript.system(line);
      this.whenHeard(() => this.deps.hangUp(line));
      return { value: { ok: true, message: `Transferring the caller to ${destination.label}.` }, isError: false };
    }
    this.whenHeard(() => {
      const reason = HANDOFF_TEXTS.transferredTo(destination.label);
      this.transferringTo = reason;
      transferer.transfer(destination, summary).then(
        (done) => {
          if (done?.how) transcript.system(done.how);
          this.deps.hangUp(reason);
        },
        (err: unknown) => {
          this.transferringTo = null;
          const message = err instanceof Error ? err.message : String(err);
          this.deps.logger.warn({ err: message, destination: destination.label }, "transfer failed");
          transcript.system(`Transfer to ${destination.label} failed: ${message}`, true);
          this.finishingNow = false;
          this.deps.resume(`The transfer to ${destination.label} failed. Tell the caller and offer other help.`);
        },
      );
    });
    return { value: { ok: true, message: `Transferring the caller to ${destination.label}.` }, isError: false };
  }

  /** Runs `action` once the caller has heard everything said so far, or after the cap. */
  private whenHeard(action: () => void): void {
    const pollMs = this.deps.pollMs ?? 100;
    const deadline = this.deps.maxWaitMs ?? 20_000;
    let waited = 0;
    const check = () => {
      if (this.deps.heardAll() || waited >= deadline) return action();
      waited += pollMs;
      this.deps.after(pollMs, check);
    };
    // First check on a later tick: the function's own response is still being wrapped up.
    this.deps.after(pollMs, check);
  }
}

/** Keys held while the call connects (a caller presses a few, not hundreds). */
export const MAX_EARLY_KEYS = 32;

/**
 * Keypad digits (Twilio `dtmf`): digits pressed in quick succession are sent as one message
 * ("The caller pressed 123"), once no key has been pressed for `quietMs`. Keys pressed before
 * the call is live are held until it is (`live`), then sent the same way.
 */
export class KeypadBuffer {
  private digits: string[] = [];
  private cancel: (() => void) | null = null;
  private isLive = false;

  constructor(
    private readonly send: (text: string) => void,
    private readonly after: (ms: number, fn: () => void) => () => void,
    private readonly quietMs = 1_500,
  ) {}

  press(digit: string): void {
    if (!/^[0-9*#A-D]$/.test(digit)) return;
    if (!this.isLive && this.digits.length >= MAX_EARLY_KEYS) return;
    this.digits.push(digit);
    if (this.isLive) this.wait();
  }

  /** The call is live: held keys go once the caller pauses, like any others. */
  live(): void {
    if (this.isLive) return;
    this.isLive = true;
    if (this.digits.length > 0) this.wait();
  }

  private wait(): void {
    this.cancel?.();
    this.cancel = this.after(this.quietMs, () => this.flush());
  }

  private flush(): void {
    this.cancel = null;
    const digits = this.digits.splice(0);
    if (digits.length > 0) this.send(HANDOFF_TEXTS.keypad(digits.join("")));
  }
}
