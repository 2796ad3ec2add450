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
 */
import { callCost, type CallLogs, type CallState, type UserEndReason } from "../../shared/calls.ts";
import { decodeToPcm16, durationMsOf, sampleRateOf } from "./audio.ts";
import { finishCallRecord, saveCallProgress } from "./call-record.ts";
import type { CallOutcome, CallSessionOptions } from "./call-session-types.ts";
import { PlaybackLedger } from "./playback.ts";
import type { RealtimeProviderHandlers } from "./providers/openai-realtime.ts";
import { buildSessionConfig, type RealtimeServerEvent } from "./providers/realtime-protocol.ts";
import { CallRecorder } from "./recorder.ts";
import { ResponseQueue } from "./response-queue.ts";
import { silentLogger, type SessionLogger, type TransportHandlers } from "./seams.ts";
import { ToolCalls } from "./tool-calls.ts";
import { ToolCatalog } from "./tool-resolution.ts";
import { TranscriptBuilder } from "./transcript.ts";

export type { CallAssistant, CallOutcome, CallSessionOptions } from "./call-session-types.ts";

type ProviderError = Extract<RealtimeServerEvent, { type: "error" }>["error"];
type ProviderResponse = Extract<RealtimeServerEvent, { type: "response.done" }>["response"];

export function greetingInstructions(firstMessage: string): string {
  return `Greet the caller by saying exactly the following text, word for word, and nothing else:\n"${firstMessage}"`;
}

export class CallSession {
  private readonly o: Required<Omit<CallSessionOptions, "logger">> & { logger: SessionLogger };
  private readonly transcript: TranscriptBuilder;
  private readonly toolCalls: ToolCalls;
  private readonly recorder: CallRecorder;
  private readonly abort = new AbortController();
  private readonly timers = new Set<NodeJS.Timeout>();
  private readonly playback = new PlaybackLedger();
  private readonly responses: ResponseQueue;
  private phase: CallState | "idle" = "idle";
  private startedAt = 0;
  private connected = false;
  private record: Promise<string | null> = Promise.resolve(null);
  private ending: Promise<CallOutcome> | null = null;
  private resolveClosed!: (outcome: CallOutcome) => void;
  private lastStatus = "";
  private lastProviderError: string | null = null;
  /** Resolves with the outcome once the call is closed and its record finalised. */
  readonly closed: Promise<CallOutcome>;

  constructor(options: CallSessionOptions) {
    this.o = {
      ...options,
      now: options.now ?? Date.now,
      connectTimeoutMs: options.connectTimeoutMs ?? 15_000,
      toolTimeoutMs: options.toolTimeoutMs ?? 30_000,
      logger: options.logger ?? silentLogger,
    };
    this.closed = new Promise((resolve) => (this.resolveClosed = resolve));
    this.transcript = new TranscriptBuilder(this.o.now, (index, entry) =>
      this.o.transport.send({ type: "transcript", index, entry }),
    );
    this.recorder = new CallRecorder(sampleRateOf(this.o.transport.audioFormat));
    this.responses = new ResponseQueue((response) => this.o.provider.createResponse(response));
    this.toolCalls = new ToolCalls({
      catalog: new ToolCatalog(this.o.assistant.tools),
      runner: this.o.toolRunner,
      transcript: this.transcript,
      now: this.o.now,
      signal: this.abort.signal,
      timeoutMs: this.o.toolTimeoutMs,
      after: (ms, fn) => this.after(ms, fn),
    });
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
    provider.connect(this.providerHandlers);
    this.after(this.o.connectTimeoutMs, () => {
      if (this.phase !== "connecting") return;
      this.status("Connection failed", false);
      this.transcript.system("Connection failed: the provider did not answer in time", true);
      void this.end("Connection timed out", true);
    });
    this.record = this.o.store
      .insert({
        assistantId: assistant.id,
        userId: this.o.userId,
        startTime: new Date(this.startedAt).toISOString(),
        logs: { isTest: this.o.isTest, transcript: [], toolsUsed: [] },
      })
      .then(
        (id) => {
          if (!this.ending) transport.send({ type: "started", callId: id });
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

  /** Status line; texts with "error"/"fail" also add an error system line (spec §4) unless the caller adds a better one. */
  private status(text: string, addLine = true): void {
    this.lastStatus = text;
    this.o.transport.send({ type: "status", state: this.phase === "idle" ? "connecting" : this.phase, text });
    if (addLine && /error|fail/i.test(text)) this.transcript.system(text, true);
  }

  private requestResponse(options?: Parameters<ResponseQueue["request"]>[0]): void {
    if (!this.ending && this.phase === "active") this.responses.request(options);
  }

  // -------------------------------------------------------------------------
  // Caller side

  private readonly transportHandlers: TransportHandlers = {
    audio: (chunk) => {
      if (this.ending) return;
      const format = this.o.transport.audioFormat;
      // PCM16 frames must hold whole samples, or every later sample is misread.
      const audio = format === "audio/pcm" && chunk.length % 2 === 1 ? chunk.subarray(0, chunk.length - 1) : chunk;
      this.recorder.addCaller(decodeToPcm16(format, audio), this.elapsed());
      if (this.phase === "active") this.o.provider.appendAudio(audio);
    },
    userText: (text) => {
      if (!this.ending) this.sendUserText(text);
    },
    playback: (itemId, playedMs) => this.playback.played(itemId, playedMs),
    end: (reason: UserEndReason) => void this.close(reason),
    disconnect: () => void this.end("Client disconnected", false),
  };

  // -------------------------------------------------------------------------
  // Provider side

  private readonly providerHandlers: RealtimeProviderHandlers = {
    open: () => {
      if (this.ending) return;
      const { assistant, transport, provider } = this.o;
      provider.updateSession(
        buildSessionConfig({
          model: assistant.model,
          instructions: assistant.instructions,
          voice: assistant.voice,
          format: transport.audioFormat,
          tools: new ToolCatalog(assistant.tools).providerTools(),
        }),
      );
    },
    event: (event) => {
      if (!this.ending) this.onProviderEvent(event);
    },
    error: (message, beforeOpen) => {
      if (this.ending) return;
      if (beforeOpen) {
        this.status("Connection failed", false);
        this.transcript.system(`Connection failed: ${message}`, true);
        void this.end(message, true);
        return;
      }
      this.lastProviderError = message;
      this.status("Connection error", false);
      this.transcript.system(`Connection error: ${message}`, true);
    },
    close: (code, reason) => {
      if (this.ending) return;
      this.status(`Disconnected (${code}) - ${reason}`);
      if (code === 1000) this.transcript.system("Session ended normally");
      void this.end(reason || this.lastProviderError || `Disconnected (${code})`, true);
    },
  };

  private onProviderEvent(event: RealtimeServerEvent): void {
    switch (event.type) {
      case "session.created":
      case "input_audio_buffer.speech_stopped":
        break;
      case "session.updated":
        if (this.phase === "connecting") this.activate();
        break;
      case "error":
        this.onProviderError(event.error);
        break;
      case "response.created":
        this.responses.created();
        this.status("Assistant is responding");
        break;
      case "response.done":
        this.onResponseDone(event.response);
        break;
      case "response.output_item.added":
        this.toolCalls.item(event.response_id, event.item, false);
        break;
      case "response.output_item.done":
        this.toolCalls.item(event.response_id, event.item, true);
        break;
      case "response.function_call_arguments.delta":
        this.toolCalls.delta(event.response_id, event.call_id, event.delta);
        break;
      case "response.function_call_arguments.done":
        this.toolCalls.argumentsDone(event.response_id, event.call_id, event.name, event.arguments);
        break;
      case "response.output_audio.delta":
        this.onAssistantAudio(event.item_id, event.delta);
        break;
      case "response.output_audio.done":
        this.playback.audioDone(event.item_id);
        break;
      case "response.output_audio_transcript.delta":
      case "response.output_text.delta":
        // After a barge-in the rest of the text was never heard: the entry is flagged instead.
        if (!this.playback.isInterrupted(event.item_id)) this.transcript.assistantPiece(event.delta, event.item_id);
        break;
      case "response.output_audio_transcript.done":
        if (!this.playback.isInterrupted(event.item_id)) this.transcript.assistantDone(event.item_id, event.transcript);
        break;
      case "input_audio_buffer.speech_started":
        this.bargeIn();
        break;
      case "input_audio_buffer.committed":
        this.transcript.reserveUser(event.item_id);
        break;
      case "conversation.item.input_audio_transcription.completed":
        this.transcript.fillUser(event.item_id, event.transcript);
        break;
      case "conversation.item.input_audio_transcription.failed":
        this.transcript.fillUser(event.item_id, `(transcription failed: ${event.error?.message ?? "unknown error"})`, true);
        break;
      case "conversation.item.truncated":
        this.transcript.markInterrupted(event.item_id, event.audio_end_ms);
        break;
    }
  }

  private activate(): void {
    this.phase = "active";
    this.connected = true;
    this.status(`Connected to ${this.o.assistant.name}`);
    const first = this.o.assistant.firstMessage?.trim();
    if (first) this.requestResponse({ instructions: greetingInstructions(first), tool_choice: "none" });
  }

  private onProviderError(error: ProviderError): void {
    const message = error.message;
    if (error.code === "conversation_already_has_active_response") {
      // Raced a response the server started itself (VAD): ask again when that one is done.
      this.responses.refusedAsActive();
      return;
    }
    this.lastProviderError = message;
    this.status(`Error: ${message}`, false);
    this.transcript.system(`Error from the provider: ${message}`, true);
    // The 60-minute cap: the provider closes the session right after this event.
    if (error.code === "session_expired") void this.end(message, true);
  }

  private onResponseDone(response: ProviderResponse): void {
    this.status("Assistant finished responding");
    if (response.status === "failed") {
      const message = response.status_details?.error?.message ?? "The response failed";
      this.transcript.system(`Error from the provider: ${message}`, true);
    }
    const outputs = this.toolCalls.responseDone(response.id, response.output, (response.status ?? "completed") === "completed");
    if (outputs) {
      outputs.then(
        (items) => {
          if (this.ending) return;
          for (const item of items) this.o.provider.createItem(item);
          if (items.length > 0) this.requestResponse();
        },
        (err: unknown) => this.o.logger.error({ err }, "tool calls failed"),
      );
    }
    // A finished turn is saved at once, so a crash of this instance loses at most the next one.
    void saveCallProgress(this.o, this.record, { isTest: this.o.isTest, transcript: this.transcript.entries(), toolsUsed: [...this.toolCalls.used] });
    // Frees the slot; a request queued meanwhile (typed text, tool outputs ready) goes out now.
    this.responses.done();
  }

  private onAssistantAudio(itemId: string, base64: string): void {
    // Late deltas of an interrupted item must not reach the caller's (flushed) queue.
    if (this.playback.isInterrupted(itemId)) return;
    const format = this.o.transport.audioFormat;
    const audio = Buffer.from(base64, "base64");
    this.recorder.addAssistant(decodeToPcm16(format, audio), this.elapsed(), itemId);
    this.playback.sent(itemId, durationMsOf(format, audio.length));
    this.o.transport.sendAudio(itemId, audio);
  }

  /**
   * The caller started speaking: flush the caller's playback queue (always — it may hold
   * audio we believe played), and truncate the provider's item at what was actually heard.
   */
  private bargeIn(): void {
    this.o.transport.clearPlayback();
    const cut = this.playback.interrupt();
    if (!cut) return;
    this.o.provider.truncate(cut.itemId, cut.playedMs);
    this.recorder.cutAssistantItem(cut.itemId, cut.playedMs);
  }

  // -------------------------------------------------------------------------
  // The one way out

  private end(reason: string, failed: boolean): Promise<CallOutcome> {
    // Set synchronously, before any of finalise() runs: closing the provider and the
    // transport calls back into the handlers, which must already see the call as ending.
    this.ending ??= Promise.resolve().then(() => this.finalise(reason, failed));
    return this.ending;
  }

  private async finalise(reason: string, failed: boolean): Promise<CallOutcome> {
    if (this.phase === "idle") this.startedAt = this.o.now();
    this.phase = "ended";
    const endedAt = this.o.now();
    for (const timer of this.timers) clearTimeout(timer);
    this.timers.clear();
    this.abort.abort();
    this.o.provider.close(1000, "Call ended");

    const durationMs = Math.max(0, endedAt - this.startedAt);
    // A call that never reached the assistant is recorded (with its reason) but not billed.
    const cost = this.connected ? callCost(durationMs) : 0;
    const startTime = new Date(this.startedAt).toISOString();
    const endTime = new Date(endedAt).toISOString();
    this.recorder.trimAssistant(durationMs);
    const callId = await this.record;

    const logs: CallLogs = { isTest: this.o.isTest, transcript: this.transcript.entries(), toolsUsed: [...this.toolCalls.used] };
    const { recording, verified } = callId
      ? await finishCallRecord({ ...this.o, recorder: this.recorder, callId, endedAt, reason, cost, logs })
      : { recording: null, verified: false };
    if (callId && !verified) this.o.transport.send({ type: "error", message: "Failed to update call record" });

    const { transport } = this.o;
    transport.send({ type: "status", state: "ended", text: failed && this.lastStatus ? this.lastStatus : "Call completed" });
    transport.send({ type: "ended", callId, reason, durationMs, cost });
    transport.close(1000, reason);
    this.o.logger.info({ callId, reason, durationMs, cost, verified }, "call ended");
    const outcome: CallOutcome = { callId, reason, startTime, endTime, durationMs, cost, recording, logs, verified };
    this.resolveClosed(outcome);
    return outcome;
  }
}
