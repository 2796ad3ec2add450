/**
 * The pipeline engine: a transcriber (Deepgram or OpenAI's streaming transcription), a language
 * model (Chat Completions or Anthropic Messages) and a voice (ElevenLabs, Cartesia or an
 * OpenAI-compatible speech endpoint) behind the same seam as OpenAI Realtime (`RealtimeProvider`, ADR 065). The call
 * session drives it as it drives Realtime, and it answers in the same events, so the transcript,
 * tools, built-ins, barge-in, recording and the live board work unchanged:
 *
 * - the caller's speech starts a turn (`speech_started`: the session's barge-in flushes the phone and
 *   cancels the reply) as soon as either the voice activity detector hears it (Silero VAD, at least
 *   250 ms of speech: voice-activity.ts, ADR 078) or the transcriber sends its first words; the
 *   turn ends (`committed` + the transcript, and the model is asked for a reply) on the
 *   transcriber's endpoint or on the VAD's silence, as the engine's `turn_end` says;
 * - the reply streams from the model sentence by sentence into the voice, and each sentence's
 *   audio goes to the caller as it comes (first audio before the reply is finished);
 * - tool calls come back as `function_call` items; their outputs return through `createItem`;
 * - `truncate(item, ms)` keeps in the model's context only the words the caller heard: the
 *   sentences played in full, and the share of the one cut off by the time heard of it.
 */
import { randomUUID } from "node:crypto";
import { bytesPerMs, wireBytes, type CallAudioFormat, type WireAudio } from "../audio.ts";
import type { RealtimeProvider, RealtimeProviderHandlers } from "../providers/openai-realtime.ts";
import type { ConversationItem, RealtimeItem, RealtimeServerEvent, RealtimeSessionConfig, RealtimeSessionUpdate, ResponseOptions } from "../providers/realtime-protocol.ts";
import { streamChat, type ChatMessage, type ChatTool, type ChatToolCall } from "./chat-completions.ts";
import { streamAnthropic } from "./anthropic-messages.ts";
import { VOICE_ENGINE_MESSAGES } from "../../../shared/providers.ts";
import type { ServiceUsage, TurnLatency } from "../../../shared/calls.ts";
import type { ProviderCost } from "../../../shared/call-records.ts";
import { pipelineCost, type PricedPipeline } from "../../../shared/service-prices.ts";
import { ServiceError } from "./service-error.ts";
import { createTranscriber, type Transcriber, type TranscriberOptions } from "./transcriber.ts";
import { createVoice, type Voice, type VoiceOptions } from "./voice.ts";
import { VoiceActivity } from "./voice-activity.ts";
import type { TurnEnd } from "../../../shared/providers.ts";

export interface PipelineService {
  baseUrl: string;
  apiKey: string;
}

export interface PipelineOptions {
  format: CallAudioFormat;
  transcriber: Omit<TranscriberOptions, "format">;
  /** Chat Completions (any OpenAI-compatible endpoint) or Anthropic Messages. */
  model: PipelineService & { model: string; protocol?: "openai-compatible" | "anthropic" };
  voice: VoiceOptions;
  /** The first message, spoken as it is written (no model round trip). */
  firstMessage?: string | null;
  /** The per-response instructions the session sends for the first message (call-session.ts). */
  greetingInstructions?: string | null;
  /** How each service is priced (its protocol, model and the provider's own unit price). */
  prices?: PricedPipeline;
  /** How long the model or the voice may go without a word or a sound before the turn fails. */
  timeoutMs?: number;
  /** What ends the caller's turn: the transcriber's endpoint (the default) or the VAD's silence. */
  turnEnd?: TurnEnd;
}

const DEFAULT_TIMEOUT_MS = 15_000;

/** What was spoken of an assistant item, sentence by sentence, with each one's audio length. */
interface SpokenItem {
  id: string;
  sentences: Array<{ text: string; ms: number }>;
  /** Its message in the model's context, rewritten by a truncation. */
  message: Extract<ChatMessage, { role: "assistant" }> | null;
  /** Where the caller stopped hearing it (a barge-in), once known. */
  cutAtMs?: number;
}

/** A caller turn being timed: the reply it started, and when each stage first happened. */
interface TimedTurn {
  speechEnded: number;
  transcript: number;
  firstToken?: number;
  firstVoiceAudio?: number;
  firstAudioSent?: number;
  /** The assistant item answering it (for the transport's first audio sent). */
  itemId?: string;
}

interface ActiveResponse {
  id: string;
  /** The caller turn this reply answers (none for the first message or a session-asked reply). */
  turn: TimedTurn | null;
  abort: AbortController;
  item: SpokenItem | null;
  cancelled: boolean;
}

const SENTENCE_END = /([.!?…]+["')\]]?)(\s+)/;

export class PipelineSession implements RealtimeProvider {
  private handlers: RealtimeProviderHandlers | null = null;
  private readonly transcriber: Transcriber;
  private readonly voice: Voice;
  private instructions = "";
  private tools: ChatTool[] = [];
  private answers = true;
  private readonly messages: ChatMessage[] = [];
  private readonly items = new Map<string, SpokenItem>();
  private active: ActiveResponse | null = null;
  /** A turn that ended while a reply was still running: answered when it finishes. */
  private turnWaiting = false;
  private heard: string[] = [];
  /** The transcriber's latest interim text since its last final (a VAD-ended turn's last words). */
  private interim = "";
  /** A VAD-ended turn took interim words: the transcriber's results for them, still to come, are dropped. */
  private dropUntilFinal = false;
  private readonly vad: VoiceActivity;
  private userItem: string | null = null;
  private counter = 0;
  private closed = false;
  /** The seam's call ids (which must start with `call_`) to the model's own (Anthropic's are `toolu_…`). */
  private readonly callIds = new Map<string, string>();
  private readonly began = performance.now();
  /** Audio handed to the transcriber, and characters sent to the voice (what those services bill). */
  private transcribedBytes = 0;
  private voicedCharacters = 0;
  /** The model's tokens as it reported them (`input` includes `cached`). */
  private readonly modelTokens = { input: 0, cached: 0, output: 0 };
  private readonly timed: TimedTurn[] = [];
  /** The last caller turn, until a reply takes it. */
  private turnToAnswer: TimedTurn | null = null;

  constructor(private readonly o: PipelineOptions) {
    this.transcriber = createTranscriber({ ...o.transcriber, format: o.format });
    this.voice = createVoice({ ...o.voice, format: o.format });
    this.vad = new VoiceActivity(
      { format: o.format },
      {
        speechStarted: (startMs) => this.onSpeechStarted(startMs),
        speechStopped: () => this.onSilence(),
        // Without the model the transcriber alone still starts and ends turns.
        failed: (err) => this.handlers && !this.closed && this.handlers.error(`Voice activity detection stopped: ${err instanceof Error ? err.message : String(err)}`, false),
      },
    );
  }

  get isOpen(): boolean {
    return !this.closed && this.transcriber.isOpen;
  }

  private emit(event: RealtimeServerEvent): void {
    if (!this.closed) this.handlers?.event(event);
  }

  private id(prefix: string): string {
    this.counter += 1;
    return `${prefix}_${this.counter}_${randomUUID().slice(0, 8)}`;
  }

  connect(handlers: RealtimeProviderHandlers): void {
    this.handlers = handlers;
    this.transcriber.connect({
      open: () => handlers.open(),
      words: (text, final, start) => this.onWords(text, final, start),
      turnEnd: () => this.onTurnEnd(),
      error: (message, beforeOpen) => !this.closed && handlers.error(message, beforeOpen),
      close: (code, reason) => {
        this.abortActive();
        handlers.close(code, reason);
      },
    });
  }

  updateSession(session: RealtimeSessionConfig | RealtimeSessionUpdate): boolean {
    if (!this.transcriber.isOpen) return false;
    if ("instructions" in session) {
      this.instructions = session.instructions;
      this.tools = session.tools.map((t) => ({ type: "function", function: { name: t.name, description: t.description, parameters: t.parameters } }));
    }
    this.answers = session.audio.input.turn_detection.create_response;
    this.emit({ type: "session.updated", session: {} });
    return true;
  }

  appendAudio(audio: WireAudio): boolean {
    const bytes = wireBytes(audio);
    const sent = this.transcriber.send(bytes);
    if (sent) {
      this.transcribedBytes += bytes.length;
      this.vad.push(bytes);
    }
    return sent;
  }

  serviceUsage(): ServiceUsage {
    return {
      // What the service says it received is what it bills; our own count stands in until it says.
      transcriberSeconds: this.transcriber.reportedSeconds?.() ?? Math.round(this.transcribedBytes / bytesPerMs(this.o.format)) / 1000,
      voiceCharacters: this.voicedCharacters,
      modelInputTokens: this.modelTokens.input,
      modelCachedTokens: this.modelTokens.cached,
      modelOutputTokens: this.modelTokens.output,
    };
  }

  /** The call's cost per service at list prices or the providers' own (null: no prices were given). */
  providerCost(): ProviderCost | null {
    if (!this.o.prices) return null;
    const u = this.serviceUsage();
    return pipelineCost(
      { transcriberSeconds: u.transcriberSeconds, voiceCharacters: u.voiceCharacters, modelInputTokens: this.modelTokens.input, modelCachedTokens: this.modelTokens.cached, modelOutputTokens: this.modelTokens.output },
      this.o.prices,
    );
  }

  createItem(item: ConversationItem): boolean {
    if (!this.transcriber.isOpen) return false;
    if (item.type === "function_call_output") this.messages.push({ role: "tool", tool_call_id: this.callIds.get(item.call_id) ?? item.call_id, content: item.output });
    else if (item.role === "assistant") this.messages.push({ role: "assistant", content: item.content.map((c) => c.text).join(" ") });
    else this.messages.push({ role: item.role, content: item.content.map((c) => c.text).join(" ") });
    return true;
  }

  createResponse(response?: ResponseOptions): boolean {
    if (!this.transcriber.isOpen) return false;
    if (this.active) {
      this.emit({ type: "error", error: { type: "invalid_request_error", code: "conversation_already_has_active_response", message: "Conversation already has an active response in progress." } });
      return true;
    }
    void this.respond(response);
    return true;
  }

  cancelResponse(): boolean {
    if (!this.active) return false;
    this.active.cancelled = true;
    this.active.abort.abort();
    return true;
  }

  truncate(itemId: string, audioEndMs: number): boolean {
    const item = this.items.get(itemId);
    if (!item) return false;
    item.cutAtMs = audioEndMs;
    if (item.message) item.message.content = heardText(item.sentences, audioEndMs);
    this.emit({ type: "conversation.item.truncated", item_id: itemId, content_index: 0, audio_end_ms: audioEndMs });
    return true;
  }

  clientEventType(): string | undefined {
    return undefined;
  }

  audioSent(itemId: string): void {
    const turn = this.timed.find((t) => t.itemId === itemId);
    if (turn && turn.firstAudioSent === undefined) turn.firstAudioSent = performance.now();
  }

  turns(): TurnLatency[] {
    return this.timed.map((t) => {
      const after = (at: number) => Math.round(at - t.speechEnded);
      return {
        speechEndedAtMs: Math.round(t.speechEnded - this.began),
        transcriptMs: after(t.transcript),
        ...(t.firstToken === undefined ? {} : { firstTokenMs: after(t.firstToken) }),
        ...(t.firstVoiceAudio === undefined ? {} : { firstVoiceAudioMs: after(t.firstVoiceAudio) }),
        ...(t.firstAudioSent === undefined ? {} : { firstAudioSentMs: after(t.firstAudioSent) }),
      };
    });
  }

  /** Once closed: settles when the transcriber has sent its last report (the audio it billed). */
  settled(): Promise<void> {
    return this.transcriber.drained?.() ?? Promise.resolve();
  }

  close(code = 1000, reason = "Call ended"): void {
    if (this.closed) return;
    this.abortActive();
    this.vad.close();
    this.transcriber.close();
    this.voice.close();
    this.closed = true;
    const handlers = this.handlers;
    this.handlers = null;
    handlers?.close(code, reason);
  }

  private abortActive(): void {
    if (!this.active) return;
    this.active.cancelled = true;
    this.active.abort.abort();
  }

  // ---------------------------------------------------------------------------
  // The caller's side

  /** The caller has started a turn (the session's barge-in acts on it), once per turn. */
  private onSpeechStarted(startMs: number): void {
    if (this.userItem !== null) return;
    this.userItem = this.id("item_user");
    this.emit({ type: "input_audio_buffer.speech_started", audio_start_ms: Math.round(startMs), item_id: this.userItem });
  }

  private onWords(text: string, final: boolean, start: number): void {
    if (this.dropUntilFinal) {
      // The words a VAD-ended turn already took, finalised late by the transcriber.
      if (final) this.dropUntilFinal = false;
      return;
    }
    // Words, not a noise: the caller has started a turn (if the VAD has not said so already).
    this.onSpeechStarted(start * 1000);
    if (final) {
      this.heard.push(text);
      this.interim = "";
    } else this.interim = text;
  }

  /** The VAD's silence after speech: the turn's end where the assistant says so; else a start that brought no words is let go. */
  private onSilence(): void {
    if (this.o.turnEnd === "vad" && (this.heard.length > 0 || this.interim !== "")) {
      if (this.interim) this.heard.push(this.interim);
      this.dropUntilFinal = this.interim !== "";
      this.interim = "";
      this.endTurn();
      return;
    }
    // No words at all (a laugh, a word the transcriber missed): the next speech is a new start, and may barge in again.
    if (this.heard.length === 0 && this.interim === "" && this.userItem !== null) {
      this.emit({ type: "input_audio_buffer.speech_stopped", audio_end_ms: 0, item_id: this.userItem });
      this.userItem = null;
    }
  }

  private onTurnEnd(): void {
    // A VAD-ended assistant waits for the VAD's silence, unless the VAD heard no speech at all.
    if (this.o.turnEnd === "vad" && this.vad.inSpeech) return;
    this.endTurn();
  }

  private endTurn(): void {
    const itemId = this.userItem;
    const transcript = this.heard.join(" ").trim();
    // The transcriber's endpoint is the end of the caller's speech; the transcript is final once joined.
    const speechEnded = performance.now();
    if (itemId === null || transcript === "") return;
    const turn: TimedTurn = { speechEnded, transcript: performance.now() };
    this.timed.push(turn);
    this.turnToAnswer = turn;
    this.userItem = null;
    this.heard = [];
    this.emit({ type: "input_audio_buffer.speech_stopped", audio_end_ms: 0, item_id: itemId });
    this.emit({ type: "input_audio_buffer.committed", item_id: itemId });
    this.emit({ type: "conversation.item.input_audio_transcription.completed", item_id: itemId, transcript });
    this.messages.push({ role: "user", content: transcript });
    if (!this.answers) return;
    if (this.active) this.turnWaiting = true;
    else void this.respond();
  }

  // ---------------------------------------------------------------------------
  // The assistant's side

  private async respond(options?: ResponseOptions): Promise<void> {
    const response: ActiveResponse = { id: this.id("resp"), abort: new AbortController(), turn: this.turnToAnswer, item: null, cancelled: false };
    this.turnToAnswer = null;
    this.active = response;
    this.emit({ type: "response.created", response: { id: response.id } });
    const output: RealtimeItem[] = [];
    let status = "completed";
    let failure: string | null = null;
    // A service that stops answering fails the turn (the call goes on): a watchdog reset by every
    // word of the model and every sound of the voice.
    let modelDone = false;
    let timedOut: string | null = null;
    const timeoutMs = this.o.timeoutMs ?? DEFAULT_TIMEOUT_MS;
    let watchdog: NodeJS.Timeout | undefined;
    const progress = () => {
      // Called per word and per audio chunk: the one timer is pushed back, not replaced.
      if (watchdog) return void watchdog.refresh();
      watchdog = setTimeout(() => {
        timedOut = VOICE_ENGINE_MESSAGES.timedOut(modelDone ? "voice" : "language model", timeoutMs / 1000);
        response.abort.abort();
      }, timeoutMs);
    };
    progress();
    const speech = new SpeechQueue(this.voice, response, (text) => (this.voicedCharacters += text.length), (item, sentence, bytes) => {
      progress();
      this.onAudio(response, item, sentence, bytes);
    });
    const ensureItem = (): SpokenItem => {
      if (!response.item) {
        response.item = { id: this.id("item_asst"), sentences: [], message: null };
        this.items.set(response.item.id, response.item);
        if (response.turn) response.turn.itemId = response.item.id;
        this.emit({ type: "response.output_item.added", response_id: response.id, item: { id: response.item.id, type: "message", role: "assistant" } });
      }
      return response.item;
    };
    const say = (sentence: string) => {
      const item = ensureItem();
      const entry = { text: sentence, ms: 0 };
      item.sentences.push(entry);
      this.emit({ type: "response.output_audio_transcript.delta", item_id: item.id, delta: (item.sentences.length > 1 ? " " : "") + sentence });
      speech.add(item, entry);
    };
    let calls: ChatToolCall[] = [];
    try {
      const greeting = this.o.firstMessage && options?.instructions && options.instructions === this.o.greetingInstructions ? this.o.firstMessage : null;
      if (greeting) {
        modelDone = true;
        say(greeting);
      } else {
        const pending = new SentenceBuffer(say);
        const extra: ChatMessage[] = options?.instructions ? [{ role: "system", content: options.instructions }] : [];
        const stream = this.o.model.protocol === "anthropic" ? streamAnthropic : streamChat;
        const result = await stream({
          baseUrl: this.o.model.baseUrl,
          apiKey: this.o.model.apiKey,
          model: this.o.model.model,
          messages: [{ role: "system", content: this.instructions }, ...this.messages, ...extra],
          tools: options?.tool_choice === "none" ? [] : this.tools,
          signal: response.abort.signal,
          onText: (piece) => {
            progress();
            if (response.turn && response.turn.firstToken === undefined) response.turn.firstToken = performance.now();
            pending.add(piece);
          },
          onUsage: (u) => {
            this.modelTokens.input += u.input;
            this.modelTokens.cached += u.cached;
            this.modelTokens.output += u.output;
          },
        });
        modelDone = true;
        progress();
        pending.flush();
        calls = result.toolCalls;
      }
      await speech.done();
    } catch (err) {
      if (response.cancelled) status = "cancelled";
      else {
        status = "failed";
        failure = timedOut ?? (err instanceof Error ? err.message : String(err));
        // A refused key fails every later turn as well: the call ends, saying which service and why.
        if (err instanceof ServiceError && err.keyRefused) {
          clearTimeout(watchdog);
          this.handlers?.error(VOICE_ENGINE_MESSAGES.keyRefusedOnCall(err.service, err.status, err.detail), true);
          return;
        }
      }
    }
    clearTimeout(watchdog);
    if (this.closed) return;
    const item = response.item;
    if (item) {
      const transcript = item.sentences.map((s) => s.text).join(" ");
      // The model remembers what the caller heard: all of it, or up to a barge-in's cut.
      const remembered = item.cutAtMs === undefined ? transcript : heardText(item.sentences, item.cutAtMs);
      item.message = { role: "assistant", content: remembered, ...(calls.length > 0 && status === "completed" ? { tool_calls: calls } : {}) };
      this.emit({ type: "response.output_audio.done", response_id: response.id, item_id: item.id });
      this.emit({ type: "response.output_audio_transcript.done", item_id: item.id, transcript });
      const done = { id: item.id, type: "message", role: "assistant", status: status === "completed" ? "completed" : "incomplete", content: [{ type: "output_audio", transcript }] };
      this.emit({ type: "response.output_item.done", response_id: response.id, item: done });
      output.push(done);
      this.messages.push(item.message);
    } else if (calls.length > 0 && status === "completed") {
      this.messages.push({ role: "assistant", content: null, tool_calls: calls });
    }
    if (status === "completed") {
      for (const call of calls) {
        const callId = call.id.startsWith("call_") ? call.id : `call_${call.id}`;
        this.callIds.set(callId, call.id);
        const fc = { id: this.id("item_fc"), type: "function_call", call_id: callId, name: call.function.name, arguments: call.function.arguments || "{}", status: "completed" };
        this.emit({ type: "response.output_item.added", response_id: response.id, item: { ...fc, arguments: "", status: "in_progress" } });
        this.emit({ type: "response.function_call_arguments.done", response_id: response.id, item_id: fc.id, call_id: callId, name: call.function.name, arguments: fc.arguments });
        this.emit({ type: "response.output_item.done", response_id: response.id, item: fc });
        output.push(fc);
      }
    }
    if (failure) this.emit({ type: "error", error: { type: "server_error", code: "pipeline_failed", message: failure } });
    this.active = null;
    this.emit({
      type: "response.done",
      response: { id: response.id, status, output, usage: null, ...(failure ? { status_details: { type: "failed", error: { message: failure } } } : {}) },
    });
    if (this.turnWaiting && !this.closed) {
      this.turnWaiting = false;
      if (this.answers) void this.respond();
    }
  }

  private onAudio(response: ActiveResponse, item: SpokenItem, sentence: { ms: number }, bytes: Uint8Array): void {
    if (response.cancelled || this.closed) return;
    if (response.turn && response.turn.firstVoiceAudio === undefined) response.turn.firstVoiceAudio = performance.now();
    sentence.ms += bytes.length / bytesPerMs(this.o.format);
    this.emit({ type: "response.output_audio.delta", response_id: response.id, item_id: item.id, delta: Buffer.from(bytes.buffer, bytes.byteOffset, bytes.length).toString("base64") });
  }
}

/** The text heard of an item cut at `audioEndMs`: whole sentences, then the words of the cut one in proportion. */
export function heardText(sentences: ReadonlyArray<{ text: string; ms: number }>, audioEndMs: number): string {
  const out: string[] = [];
  let at = 0;
  for (const s of sentences) {
    if (at + s.ms <= audioEndMs) {
      out.push(s.text);
      at += s.ms;
      continue;
    }
    const share = s.ms > 0 ? (audioEndMs - at) / s.ms : 0;
    const words = s.text.split(/\s+/);
    const kept = words.slice(0, Math.floor(words.length * Math.max(0, share)));
    if (kept.length > 0) out.push(`${kept.join(" ")}…`);
    break;
  }
  return out.join(" ");
}

/** Collects the model's text and hands on each complete sentence as soon as it ends. */
class SentenceBuffer {
  private text = "";
  constructor(private readonly say: (sentence: string) => void) {}
  add(piece: string): void {
    this.text += piece;
    let match: RegExpExecArray | null;
    while ((match = SENTENCE_END.exec(this.text))) {
      const end = match.index + match[1]!.length;
      const sentence = this.text.slice(0, end).trim();
      this.text = this.text.slice(end + match[2]!.length);
      if (sentence) this.say(sentence);
    }
  }
  flush(): void {
    const rest = this.text.trim();
    this.text = "";
    if (rest) this.say(rest);
  }
}

/** Sentences are voiced one after another, each as its own streaming request, in order. */
class SpeechQueue {
  private chain: Promise<void> = Promise.resolve();
  private failed: unknown = null;
  constructor(
    private readonly voice: Voice,
    private readonly response: ActiveResponse,
    /** A sentence is sent to the voice (it bills what it was sent, heard or not). */
    private readonly onSent: (text: string) => void,
    private readonly onAudio: (item: SpokenItem, sentence: { ms: number }, bytes: Uint8Array) => void,
  ) {}
  add(item: SpokenItem, sentence: { text: string; ms: number }): void {
    this.chain = this.chain.then(async () => {
      if (this.failed || this.response.cancelled) return;
      try {
        this.onSent(sentence.text);
        await this.voice.speak(sentence.text, this.response.abort.signal, (bytes) => this.onAudio(item, sentence, bytes));
      } catch (err) {
        this.failed = err;
      }
    });
  }
  async done(): Promise<void> {
    await this.chain;
    if (this.response.cancelled) throw new Error("cancelled");
    if (this.failed) throw this.failed;
  }
}
