/**
 * OpenAI GPT-Live behind the engine seam (ADR 065): `wss://…/v1/live/sessions`, `session.start`
 * first, the assistant's tools delegated to a Responses model (docs/protocols.md §7).
 *
 * GPT-Live speaks a different vocabulary from the seam's (Realtime's), so this adapter translates:
 * - the first `updateSession` becomes `session.start` (instructions, voice, the tools inside
 *   `delegation.responses`); `session.started` is reported as `session.updated`;
 * - caller audio goes up as `session.input_audio.append`, PCM16 24 kHz (a phone call's µ-law is
 *   converted both ways: GPT-Live's docs name no other format);
 * - GPT-Live has no turns on the wire, only transcript fragments, so the adapter makes them: the
 *   caller's first words open a caller turn (reported as `speech_started`, so the session stops the
 *   assistant's playback), and the model's first words or sound end it and open an assistant turn
 *   (`response.created` … `response.done`), which ends when the caller speaks, when work is
 *   delegated, or after `quietMs` without a word from the model;
 * - a delegated Responses call (`response.event` wrapping `response.output_item.done` with a
 *   `function_call`) is reported as a response carrying that call; its output goes back as
 *   `response.item.create` + `response.create`;
 * - the first message is asked for with `session.instructions.append` (GPT-Live has no
 *   `response.create` for speech); cancel and truncate have no GPT-Live event: the session's
 *   playback is stopped and the entry marked, which is all a caller notices;
 * - GPT-Live bills session seconds (`session.usage.updated`, and `session.closed` after our
 *   `session.close`): the last figure is the record's provider-cost line, unpriced (ADR 071).
 */
import { randomUUID } from "node:crypto";
import WebSocket from "ws";
import { fromCallAudio, pcm16FromBytes, toCallAudio, type CallAudioFormat, type WireAudio } from "../audio.ts";
import type { ProviderCost } from "../../../shared/call-records.ts";
import type { ConversationItem, RealtimeServerEvent, RealtimeSessionConfig, RealtimeSessionUpdate, ResponseOptions } from "./realtime-protocol.ts";
import type { ProviderLogger, RealtimeProvider, RealtimeProviderHandlers } from "./openai-realtime.ts";

export interface GptLiveOptions {
  /** OPENAI_BASE_URL, e.g. https://api.openai.com/v1 */
  baseUrl: string;
  apiKey: string;
  model: string;
  voice: string;
  /** The Responses model the tools are delegated to. */
  delegationModel: string;
  format: CallAudioFormat;
  /** How long the model may be silent before its turn is taken as over. */
  quietMs?: number;
  logger?: ProviderLogger;
}

export function liveSessionsUrl(baseUrl: string): string {
  const url = new URL(baseUrl);
  url.protocol = url.protocol === "https:" ? "wss:" : url.protocol === "http:" ? "ws:" : url.protocol;
  url.pathname = `${url.pathname.replace(/\/+$/, "")}/live/sessions`;
  return url.toString();
}

interface Turn {
  responseId: string;
  itemId: string;
  transcript: string;
}

/** A delegated Responses call in flight: its function calls, reported when it completes. */
interface Delegated {
  responseId: string;
  calls: Array<{ id: string; type: "function_call"; call_id: string; name: string; arguments: string; status: "completed" }>;
}

const DEFAULT_QUIET_MS = 1200;
/** Output samples below this are the model's silence (it streams silence while it listens). */
const SILENCE_LEVEL = 64;

export class GptLiveProvider implements RealtimeProvider {
  /** While a supervisor has the call it hears silence in the caller's place (see updateSession). */
  readonly hearsCallerWhileSilenced = false;
  private ws: WebSocket | null = null;
  private handlers: RealtimeProviderHandlers | null = null;
  private started = false;
  private closing = false;
  private closedNotified = false;
  private counter = 0;
  private readonly recent = new Map<string, string>();
  private assistant: Turn | null = null;
  private caller: { itemId: string; text: string } | null = null;
  private delegated: Delegated | null = null;
  /** A delegated response ended in function calls: GPT-Live waits for their outputs and `response.create`. */
  private outputsAwaited = false;
  private quietTimer: NodeJS.Timeout | null = null;
  /** A supervisor has the call (the seam's `create_response: false`): the caller's audio is not passed on. */
  private heldBySupervisor = false;
  /** Session seconds as GPT-Live last reported them. */
  private usageSeconds: number | null = null;
  private socketClosed!: () => void;
  private readonly closedSocket = new Promise<void>((resolve) => (this.socketClosed = resolve));

  constructor(private readonly o: GptLiveOptions) {}

  get isOpen(): boolean {
    return this.ws?.readyState === WebSocket.OPEN && !this.closing;
  }

  private id(prefix: string): string {
    this.counter += 1;
    return `${prefix}_${this.counter}_${randomUUID().slice(0, 8)}`;
  }

  private emit(event: RealtimeServerEvent): void {
    if (!this.closedNotified) this.handlers?.event(event);
  }

  private send(event: Record<string, unknown>): boolean {
    if (!this.isOpen) return false;
    const type = String(event["type"]);
    let payload = event;
    // Audio appends carry no event id: they never fail alone.
    if (type !== "session.input_audio.append") {
      const eventId = this.id("evt");
      this.recent.set(eventId, type);
      if (this.recent.size > 64) this.recent.delete(this.recent.keys().next().value!);
      payload = { event_id: eventId, ...event };
    }
    this.ws!.send(JSON.stringify(payload));
    return true;
  }

  connect(handlers: RealtimeProviderHandlers): void {
    if (this.ws) throw new Error("already connected");
    this.handlers = handlers;
    const ws = new WebSocket(liveSessionsUrl(this.o.baseUrl), {
      headers: { Authorization: `Bearer ${this.o.apiKey}` },
      handshakeTimeout: 15_000,
      perMessageDeflate: false,
    });
    this.ws = ws;
    let opened = false;
    // Set once a refusal is reported, so ws's own abort error is not reported after it.
    let refused = false;
    ws.on("open", () => {
      opened = true;
      handlers.open();
    });
    ws.on("unexpected-response", (_req, res) => {
      let body = "";
      res.on("data", (chunk: Buffer) => (body += chunk.toString("utf8").slice(0, 4096)));
      res.on("end", () => {
        let message = body;
        try {
          message = (JSON.parse(body) as { error?: { message?: string } }).error?.message ?? body;
        } catch {
          // Not JSON: the body as it came.
        }
        refused = true;
        handlers.error(`GPT-Live refused the connection (HTTP ${res.statusCode}${message ? `: ${message}` : ""})`, true);
        ws.terminate();
      });
    });
    ws.on("message", (data) => this.onMessage(String(data)));
    ws.on("error", (error) => {
      if (!this.closedNotified && !refused) handlers.error(error.message, !opened);
    });
    ws.on("close", (code, reason) => {
      this.socketClosed();
      // A caller's line still open when the session ends (they spoke, then hung up before the model
      // answered) is committed, or their last words would be missing from the transcript.
      this.endCaller();
      this.endAssistant("incomplete");
      if (this.closedNotified) return;
      this.closedNotified = true;
      if (this.quietTimer) clearTimeout(this.quietTimer);
      handlers.close(code, reason.toString());
    });
  }

  updateSession(session: RealtimeSessionConfig | RealtimeSessionUpdate): boolean {
    // GPT-Live decides itself when to speak and has no setting against it, so the seam's "do not
    // answer" (a supervisor's take-over) is kept here: it hears silence in the caller's place until
    // handed back, as Realtime, told not to answer, keeps still. The caller's line in progress ends
    // at either edge, so it is not run together with what they say on the other side of it.
    const held = !session.audio.input.turn_detection.create_response;
    if (held !== this.heldBySupervisor) {
      this.heldBySupervisor = held;
      this.endCaller();
    }
    // Only the first, whole configuration is sent: turn detection has no GPT-Live event.
    if (!("instructions" in session)) return this.isOpen;
    const delegation = { type: "responses", responses: { model: this.o.delegationModel, tools: session.tools } };
    if (this.started) return this.send({ type: "session.update", session: { delegation } });
    return this.send({
      type: "session.start",
      session: { model: this.o.model, instructions: session.instructions, audio: { output: { voice: this.o.voice } }, delegation },
    });
  }

  appendAudio(audio: WireAudio): boolean {
    const heard = fromCallAudio(this.o.format, audio);
    // Silence of the same length, not nothing: GPT-Live's clock (its transcripts' times) keeps the call's.
    const pcm = this.heldBySupervisor ? new Uint8Array(heard.length) : heard;
    return this.send({ type: "session.input_audio.append", audio: Buffer.from(pcm.buffer, pcm.byteOffset, pcm.byteLength).toString("base64") });
  }

  createItem(item: ConversationItem): boolean {
    if (item.type === "function_call_output") return this.send({ type: "response.item.create", item });
    // Context the session adds (a typed line, a renewed session's history) is instructions to GPT-Live.
    const text = item.content.map((part) => part.text).join("\n");
    return this.send({ type: "session.instructions.append", content: item.role === "user" ? `The caller wrote: ${text}` : text, delegation_id: null });
  }

  createResponse(response?: ResponseOptions): boolean {
    // The first message: asked for as context, the only way GPT-Live takes it.
    if (response?.instructions) return this.send({ type: "session.instructions.append", content: response.instructions, delegation_id: null });
    // After the tools' outputs: the delegated response waiting for them goes on.
    if (this.outputsAwaited) {
      this.outputsAwaited = false;
      return this.send({ type: "response.create" });
    }
    // Anything else (a supervisor's hand-back after its context): GPT-Live has no response to
    // create — it decides itself when to speak, and the context is already in its instructions.
    return this.isOpen;
  }

  cancelResponse(): boolean {
    this.endAssistant("cancelled");
    return this.isOpen;
  }

  truncate(itemId: string, audioEndMs: number): boolean {
    this.emit({ type: "conversation.item.truncated", item_id: itemId, content_index: 0, audio_end_ms: audioEndMs });
    return this.isOpen;
  }

  clientEventType(eventId: string): string | undefined {
    return this.recent.get(eventId);
  }

  close(code = 1000, reason = ""): void {
    const ws = this.ws;
    if (!ws || this.closing) return;
    // `session.close` lets GPT-Live finalise (its `session.closed` carries the usage); the socket
    // is closed either way soon after.
    const asked = this.send({ type: "session.close" });
    this.closing = true;
    const timer = setTimeout(() => ws.terminate(), 2000);
    timer.unref();
    ws.once("close", () => clearTimeout(timer));
    if (ws.readyState === WebSocket.CONNECTING) ws.terminate();
    // Asked to close, GPT-Live answers `session.closed` (the usage) and closes the socket itself.
    else if (!asked) ws.close(code, reason);
  }

  /** After close(): settles once the socket has closed (`session.closed` in), or the wait ran out. */
  settled(): Promise<void> {
    return this.ws ? this.closedSocket : Promise.resolve();
  }

  /** GPT-Live's session seconds, unpriced: no price for it is published (ADR 071). */
  providerCost(): ProviderCost | null {
    if (this.usageSeconds === null) return null;
    return { total: null, lines: [{ model: this.o.model, kind: "realtime", text_in: 0, text_cached: 0, audio_in: 0, audio_cached: 0, text_out: 0, audio_out: 0, seconds: this.usageSeconds, cost: null }] };
  }

  private onMessage(text: string): void {
    let event: Record<string, unknown>;
    try {
      event = JSON.parse(text) as Record<string, unknown>;
    } catch {
      this.o.logger?.warn?.({ text: text.slice(0, 200) }, "GPT-Live sent something that is not JSON");
      return;
    }
    switch (event["type"]) {
      case "session.started":
      case "session.updated":
        this.started = true;
        this.emit({ type: "session.updated", session: {} });
        break;
      case "session.input_transcript.delta":
        this.onCallerWords(String(event["delta"] ?? ""), Number(event["start_ms"] ?? 0));
        break;
      case "session.output_transcript.delta":
        this.onAssistantWords(String(event["delta"] ?? ""));
        break;
      case "session.output_audio.delta":
        this.onAssistantAudio(String(event["delta"] ?? ""));
        break;
      case "session.delegation.created":
        this.endCaller();
        this.endAssistant("completed");
        break;
      case "response.event":
        this.onDelegatedEvent(event["event"] as Record<string, unknown> | undefined);
        break;
      case "error": {
        const error = (event["error"] ?? {}) as { code?: string; message?: string; client_event_id?: string };
        this.emit({ type: "error", error: { type: "invalid_request_error", code: error.code, message: error.message ?? "GPT-Live error", event_id: error.client_event_id } });
        break;
      }
      case "session.usage.updated":
      case "session.closed": {
        const seconds = (event["usage"] as { seconds?: unknown } | undefined)?.seconds;
        if (typeof seconds === "number" && Number.isFinite(seconds)) this.usageSeconds = seconds;
        break;
      }
      default:
        // Context acknowledgements and the like: nothing the call needs.
        break;
    }
  }

  private onCallerWords(delta: string, startMs: number): void {
    if (!delta) return;
    if (!this.caller) {
      this.caller = { itemId: this.id("item_user"), text: "" };
      this.emit({ type: "input_audio_buffer.speech_started", audio_start_ms: startMs, item_id: this.caller.itemId });
      // A barge-in cancels through the session (cancelResponse); a turn it left open ends here.
      this.endAssistant("completed");
    }
    this.caller.text += delta;
  }

  private endCaller(): void {
    const caller = this.caller;
    if (!caller) return;
    this.caller = null;
    this.emit({ type: "input_audio_buffer.speech_stopped", audio_end_ms: 0, item_id: caller.itemId });
    this.emit({ type: "input_audio_buffer.committed", item_id: caller.itemId });
    this.emit({ type: "conversation.item.input_audio_transcription.completed", item_id: caller.itemId, transcript: caller.text.trim() });
  }

  private openAssistant(): Turn {
    if (this.assistant) return this.assistant;
    this.endCaller();
    const turn = { responseId: this.id("resp"), itemId: this.id("item"), transcript: "" };
    this.assistant = turn;
    this.emit({ type: "response.created", response: { id: turn.responseId } });
    this.emit({ type: "response.output_item.added", response_id: turn.responseId, item: { id: turn.itemId, type: "message", role: "assistant" } });
    return turn;
  }

  private onAssistantWords(delta: string): void {
    if (!delta) return;
    const turn = this.openAssistant();
    turn.transcript += delta;
    this.emit({ type: "response.output_audio_transcript.delta", item_id: turn.itemId, delta });
    this.armQuiet();
  }

  private onAssistantAudio(delta: string): void {
    if (!delta) return;
    const pcm = Buffer.from(delta, "base64");
    if (!this.assistant && isSilent(pcm)) return;
    const turn = this.openAssistant();
    const audio = Buffer.from(toCallAudio(this.o.format, pcm)).toString("base64");
    this.emit({ type: "response.output_audio.delta", response_id: turn.responseId, item_id: turn.itemId, delta: audio });
    if (!this.quietTimer) this.armQuiet();
  }

  private armQuiet(): void {
    if (this.quietTimer) clearTimeout(this.quietTimer);
    this.quietTimer = setTimeout(() => {
      this.quietTimer = null;
      this.endAssistant("completed");
    }, this.o.quietMs ?? DEFAULT_QUIET_MS);
  }

  private endAssistant(status: "completed" | "cancelled" | "incomplete"): void {
    const turn = this.assistant;
    if (!turn) return;
    this.assistant = null;
    if (this.quietTimer) clearTimeout(this.quietTimer);
    this.quietTimer = null;
    const item = { id: turn.itemId, type: "message", role: "assistant", status: status === "completed" ? "completed" : "incomplete", content: [{ type: "output_audio", transcript: turn.transcript }] };
    this.emit({ type: "response.output_audio.done", response_id: turn.responseId, item_id: turn.itemId });
    this.emit({ type: "response.output_audio_transcript.done", item_id: turn.itemId, transcript: turn.transcript });
    this.emit({ type: "response.output_item.done", response_id: turn.responseId, item });
    this.emit({ type: "response.done", response: { id: turn.responseId, status, output: [item], usage: null } });
  }

  private onDelegatedEvent(inner: Record<string, unknown> | undefined): void {
    const type = inner?.["type"];
    if (type === "response.created") {
      this.endCaller();
      this.endAssistant("completed");
      this.delegated = { responseId: this.id("resp_delegated"), calls: [] };
      this.emit({ type: "response.created", response: { id: this.delegated.responseId } });
      return;
    }
    const delegated = this.delegated;
    if (!delegated) return;
    if (type === "response.output_item.done") {
      const item = (inner?.["item"] ?? {}) as { type?: string; call_id?: string; name?: string; arguments?: string };
      if (item.type !== "function_call" || !item.call_id || !item.name) return;
      const call = { id: this.id("item_fc"), type: "function_call" as const, call_id: item.call_id, name: item.name, arguments: item.arguments || "{}", status: "completed" as const };
      delegated.calls.push(call);
      this.emit({ type: "response.output_item.added", response_id: delegated.responseId, item: { ...call, arguments: "", status: "in_progress" } });
      this.emit({ type: "response.function_call_arguments.done", response_id: delegated.responseId, item_id: call.id, call_id: call.call_id, name: call.name, arguments: call.arguments });
      this.emit({ type: "response.output_item.done", response_id: delegated.responseId, item: call });
      return;
    }
    if (type === "response.completed" || type === "response.done" || type === "response.incomplete" || type === "response.failed") {
      this.delegated = null;
      const status = type === "response.failed" ? "failed" : "completed";
      this.outputsAwaited = status === "completed" && delegated.calls.length > 0;
      this.emit({ type: "response.done", response: { id: delegated.responseId, status, output: delegated.calls, usage: null } });
    }
  }
}

function isSilent(pcm: Buffer): boolean {
  const samples = pcm16FromBytes(pcm);
  for (let i = 0; i < samples.length; i += 1) if (Math.abs(samples[i]!) > SILENCE_LEVEL) return false;
  return true;
}
