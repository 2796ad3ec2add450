/**
 * One live call: joins the caller's Transport, the RealtimeProvider and the ToolRunner, and
 * owns the transcript, tool calls, barge-in, recording, cost and the call record.
 *
 * Every exit path goes through one idempotent `close(reason)`: it releases every timer and
 * listener of the call, closes both sockets and finalises the record (end time, ended
 * reason, cost, logs, recording), then re-reads it to verify.
 *
 * The first message: after `session.updated` (so the voice and audio format are in force)
 * the session sends `response.create` with per-response `instructions` asking the model to
 * say the first message verbatim, and `tool_choice: "none"`. GA offers no way to inject
 * assistant *audio* (clients may only create assistant text items, which are never spoken),
 * and a user/system item saying "greet the caller" would stay in the conversation; the
 * per-response instructions leave no trace but the spoken greeting itself.
 *
 * This file keeps the lifecycle and the caller's side; what the provider's events mean is in
 * provider-events.ts, and how the end is reported and recorded is in call-finish.ts.
 */
import { providerErrorReason, type CallLogs, type CallState, type UserEndReason } from "../../shared/calls.ts";
import { BuiltIns, DEFAULT_HANDOFF, KeypadBuffer, RESERVED_TOOL_NAMES } from "./builtins.ts";
import { sampleRateOf } from "./audio.ts";
import { recordingKey, saveCallProgress } from "./call-record.ts";
import { finishCall } from "./call-finish.ts";
import { CallAudio } from "./call-audio.ts";
import type { CallOutcome, CallSessionOptions } from "./call-session-types.ts";
import { PlaybackLedger } from "./playback.ts";
import { ProviderEvents } from "./provider-events.ts";
import { answersUpdate, TRANSCRIPTION_MODEL } from "./providers/realtime-protocol.ts";
import { CallRecorder } from "./recorder.ts";
import { RecordingStream } from "./recording-stream.ts";
import { ResponseQueue } from "./response-queue.ts";
import { contextItems } from "./session-context.ts";
import { RENEW_BEFORE_EXPIRY_MS, SessionRenewal } from "./session-renewal.ts";
import { silentLogger, type SessionLogger, type TransportHandlers } from "./seams.ts";
import { CallSupervision, type SupervisedCall } from "./supervision.ts";
import { ToolCalls } from "./tool-calls.ts";
import { CallProgress } from "./call-progress.ts";
import { ToolCatalog } from "./tool-resolution.ts";
import { TranscriptBuilder } from "./transcript.ts";
import { UsageMeter } from "./usage-meter.ts";

export type { CallAssistant, CallOutcome, CallSessionOptions } from "./call-session-types.ts";

export function greetingInstructions(firstMessage: string): string {
  return `Greet the caller by saying exactly the following text, word for word, and nothing else:\n"${firstMessage}"`;
}

export class CallSession {
  private readonly o: Required<Omit<CallSessionOptions, "logger" | "finalWriteRetryDelaysMs" | "newProvider" | "phone" | "transfer">> &
    Pick<CallSessionOptions, "finalWriteRetryDelaysMs" | "newProvider" | "phone" | "transfer"> & { logger: SessionLogger };
  /** Replaces the provider session before its cap or after it ends (null: no way to open another). */
  private readonly renewal: SessionRenewal | null;
  private readonly transcript: TranscriptBuilder;
  private readonly toolCalls: ToolCalls;
  /** What a progress save writes: the entries changed since the last one. */
  private readonly progress = new CallProgress(
    (slot) => this.transcript.entryAt(slot),
    () => this.toolCalls.used,
  );
  /** end_call, transfer_call and keypad digits (builtins.ts). */
  private readonly builtIns: BuiltIns;
  private readonly keypad: KeypadBuffer | null;
  private readonly recorder: CallRecorder;
  private readonly recording: RecordingStream;
  private readonly abort = new AbortController();
  private readonly timers = new Set<NodeJS.Timeout>();
  private readonly playback = new PlaybackLedger();
  /** Where each side's audio goes: provider, caller, recording, listeners (call-audio.ts). */
  private readonly audio: CallAudio;
  private readonly responses: ResponseQueue;
  private readonly usage: UsageMeter;
  /** How each provider session is configured and what its events mean for the call (provider-events.ts). */
  private readonly events: ProviderEvents;
  private phase: CallState | "idle" = "idle";
  private startedAt = 0;
  private connected = false;
  private record: Promise<string | null> = Promise.resolve(null);
  private ending: Promise<CallOutcome> | null = null;
  private resolveClosed!: (outcome: CallOutcome) => void;
  private lastStatus = "";
  /** Resolves with the outcome once the call is closed and its record finalised. */
  readonly closed: Promise<CallOutcome>;
  /** The live board's hold on the call (supervision.ts): fed here, acts through `supervised()`. */
  readonly supervision: CallSupervision;

  constructor(options: CallSessionOptions) {
    this.o = {
      ...options,
      now: options.now ?? Date.now,
      connectTimeoutMs: options.connectTimeoutMs ?? 15_000,
      toolTimeoutMs: options.toolTimeoutMs ?? 30_000,
      renewBeforeExpiryMs: options.renewBeforeExpiryMs ?? RENEW_BEFORE_EXPIRY_MS,
      logger: options.logger ?? silentLogger,
    };
    this.closed = new Promise((resolve) => (this.resolveClosed = resolve));
    const { phone } = this.o;
    this.supervision = new CallSupervision(
      {
        organizationId: this.o.organizationId,
        assistant: { id: this.o.assistant.id, name: this.o.assistant.name },
        kind: this.o.isTest ? "test" : "phone",
        callerNumber: phone?.callerNumber ?? null,
        calledNumber: phone?.calledNumber ?? null,
        sampleRate: sampleRateOf(this.o.transport.audioFormat),
      },
      this.supervised(),
      this.o.now,
    );
    this.transcript = new TranscriptBuilder(this.o.now, (change) => {
      this.o.transport.send(
        change.kind === "set"
          ? { type: "transcript", index: change.index, entry: change.entry }
          : { type: "transcript_delta", index: change.index, text: change.text },
      );
      this.supervision.transcriptChanged(change);
      this.progress.slotChanged(change.index);
    });
    this.recorder = new CallRecorder(sampleRateOf(this.o.transport.audioFormat));
    this.audio = new CallAudio({
      transport: this.o.transport,
      provider: () => this.o.provider,
      providerTakesAudio: () => this.phase === "active",
      recorder: this.recorder,
      playback: this.playback,
      supervision: this.supervision,
      elapsed: () => this.elapsed(),
    });
    this.recording = new RecordingStream(this.recorder, () => this.elapsed(), this.o.logger);
    this.usage = new UsageMeter(this.o.assistant.model, TRANSCRIPTION_MODEL);
    this.responses = new ResponseQueue((response) => this.o.provider.createResponse(response));
    const handoff = this.o.assistant.handoff ?? DEFAULT_HANDOFF;
    this.builtIns = new BuiltIns({
      settings: handoff,
      transferer: this.o.transfer,
      transcript: this.transcript,
      heardAll: () => !this.playback.responseActive && this.playback.allHeard(),
      hangUp: (reason) => void this.close(reason),
      resume: (text) => {
        if (this.ending || !this.o.provider.createItem({ type: "message", role: "system", content: [{ type: "input_text", text }] })) return;
        this.requestResponse();
      },
      after: (ms, fn) => this.after(ms, fn),
      logger: this.o.logger,
    });
    this.keypad = handoff.keypadInput ? new KeypadBuffer((text) => this.sendUserText(text), (ms, fn) => this.after(ms, fn)) : null;
    this.toolCalls = new ToolCalls({
      builtIns: this.builtIns,
      catalog: new ToolCatalog(this.o.assistant.tools, RESERVED_TOOL_NAMES),
      runner: this.o.toolRunner,
      transcript: this.transcript,
      now: this.o.now,
      signal: this.abort.signal,
      timeoutMs: this.o.toolTimeoutMs,
      after: (ms, fn) => this.after(ms, fn),
    });
    this.events = new ProviderEvents({
      assistant: this.o.assistant,
      transport: this.o.transport,
      transcript: this.transcript,
      playback: this.playback,
      responses: this.responses,
      toolCalls: this.toolCalls,
      usage: this.usage,
      supervision: this.supervision,
      recorder: this.recorder,
      audio: this.audio,
      builtIns: this.builtIns,
      logger: this.o.logger,
      provider: () => this.o.provider,
      renewal: () => this.renewal,
      phase: () => this.phase,
      ending: () => this.ending !== null,
      activate: () => this.activate(),
      status: (text, addLine) => this.status(text, addLine),
      fail: (message) => this.providerFailed(message),
      requestResponse: () => this.requestResponse(),
      saveProgress: () => void saveCallProgress(this.o, this.record, this.progress.take()),
      elapsed: () => this.elapsed(),
    });
    const newProvider = this.o.newProvider;
    this.renewal = newProvider
      ? new SessionRenewal({
          current: () => this.o.provider,
          newProvider,
          handlersFor: (provider) => this.events.handlersFor(provider),
          sessionConfig: () => this.events.sessionConfig(),
          context: () => contextItems(this.transcript.entries()),
          quiet: () => !this.responses.isActive && !this.toolCalls.pending,
          swap: (provider) => {
            this.o.provider = provider;
            this.responses.reset();
          },
          fail: (reason) => {
            this.status("Connection failed", false);
            this.transcript.system(`Connection failed: ${reason}`, true);
            this.providerFailed(reason);
          },
          after: (ms, fn) => this.after(ms, fn),
          connectTimeoutMs: this.o.connectTimeoutMs,
          renewBeforeMs: this.o.renewBeforeExpiryMs,
          logger: this.o.logger,
        })
      : null;
  }

  get state(): CallState | "idle" {
    return this.phase;
  }

  /** Attach to both sides, insert the call record and open the provider session. */
  start(): void {
    if (this.phase !== "idle") return;
    this.phase = "connecting";
    this.startedAt = this.o.now();
    const { transport, provider, assistant } = this.o;
    transport.start(this.transportHandlers);
    this.status("Connecting...");
    provider.connect(this.events.handlersFor(provider));
    this.after(this.o.connectTimeoutMs, () => {
      if (this.phase !== "connecting") return;
      this.status("Connection failed", false);
      this.transcript.system("Connection failed: the provider did not answer in time", true);
      void this.end("Connection timed out", true);
    });
    this.record = this.o.store
      .insert({
        assistantId: assistant.id,
        assistantVersion: assistant.version ?? null,
        organizationId: this.o.organizationId,
        startTime: new Date(this.startedAt).toISOString(),
        logs: { isTest: this.o.isTest, transcript: [], toolsUsed: [] },
        phone: this.o.phone,
      })
      .then(
        (id) => {
          if (!this.ending) {
            transport.send({ type: "started", callId: id });
            this.supervision.begin(id, this.startedAt);
          }
          this.recording.open(this.o.openRecording, recordingKey(id));
          return id;
        },
        (err: unknown) => {
          this.o.logger.error({ err }, "call record insert failed");
          transport.send({ type: "error", message: "Failed to create call record in database" });
          void this.end("Failed to create call record in database", true);
          return null;
        },
      );
  }

  /** End the call (user, panel, server shutdown, ...). Idempotent: later calls get the first outcome. */
  close(reason: string): Promise<CallOutcome> {
    return this.end(reason, false);
  }

  /** A typed message: a user entry, then a response. Blocked when blank or not active. */
  sendUserText(text: string): boolean {
    const content = text.trim();
    if (content === "") return false;
    if (this.phase !== "active") {
      this.o.transport.send({ type: "error", message: "WebSocket is not connected" });
      return false;
    }
    const sent = this.o.provider.createItem({ type: "message", role: "user", content: [{ type: "input_text", text: content }] });
    if (!sent) {
      this.o.transport.send({ type: "error", message: "Failed to send message" });
      return false;
    }
    this.transcript.user(content);
    this.requestResponse();
    return true;
  }

  // -------------------------------------------------------------------------
  // Plumbing

  private after(ms: number, fn: () => void): () => void {
    const timer = setTimeout(() => {
      this.timers.delete(timer);
      fn();
    }, ms);
    this.timers.add(timer);
    return () => {
      clearTimeout(timer);
      this.timers.delete(timer);
    };
  }

  private elapsed(): number {
    return this.o.now() - this.startedAt;
  }

  /** What the record keeps of the call so far. */
  private logs(): CallLogs {
    const turns = this.o.provider.turns?.() ?? [];
    const serviceUsage = this.o.provider.serviceUsage?.() ?? null;
    return {
      isTest: this.o.isTest,
      transcript: this.transcript.entries(),
      toolsUsed: [...this.toolCalls.used],
      ...(turns.length > 0 ? { turns } : {}),
      ...(serviceUsage ? { serviceUsage } : {}),
    };
  }

  /** Status line; texts with "error"/"fail" also add an error system line (spec §4) unless the caller adds a better one. */
  private status(text: string, addLine = true): void {
    this.lastStatus = text;
    this.o.transport.send({ type: "status", state: this.phase === "idle" ? "connecting" : this.phase, text });
    if (addLine && /error|fail/i.test(text)) this.transcript.system(text, true);
  }

  /** The provider's side ended the call: a phone call's ended reason names the provider. */
  private providerFailed(message: string): void {
    void this.end(this.o.isTest ? message : providerErrorReason(message), true);
  }

  private requestResponse(options?: Parameters<ResponseQueue["request"]>[0]): void {
    // While a supervisor has taken over, the assistant stays silent whatever asks it to speak.
    if (!this.ending && this.phase === "active" && this.supervision.assistantAnswers) this.responses.request(options);
  }

  // -------------------------------------------------------------------------
  // Caller side

  private readonly transportHandlers: TransportHandlers = {
    audio: (chunk) => {
      if (!this.ending) this.audio.fromCaller(chunk);
    },
    userText: (text) => {
      if (!this.ending) this.sendUserText(text);
    },
    playback: (itemId, playedMs) => this.playback.played(itemId, playedMs),
    keypad: (digit) => {
      if (!this.ending) this.keypad?.press(digit);
    },
    end: (reason: UserEndReason) => void this.close(reason),
    disconnect: (left) => void this.end(this.builtIns.leavingReason ?? left.reason, false, left.lastHeardAt),
  };

  private activate(): void {
    this.phase = "active";
    this.connected = true;
    this.status(`Connected to ${this.o.assistant.name}`);
    const first = this.o.assistant.firstMessage?.trim();
    if (first) this.requestResponse({ instructions: greetingInstructions(first), tool_choice: "none" });
    // After the greeting's request, so the first message is spoken first.
    this.audio.providerReady();
    // Keys pressed while it connected go to the model now (after the greeting's request).
    this.keypad?.live();
  }

  // -------------------------------------------------------------------------
  // Live board (supervision.ts decides; this only carries it out)

  private supervised(): SupervisedCall {
    let supervisorItems = 0;
    return {
      instruct: (text) => !this.ending && this.phase === "active" && this.o.provider.createItem({ type: "message", role: "system", content: [{ type: "input_text", text }] }),
      silence: () => {
        if (this.ending) return;
        supervisorItems += 1;
        this.events.bargeIn();
        this.o.provider.updateSession(answersUpdate(false));
      },
      resume: (context) => {
        if (this.ending) return;
        this.o.provider.updateSession(answersUpdate(true));
        if (this.o.provider.createItem({ type: "message", role: "system", content: [{ type: "input_text", text: context }] })) this.requestResponse();
      },
      heardCallerWhileSilenced: () => this.o.provider.hearsCallerWhileSilenced !== false,
      speak: (samples) => {
        if (this.ending) return;
        this.audio.fromSupervisor(`supervisor_${supervisorItems}`, samples);
      },
      note: (content, supervisor) => void this.transcript.supervisorNote(content, supervisor),
      end: (reason) => void this.close(reason),
      transcript: () => this.transcript.snapshot(),
      toolsUsed: () => [...this.toolCalls.used],
    };
  }

  // -------------------------------------------------------------------------
  // The one way out

  /** `endedAt`: when the caller was last heard from, for a caller found gone late (Unix ms). */
  private end(reason: string, failed: boolean, endedAt?: number): Promise<CallOutcome> {
    // Set synchronously, before any of finalise() runs: closing the provider and the
    // transport calls back into the handlers, which must already see the call as ending.
    // Never rejects: every exit path starts it without awaiting (`void this.end(…)`), and `closed`
    // must settle whatever fails, or shutdown's drain would wait on it to the end of its time.
    this.ending ??= Promise.resolve()
      .then(() => this.finalise(reason, failed, endedAt))
      .catch((err: unknown) => {
        this.o.logger.error({ err }, "ending the call failed; its record may be left open");
        const at = new Date(this.o.now()).toISOString();
        const outcome: CallOutcome = { callId: null, reason, startTime: new Date(this.startedAt).toISOString(), endTime: at, durationMs: 0, cost: 0, recording: null, logs: this.logs(), verified: false };
        this.resolveClosed(outcome);
        return outcome;
      });
    return this.ending;
  }

  private async finalise(reason: string, failed: boolean, lastHeardAt?: number): Promise<CallOutcome> {
    if (this.phase === "idle") this.startedAt = this.o.now();
    this.phase = "ended";
    // Off the board at once: the record and the recording may take a while to finish.
    this.supervision.end(reason);
    const endedAt = Math.max(this.startedAt, Math.min(this.o.now(), lastHeardAt ?? Infinity));
    for (const timer of this.timers) clearTimeout(timer);
    this.timers.clear();
    this.abort.abort();
    this.renewal?.stop();
    this.o.provider.close(1000, "Call ended");
    // The engine's usage is final only once its services have reported (Deepgram bills the audio it says it got).
    await this.o.provider.settled?.();

    const outcome = await finishCall({
      ...this.o,
      reason, failed, lastStatus: this.lastStatus, connected: this.connected, startedAt: this.startedAt, endedAt,
      record: this.record, recorder: this.recorder, recording: this.recording, usage: this.usage, logs: () => this.logs(),
      providerCost: () => this.o.provider.providerCost?.() ?? null,
    });
    this.resolveClosed(outcome);
    return outcome;
  }
}
