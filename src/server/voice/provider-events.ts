/**
 * The provider's side of one live call: how each Realtime session is configured, and what each
 * of its events means for the call's parts (transcript, playback, responses, tool calls, usage,
 * recording, the live board).
 *
 * The CallSession (call-session.ts) builds and owns those parts and the call's lifecycle; this
 * only acts on them, and ends the call only through the host (`fail`). Every handler goes quiet
 * once the call is ending: `close()` sets that synchronously, and closing the provider calls
 * back into these handlers. Handlers of a session a renewal has replaced go quiet as well
 * (`handlersFor`).
 */
import { LIVE_CALL_TEXTS, type CallState } from "../../shared/calls.ts";
import { builtInTools, DEFAULT_HANDOFF, RESERVED_TOOL_NAMES, type BuiltIns } from "./builtins.ts";
import type { CallAudioFormat } from "./audio.ts";
import type { CallAssistant } from "./call-session-types.ts";
import type { PlaybackLedger } from "./playback.ts";
import type { RealtimeProvider, RealtimeProviderHandlers } from "./providers/openai-realtime.ts";
import { buildSessionConfig, type RealtimeServerEvent, type RealtimeSessionConfig } from "./providers/realtime-protocol.ts";
import type { CallAudio } from "./call-audio.ts";
import type { CallRecorder } from "./recorder.ts";
import type { ResponseQueue } from "./response-queue.ts";
import type { SessionLogger, Transport } from "./seams.ts";
import type { SessionRenewal } from "./session-renewal.ts";
import type { CallSupervision } from "./supervision.ts";
import type { ToolCalls } from "./tool-calls.ts";
import { ToolCatalog } from "./tool-resolution.ts";
import type { TranscriptBuilder } from "./transcript.ts";
import type { UsageMeter } from "./usage-meter.ts";

type ProviderError = Extract<RealtimeServerEvent, { type: "error" }>["error"];
type ProviderResponse = Extract<RealtimeServerEvent, { type: "response.done" }>["response"];

/** The call as its provider side sees it: the parts it acts on, the state it reads, the exits it takes. */
export interface ProviderEventsHost {
  readonly assistant: CallAssistant;
  readonly transport: Transport;
  readonly transcript: TranscriptBuilder;
  readonly playback: PlaybackLedger;
  readonly responses: ResponseQueue;
  readonly toolCalls: ToolCalls;
  readonly usage: UsageMeter;
  readonly supervision: CallSupervision;
  readonly recorder: CallRecorder;
  readonly audio: CallAudio;
  readonly builtIns: BuiltIns;
  readonly logger: SessionLogger;
  /** The call's current provider session (a renewal replaces it). */
  provider(): RealtimeProvider;
  renewal(): SessionRenewal | null;
  phase(): CallState | "idle";
  /** `close()` has begun: nothing may act on the call any more. */
  ending(): boolean;
  /** The session is configured: the call goes live (greeting, early audio). */
  activate(): void;
  /** Status line; texts with "error"/"fail" also add an error system line unless `addLine` is false. */
  status(text: string, addLine?: boolean): void;
  /** The provider's side ended the call with this message. */
  fail(message: string): void;
  /** Ask for a response (held while a supervisor has taken over). */
  requestResponse(): void;
  /** A finished turn: save the transcript and tool calls so far. */
  saveProgress(): void;
  /** Ms since the call started (the recording's clock). */
  elapsed(): number;
}

/**
 * A call's provider session configuration, from the assistant, the caller's audio format and
 * whether the assistant answers (not while a supervisor has taken over). Also what a session
 * opened before its call is configured with (primed-provider.ts).
 */
export function callSessionConfig(assistant: CallAssistant, format: CallAudioFormat, answers: boolean): RealtimeSessionConfig {
  return buildSessionConfig({
    model: assistant.model,
    instructions: assistant.instructions,
    voice: assistant.voice,
    format,
    answers,
    tools: [...builtInTools(assistant.handoff ?? DEFAULT_HANDOFF), ...new ToolCatalog(assistant.tools, RESERVED_TOOL_NAMES).providerTools()],
  });
}

export class ProviderEvents {
  /** The ended reason of a session that then closes without giving one. */
  private lastProviderError: string | null = null;

  constructor(private readonly call: ProviderEventsHost) {}

  /** The session's handlers for `provider`: silent unless it is the call's current session. */
  handlersFor(provider: RealtimeProvider): RealtimeProviderHandlers {
    const h = this.handlers;
    const current = () => provider === this.call.provider();
    return {
      open: () => current() && h.open(),
      event: (event) => current() && h.event(event),
      error: (message, beforeOpen) => current() && h.error(message, beforeOpen),
      close: (code, reason) => current() && h.close(code, reason),
    };
  }

  /** The same session configuration for every provider session of the call. */
  sessionConfig(): RealtimeSessionConfig {
    return callSessionConfig(this.call.assistant, this.call.transport.audioFormat, this.call.supervision.assistantAnswers);
  }

  private readonly handlers: RealtimeProviderHandlers = {
    open: () => {
      if (!this.call.ending()) this.call.provider().updateSession(this.sessionConfig());
    },
    event: (event) => {
      if (!this.call.ending()) this.onProviderEvent(event);
      // The caller's last words, committed as the engine's session closes at the call's end (the
      // record is written after it has closed), still go into the transcript.
      else if (event.type === "input_audio_buffer.committed" || event.type === "conversation.item.input_audio_transcription.completed") this.handleProviderEvent(event);
    },
    error: (message, beforeOpen) => {
      if (this.call.ending()) return;
      if (beforeOpen) {
        this.call.status("Connection failed", false);
        this.call.transcript.system(`Connection failed: ${message}`, true);
        this.call.fail(message);
        return;
      }
      this.lastProviderError = message;
      this.call.status("Connection error", false);
      this.call.transcript.system(`Connection error: ${message}`, true);
    },
    close: (code, reason) => {
      if (this.call.ending()) return;
      // A session that ends under a live call is replaced, not the end of the call; only a
      // normal close (1000) is taken as the provider meaning to end it.
      if (code !== 1000 && this.call.phase() === "active" && this.call.renewal()?.recover(reason || `Disconnected (${code})`)) return;
      this.call.status(`Disconnected (${code}) - ${reason}`);
      if (code === 1000) this.call.transcript.system(LIVE_CALL_TEXTS.sessionEndedNormally);
      this.call.fail(reason || this.lastProviderError || `Disconnected (${code})`);
    },
  };

  private onProviderEvent(event: RealtimeServerEvent): void {
    this.handleProviderEvent(event);
    if (!this.call.ending()) this.call.renewal()?.observe(event);
  }

  private handleProviderEvent(event: RealtimeServerEvent): void {
    const { transcript, playback, toolCalls } = this.call;
    switch (event.type) {
      case "session.created":
      case "input_audio_buffer.speech_stopped":
        break;
      case "session.updated":
        if (this.call.phase() === "connecting") this.call.activate();
        break;
      case "error":
        this.onProviderError(event.error);
        break;
      case "response.created":
        this.call.responses.created();
        playback.responseStarted(event.response.id);
        // One the provider started as a supervisor took over (before answers went off): stopped.
        if (!this.call.supervision.assistantAnswers) this.call.provider().cancelResponse();
        this.call.status("Assistant is responding");
        break;
      case "response.done":
        playback.responseDone(event.response.id);
        this.call.usage.response(event.response.usage);
        this.onResponseDone(event.response);
        break;
      case "response.output_item.added":
        toolCalls.item(event.response_id, event.item, false);
        break;
      case "response.output_item.done":
        toolCalls.item(event.response_id, event.item, true);
        break;
      case "response.function_call_arguments.delta":
        toolCalls.delta(event.response_id, event.call_id, event.delta);
        break;
      case "response.function_call_arguments.done":
        toolCalls.argumentsDone(event.response_id, event.call_id, event.name, event.arguments);
        break;
      case "response.output_audio.delta":
        this.onAssistantAudio(event.response_id, event.item_id, event.delta);
        break;
      case "response.output_audio.done":
        this.call.audio.assistantDone(event.item_id);
        break;
      case "response.output_audio_transcript.delta":
      case "response.output_text.delta":
        // After a barge-in the rest of the text was never heard: the entry is flagged instead.
        // An item cut before its first piece still gets its entry (flagged), or it would vanish.
        if (this.takesText(event.item_id)) transcript.assistantPiece(event.delta, event.item_id);
        break;
      case "response.output_audio_transcript.done":
        if (this.takesText(event.item_id)) transcript.assistantDone(event.item_id, event.transcript);
        break;
      case "input_audio_buffer.speech_started":
        // While a supervisor talks, the caller speaking over them must not flush their voice.
        if (this.call.supervision.assistantAnswers) this.bargeIn();
        break;
      case "input_audio_buffer.committed":
        transcript.reserveUser(event.item_id);
        break;
      case "conversation.item.input_audio_transcription.completed":
        this.call.usage.transcribed(event.usage);
        transcript.fillUser(event.item_id, event.transcript);
        break;
      case "conversation.item.input_audio_transcription.failed":
        transcript.fillUser(event.item_id, `(transcription failed: ${event.error?.message ?? "unknown error"})`, true);
        break;
      case "conversation.item.truncated":
        transcript.markInterrupted(event.item_id, event.audio_end_ms);
        break;
    }
  }

  private onProviderError(error: ProviderError): void {
    const message = error.message;
    // Our barge-in cancel raced the response's own end: nothing was left to cancel.
    if (error.code === "response_cancel_not_active") return;
    // The 60-minute cap (or an earlier one): the provider closes the session right after this.
    if (error.code === "session_expired" && this.call.phase() === "active" && this.call.renewal()?.recover(message)) return;
    if (error.code === "conversation_already_has_active_response") {
      // Raced a response the server started itself (VAD): ask again when that one is done.
      this.call.responses.refusedAsActive();
      return;
    }
    // Errors name the client event that caused them: that decides what is now broken.
    const cause = error.event_id ? this.call.provider().clientEventType(error.event_id) : undefined;
    if (cause === "session.update" && this.call.phase() === "connecting") {
      // Nothing will make this session usable: say why at once instead of timing out.
      const reason = `Failed to initialize session: ${message}`;
      this.lastProviderError = reason;
      this.call.status("Connection failed", false);
      this.call.transcript.system(reason, true);
      this.call.fail(reason);
      return;
    }
    // A refused response.create never becomes a response: free the slot, or every later
    // request (typed text, tool outputs) waits behind it for ever.
    if (cause === "response.create") this.call.responses.refused();
    this.lastProviderError = message;
    this.call.status(`Error: ${message}`, false);
    this.call.transcript.system(`Error from the provider: ${message}`, true);
    // The 60-minute cap: the provider closes the session right after this event.
    if (error.code === "session_expired") this.call.fail(message);
  }

  /** Text of an assistant item goes to the transcript unless the item was cut after some text was shown. */
  private takesText(itemId: string): boolean {
    return !this.call.playback.isInterrupted(itemId) || !this.call.transcript.hasAssistantItem(itemId);
  }

  private onResponseDone(response: ProviderResponse): void {
    const { transcript, playback } = this.call;
    this.call.status("Assistant finished responding");
    // A response cancelled by a barge-in lists what its cut item had generated; if none of that
    // text had streamed yet, it is the only text the item will ever have.
    for (const item of response.output ?? []) {
      if (item.type !== "message" || item.id === undefined || !playback.isInterrupted(item.id)) continue;
      const spoken = item.content?.find((part) => typeof part.transcript === "string" && part.transcript !== "")?.transcript;
      if (spoken) transcript.assistantDone(item.id, spoken);
    }
    if (response.status === "failed") {
      const message = response.status_details?.error?.message ?? "The response failed";
      transcript.system(`Error from the provider: ${message}`, true);
    }
    const outputs = this.call.toolCalls.responseDone(response.id, response.output, (response.status ?? "completed") === "completed");
    if (outputs) {
      outputs.then(
        (items) => {
          if (this.call.ending()) return;
          for (const item of items) this.call.provider().createItem(item);
          // After end_call / transfer_call the assistant has had its last word.
          if (items.length > 0 && !this.call.builtIns.finishing) this.call.requestResponse();
        },
        (err: unknown) => this.call.logger.error({ err }, "tool calls failed"),
      );
    }
    // A finished turn is saved at once, so a crash of this instance loses at most the next one.
    this.call.saveProgress();
    // Frees the slot; a request queued meanwhile (typed text, tool outputs ready) goes out now.
    this.call.responses.done();
  }

  private onAssistantAudio(responseId: string, itemId: string, base64: string): void {
    // Late deltas of an interrupted item or a cancelled response must not reach the caller's
    // (flushed) queue; nor does anything the assistant says while a supervisor has the call.
    if (!this.call.playback.accepts(itemId, responseId) || !this.call.supervision.assistantAnswers) return;
    this.call.audio.fromAssistant(itemId, base64);
  }

  /**
   * The caller started speaking (protocols §1.9, Algorithm B): flush the caller's playback
   * queue (always — it may hold audio we believe played), cancel the active response, and
   * truncate every item not heard in full at what was really heard — once the transport's
   * figures are final (Twilio: at once; browser: its flush report). A supervisor taking over
   * silences the assistant the same way.
   */
  bargeIn(): void {
    const { playback, transport } = this.call;
    const interrupted = playback.interrupt();
    // Now, not at the provider's truncated event: that waits for the flush report, and the
    // next turn's text may stream before it.
    this.call.transcript.cutOff(interrupted);
    this.call.supervision.playbackCleared();
    if (this.call.responses.isActive) this.call.provider().cancelResponse();
    transport.clearPlayback(() => {
      if (this.call.ending()) return;
      const cuts = playback.truncations(interrupted);
      for (const cut of cuts) this.call.provider().truncate(cut.itemId, cut.audioEndMs);
      // The recording keeps what was heard of the first; everything after it was flushed unplayed.
      const first = cuts[0];
      if (first) this.call.recorder.cutAssistantItem(first.itemId, first.audioEndMs);
    });
  }
}
