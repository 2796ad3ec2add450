/**
 * One connection to the fake OpenAI Realtime GA server: the scripted conversation, the GA
 * event sequences, and a record of everything received and sent. See fake-realtime.ts.
 */
import type WebSocket from "ws";
import type { CallAudioFormat } from "../../src/server/voice/audio.ts";
import { bytesPerMsOf } from "./realtime-audio.ts";
import { callTool, speak, type ActiveResponse, type ResponseContext } from "./realtime-fake-responses.ts";
import { quoted, type FakeItem, type FakeReply, type FakeReplyContext, type FakeReplySpec, type Json } from "./realtime-fake-script.ts";
import { checkResponseCreate, checkSessionUpdate } from "./realtime-session-check.ts";

export type { FakeItem, FakeReply, FakeReplyContext, FakeReplySpec, FakeToolCall } from "./realtime-fake-script.ts";

type Waiter = { check: () => boolean; resolve: () => void };

/** How a fake session behaves: what the caller says, what the model answers, and test hooks. */
export interface FakeScript {
  /** What the caller "says": one transcription per detected turn, in order. */
  userSays?: string[];
  /** Appended audio that makes one user turn (default 300 ms). */
  speechMs?: number;
  /** Delay of the transcription.completed event after the commit (default 0). */
  transcriptionDelayMs?: number;
  /** Replies of responses not carrying instructions, in order; then a default reply. */
  replies?: FakeReply[];
  /** Server VAD creates a response after each user turn (default true). */
  autoRespond?: boolean;
  /** Audio per output_audio.delta (default 100 ms). */
  chunkMs?: number;
  /** Called for every client event after the fake handled it (for cues). */
  onClientEvent?: (event: Record<string, unknown>, connection: FakeConnection) => void;
  /** Called with each chunk of assistant audio before it is sent; may write into it (the bench stamps a send time). */
  beforeAudioDelta?: (audio: Buffer, delta: { connection: FakeConnection; itemId: string; offsetMs: number }) => void;
  /**
   * Keep audio events (input_audio_buffer.append, response.output_audio.delta) in `received`,
   * `sent` and `timeline` (default true). The bench turns this off: hundreds of calls streaming
   * for seconds would otherwise hold every audio byte in the fake's memory.
   */
  keepAudioEvents?: boolean;
  /**
   * The session's maximum duration (the real cap is 60 minutes): session.created carries the
   * matching `expires_at`, and the session ends with `session_expired` when it is reached.
   */
  sessionCapMs?: number;
  /** Client events to refuse with an error naming them, as `refuseNext` does (e.g. a session.update). */
  refuse?: Array<{ type: string; code: string; message: string }>;
}

export class FakeConnection {
  readonly received: Json[] = [];
  readonly sent: Json[] = [];
  /** Both directions in the order they happened. */
  readonly timeline: Array<{ dir: "in" | "out"; type: string }> = [];
  closed: { code: number; reason: string } | null = null;
  /** Effective session config (after session.update). */
  session: Json;
  private inputFormat: CallAudioFormat = "audio/pcm";
  private outputFormat: CallAudioFormat = "audio/pcm";
  private bufferedMs = 0;
  private totalAudioMs = 0;
  private readonly conversation: FakeItem[] = [];
  private readonly replies: FakeReply[];
  private readonly userSays: string[];
  private active: ActiveResponse | null = null;
  /** A turn heard while a response was active (interrupt_response off): answered when it ends. */
  private vadResponseWaiting = false;
  private counter = 0;
  private readonly timers = new Set<NodeJS.Timeout>();
  private readonly waiters = new Set<Waiter>();
  private readonly refusals: Array<{ type: string; code: string; message: string }> = [];

  constructor(
    private readonly ws: WebSocket,
    readonly model: string,
    readonly headers: Record<string, string | string[] | undefined>,
    private readonly script: FakeScript,
  ) {
    this.replies = [...(script.replies ?? [])];
    this.userSays = [...(script.userSays ?? [])];
    this.session = {
      type: "realtime",
      object: "realtime.session",
      id: `sess_${Math.random().toString(36).slice(2, 10)}`,
      model,
      output_modalities: ["audio"],
      instructions: "<server default>",
      audio: {
        input: { format: { type: "audio/pcm", rate: 24000 }, transcription: null, turn_detection: { type: "server_vad", threshold: 0.5, prefix_padding_ms: 300, silence_duration_ms: 500 } },
        output: { format: { type: "audio/pcm", rate: 24000 }, voice: "marin" },
      },
      tools: [],
      tool_choice: "auto",
      max_output_tokens: "inf",
      expires_at: Math.floor((Date.now() + (script.sessionCapMs ?? 60 * 60_000)) / 1000),
    };
    this.refusals.push(...(script.refuse ?? []));
    if (script.sessionCapMs !== undefined) this.later(script.sessionCapMs, () => this.expire());
    ws.on("message", (data, isBinary) => this.onMessage(data.toString(), isBinary));
    ws.on("close", (code, reason) => {
      this.closed = { code, reason: reason.toString() };
      this.stopTimers();
      this.notify();
    });
    ws.on("error", () => {});
    this.send({ type: "session.created", session: this.session });
    this.send({ type: "conversation.created", conversation: { id: "conv_1", object: "realtime.conversation" } });
  }

  // -------------------------------------------------------------------------
  // Test API

  /** Resolves when `check` holds (checked now and after every event either way). */
  until(check: () => boolean, timeoutMs = 5000, what = "condition"): Promise<void> {
    if (check()) return Promise.resolve();
    return new Promise((resolve, reject) => {
      const waiter: Waiter = {
        check,
        resolve: () => {
          clearTimeout(timer);
          resolve();
        },
      };
      const timer = setTimeout(() => {
        this.waiters.delete(waiter);
        reject(new Error(`fake realtime: timed out waiting for ${what}`));
      }, timeoutMs);
      this.waiters.add(waiter);
    });
  }

  /** The `n`-th (0-based) received client event of `type`, waiting for it. */
  async waitFor(type: string, n = 0, timeoutMs = 5000): Promise<Json> {
    await this.until(() => this.receivedOf(type).length > n, timeoutMs, `client event ${type} #${n}`);
    return this.receivedOf(type)[n]!;
  }

  async waitForSent(type: string, n = 0, timeoutMs = 5000): Promise<Json> {
    await this.until(() => this.sentOf(type).length > n, timeoutMs, `server event ${type} #${n}`);
    return this.sentOf(type)[n]!;
  }

  receivedOf(type: string): Json[] {
    return this.received.filter((e) => e["type"] === type);
  }

  sentOf(type: string): Json[] {
    return this.sent.filter((e) => e["type"] === type);
  }

  /** Error codes the fake has sent (e.g. conversation_already_has_active_response). */
  errorCodes(): string[] {
    return this.sentOf("error").map((e) => String((e["error"] as Json)["code"]));
  }

  /** Cue: an error event (the session stays open, as most provider errors do). */
  sendError(code: string, message: string, type = "invalid_request_error"): void {
    this.send({ type: "error", error: { type, code, message, param: null, event_id: null } });
  }

  /** Cue: the provider drops the connection (1006 = no close frame at all). */
  drop(code = 1011, reason = "Internal server error"): void {
    if (code === 1006) this.ws.terminate();
    else this.ws.close(code, reason);
  }

  /** Cue: the provider stops reading its socket (overloaded): the client's sends back up. */
  stall(): void {
    (this.ws as unknown as { _socket: { pause(): void } })._socket.pause();
  }

  /** Cue: the 60-minute cap, as the provider reports it. */
  expire(): void {
    const message = "Your session hit the maximum duration of 60 minutes.";
    this.sendError("session_expired", message);
    this.ws.close(1001, message);
  }

  /**
   * Cue: answer the next client event of `type` with an error naming it (its event_id), as the
   * service does for a request it refuses, instead of handling it.
   */
  refuseNext(type: string, code: string, message: string): void {
    this.refusals.push({ type, code, message });
  }

  /** The conversation as the fake holds it (items created by the client included). */
  get items(): readonly FakeItem[] {
    return this.conversation;
  }

  /** Cue: the fake's VAD hears the caller without waiting for audio. */
  hear(text: string): void {
    this.hearUser(text);
  }

  get hasActiveResponse(): boolean {
    return this.active !== null;
  }

  // -------------------------------------------------------------------------
  // Protocol

  private notify(): void {
    for (const waiter of this.waiters) {
      if (waiter.check()) {
        this.waiters.delete(waiter);
        waiter.resolve();
      }
    }
  }

  private keeps(type: unknown): boolean {
    return (this.script.keepAudioEvents ?? true) || (type !== "input_audio_buffer.append" && type !== "response.output_audio.delta");
  }

  private send(event: Json): void {
    this.counter += 1;
    const full = { event_id: `event_${this.counter}`, ...event };
    if (this.keeps(event["type"])) {
      this.sent.push(full);
      this.timeline.push({ dir: "out", type: String(event["type"]) });
    }
    if (this.ws.readyState === this.ws.OPEN) this.ws.send(JSON.stringify(full));
    this.notify();
  }

  private clientError(event: Json, code: string, message: string, param: string | null = null): void {
    const eventId = typeof event["event_id"] === "string" ? event["event_id"] : null;
    this.send({ type: "error", error: { type: "invalid_request_error", code, message, param, event_id: eventId } });
  }

  private later(ms: number, fn: () => void): void {
    const timer = setTimeout(() => {
      this.timers.delete(timer);
      fn();
    }, ms);
    this.timers.add(timer);
  }

  private stopTimers(): void {
    for (const timer of this.timers) clearTimeout(timer);
    this.timers.clear();
    if (this.active) this.active.cancelled = true;
  }

  private tick(ms = 0): Promise<void> {
    return new Promise((resolve) => (ms > 0 ? this.later(ms, resolve) : setImmediate(resolve)));
  }

  private nextId(prefix: string): string {
    this.counter += 1;
    return `${prefix}_${this.counter}`;
  }

  private onMessage(text: string, isBinary: boolean): void {
    let event: Json;
    try {
      if (isBinary) throw new Error("binary");
      event = JSON.parse(text) as Json;
    } catch {
      this.clientError({}, "invalid_json", "The server could not parse the message as JSON.");
      return;
    }
    if (this.keeps(event["type"])) {
      this.received.push(event);
      this.timeline.push({ dir: "in", type: String(event["type"]) });
    }
    this.handle(event);
    this.script.onClientEvent?.(event, this);
    this.notify();
  }

  private handle(event: Json): void {
    const refusal = this.refusals.findIndex((r) => r.type === event["type"]);
    if (refusal >= 0) {
      const [r] = this.refusals.splice(refusal, 1);
      return this.clientError(event, r!.code, r!.message);
    }
    switch (event["type"]) {
      case "session.update":
        return this.onSessionUpdate(event);
      case "input_audio_buffer.append":
        return this.onAppend(event);
      case "conversation.item.create":
        return this.onItemCreate(event);
      case "response.create": {
        const problem = checkResponseCreate(event["response"]);
        if (problem) return this.clientError(event, problem.code, problem.message, problem.param);
        if (this.active) {
          return this.clientError(
            event,
            "conversation_already_has_active_response",
            `Conversation already has an active response in progress: ${this.active.id}. Wait until the response is finished before creating a new one.`,
          );
        }
        return this.startResponse(event);
      }
      case "response.cancel":
        if (!this.active) return this.clientError(event, "response_cancel_not_active", "Cancellation failed: no active response found");
        return this.cancelActive("client_cancelled");
      case "conversation.item.truncate":
        return this.onTruncate(event);
      default:
        return this.clientError(event, "invalid_value", `Invalid value: '${String(event["type"])}'.`, "type");
    }
  }

  private onSessionUpdate(event: Json): void {
    const problem = checkSessionUpdate(event["session"], this.model);
    if (problem) return this.clientError(event, problem.code, problem.message, problem.param);
    const update = event["session"] as Json;
    const audio = (update["audio"] ?? {}) as { input?: Json; output?: Json };
    const current = this.session["audio"] as { input: Json; output: Json };
    this.session = {
      ...this.session,
      ...update,
      audio: { input: { ...current.input, ...audio.input }, output: { ...current.output, ...audio.output } },
    };
    const formatOf = (side: Json): CallAudioFormat => ((side["format"] as Json)["type"] === "audio/pcmu" ? "audio/pcmu" : "audio/pcm");
    const merged = this.session["audio"] as { input: Json; output: Json };
    this.inputFormat = formatOf(merged.input);
    this.outputFormat = formatOf(merged.output);
    this.send({ type: "session.updated", session: this.session });
  }

  private onAppend(event: Json): void {
    if (typeof event["audio"] !== "string") return this.clientError(event, "invalid_value", "audio must be a base64 string", "audio");
    const ms = Buffer.from(event["audio"], "base64").length / bytesPerMsOf(this.inputFormat);
    this.bufferedMs += ms;
    this.totalAudioMs += ms;
    if (this.bufferedMs >= (this.script.speechMs ?? 300) && this.userSays.length > 0) this.hearUser(this.userSays.shift()!);
  }

  private hearUser(text: string): void {
    const itemId = this.nextId("item_user");
    this.send({ type: "input_audio_buffer.speech_started", audio_start_ms: Math.round(this.totalAudioMs - this.bufferedMs), item_id: itemId });
    // The provider's defaults: both true unless the session says otherwise.
    const vad = ((this.session["audio"] as { input: Json }).input["turn_detection"] ?? {}) as Json;
    if (this.active && vad["interrupt_response"] !== false) this.cancelActive("turn_detected");
    this.send({ type: "input_audio_buffer.speech_stopped", audio_end_ms: Math.round(this.totalAudioMs), item_id: itemId });
    const previous = this.conversation[this.conversation.length - 1]?.id ?? null;
    this.send({ type: "input_audio_buffer.committed", item_id: itemId, previous_item_id: previous });
    this.bufferedMs = 0;
    const item: FakeItem = { id: itemId, type: "message", role: "user", text };
    this.conversation.push(item);
    this.send({ type: "conversation.item.added", previous_item_id: previous, item: { id: itemId, type: "message", role: "user", status: "completed", content: [{ type: "input_audio", transcript: null }] } });
    const complete = () =>
      this.send({
        type: "conversation.item.input_audio_transcription.completed",
        item_id: itemId,
        content_index: 0,
        transcript: text,
        usage: { type: "duration", seconds: 1 },
      });
    const delay = this.script.transcriptionDelayMs ?? 0;
    if (delay > 0) this.later(delay, complete);
    else complete();
    if ((this.script.autoRespond ?? true) && vad["create_response"] !== false) {
      // With interrupt_response off the client cancels (a real turn ends a second later than
      // it starts; here both come at once): answer the turn when the active response ends.
      if (this.active) this.vadResponseWaiting = true;
      else this.startResponse(undefined);
    }
  }

  private onItemCreate(event: Json): void {
    const item = event["item"] as Json | undefined;
    const id = typeof item?.["id"] === "string" ? item["id"] : this.nextId("item_client");
    if (item?.["type"] === "function_call_output") {
      const callId = item["call_id"];
      if (!this.conversation.some((i) => i.type === "function_call" && i.call_id === callId)) {
        return this.clientError(event, "invalid_value", `Tool call ID '${String(callId)}' not found in conversation.`, "item.call_id");
      }
      if (typeof item["output"] !== "string") return this.clientError(event, "invalid_type", "item.output must be a string", "item.output");
      this.conversation.push({ id, type: "function_call_output", call_id: callId as string, output: item["output"] });
    } else if (item?.["type"] === "message" && (item["role"] === "user" || item["role"] === "system" || item["role"] === "assistant")) {
      // Clients may create assistant *text* items (output_text), never assistant audio.
      const textType = item["role"] === "assistant" ? "output_text" : "input_text";
      const content = item["content"] as Json[] | undefined;
      const text = content?.find((c) => c["type"] === textType)?.["text"];
      if (typeof text !== "string") return this.clientError(event, "invalid_value", `Expected ${textType} content`, "item.content");
      this.conversation.push({ id, type: "message", role: item["role"], text });
    } else {
      return this.clientError(event, "invalid_value", "Unsupported item", "item");
    }
    const previous = this.conversation[this.conversation.length - 2]?.id ?? null;
    this.send({ type: "conversation.item.added", previous_item_id: previous, item: { ...item, id, status: "completed" } });
    this.send({ type: "conversation.item.done", previous_item_id: previous, item: { ...item, id, status: "completed" } });
  }

  private onTruncate(event: Json): void {
    const item = this.conversation.find((i) => i.id === event["item_id"]);
    if (!item || item.role !== "assistant" || item.audioMs === undefined) {
      return this.clientError(event, "invalid_value", `Item ${String(event["item_id"])} has no assistant audio.`, "item_id");
    }
    const end = event["audio_end_ms"];
    if (typeof end !== "number" || end < 0 || end > item.audioMs) {
      return this.clientError(event, "invalid_value", `audio_end_ms ${String(end)} is longer than the audio (${item.audioMs} ms).`, "audio_end_ms");
    }
    this.send({ type: "conversation.item.truncated", item_id: item.id, content_index: 0, audio_end_ms: end });
  }

  private cancelActive(reason: "client_cancelled" | "turn_detected"): void {
    const active = this.active;
    if (!active) return;
    active.cancelled = true;
    this.active = null;
    this.send({
      type: "response.done",
      response: { id: active.id, object: "realtime.response", status: "cancelled", status_details: { type: "cancelled", reason }, output: active.partial ? [active.partial] : [] },
    });
    this.answerWaitingTurn();
  }

  private answerWaitingTurn(): void {
    if (!this.vadResponseWaiting || this.active) return;
    this.vadResponseWaiting = false;
    this.startResponse(undefined);
  }

  private chooseReply(request: Json | undefined): FakeReplySpec {
    const response = request?.["response"] as Json | undefined;
    if (typeof response?.["instructions"] === "string") return { say: quoted(response["instructions"]) };
    const next = this.replies.shift();
    const ctx: FakeReplyContext = { request, conversation: this.conversation };
    const reply = typeof next === "function" ? next(ctx) : next;
    if (reply !== undefined) return typeof reply === "string" ? { say: reply } : reply;
    const last = this.conversation[this.conversation.length - 1];
    if (last?.type === "function_call_output") return { say: `Here is what I found: ${last.output}` };
    return { say: "Okay." };
  }

  private startResponse(request: Json | undefined): void {
    const reply = this.chooseReply(request);
    const active = { id: this.nextId("resp"), cancelled: false };
    this.active = active;
    void this.runResponse(active, reply);
  }

  private responseContext(): ResponseContext {
    return {
      send: (event) => this.send(event),
      tick: (ms) => this.tick(ms),
      nextId: (prefix) => this.nextId(prefix),
      conversation: this.conversation,
      outputFormat: this.outputFormat,
      chunkMs: this.script.chunkMs,
      beforeAudioDelta: this.script.beforeAudioDelta && ((audio, delta) => this.script.beforeAudioDelta?.(audio, { connection: this, ...delta })),
    };
  }

  private async runResponse(active: ActiveResponse, reply: FakeReplySpec): Promise<void> {
    const responseId = active.id;
    const output: Json[] = [];
    this.send({ type: "response.created", response: { id: responseId, object: "realtime.response", status: "in_progress", output: [] } });
    await this.tick();
    const ctx = this.responseContext();
    if (reply.say !== undefined && !active.cancelled) output.push(await speak(ctx, active, reply));
    for (const call of reply.toolCalls ?? []) {
      if (active.cancelled) break;
      output.push(await callTool(ctx, active, call));
    }
    if (active.cancelled) return; // response.done was sent by the cancel
    this.active = null;
    const failed = reply.fail !== undefined;
    this.send({
      type: "response.done",
      response: {
        id: responseId,
        object: "realtime.response",
        status: failed ? "failed" : "completed",
        status_details: failed ? { type: "failed", error: { type: "server_error", code: "server_error", message: reply.fail } } : null,
        output,
        usage: { total_tokens: 100, input_tokens: 80, output_tokens: 20 },
      },
    });
    this.answerWaitingTurn();
  }
}
