/**
 * A stand-in for OpenAI GPT-Live on the fake Realtime server's socket (one OPENAI_BASE_URL, the
 * same key check and refusals), speaking the protocol of docs/protocols.md §7:
 *
 *   const live = serveGptLive(realtime, { userSays: ["Where is my order?"], replies: [{ call: { name: "Lookup_Order", arguments: { id: "42" } } }] });
 *   const conn = await live.connection();   // everything received is in conn.received
 *
 * Per connection: the first message must be `session.start` with a strict session object (unknown
 * fields, an unknown model or voice, a tool without a name: an `error` event, then the socket
 * closes); `session.started` answers it. `session.instructions.append` is acknowledged, and when it
 * holds double-quoted text (the engine's first-message request) that text is spoken. Caller audio
 * (`session.input_audio.append`, PCM16 24 kHz) becomes the next scripted caller line after
 * `speechMs` of a burst (one line a burst; a pause ends it: no frames, or quiet ones as a phone's
 * RTP carries between words, for a while — GPT-Live's own voice activity detection), as `session.input_transcript.delta` fragments; the model then answers with its
 * next reply: spoken (`session.output_audio.delta`, a tone, with `session.output_transcript.delta`
 * word by word), or delegated — `session.delegation.created`, then the Responses stream in
 * `response.event` envelopes with a `function_call` — after which `response.item.create` with the
 * `function_call_output` and `response.create` get the reply's `after` text (or the output quoted).
 * `session.close` is answered with `session.closed` (its usage in seconds of caller audio).
 */
import type { IncomingMessage } from "node:http";
import type { WebSocket } from "ws";
import type { FakeRealtime } from "./fake-realtime.ts";
import { tone } from "./realtime-audio.ts";
import { quoted } from "./realtime-fake-script.ts";
import { until } from "../until.ts";
import { GPT_LIVE_MODELS, GPT_LIVE_VOICES } from "../../src/shared/providers.ts";

export interface GptLiveReply {
  /** Spoken first. */
  say?: string;
  /** Then delegated to the Responses backend as this function call. */
  call?: { name: string; arguments: Record<string, unknown> };
  /** Spoken once the call's output is back (default: the output quoted). */
  after?: string;
}

export interface GptLiveScript {
  userSays?: string[];
  /** Caller audio that makes one scripted line (default 300 ms). */
  speechMs?: number;
  replies?: GptLiveReply[];
  /** The pause between the caller's line and the model's reply (default 300 ms). */
  replyAfterMs?: number;
  /** Audio per spoken word (default 200 ms). */
  msPerWord?: number;
}

type Json = Record<string, unknown>;

const SESSION_FIELDS = new Set(["model", "instructions", "audio", "delegation"]);
const PCM_BYTES_PER_MS = 48;
const BURST_GAP_MS = 200;
/** The loudest sample of a frame with no speech in it. */
const QUIET = 1000;

export class FakeGptLiveConnection {
  readonly received: Json[] = [];
  /** What the model has said, each reply whole. */
  readonly spoken: string[] = [];
  /** The caller's lines it has transcribed (sent as `session.input_transcript.delta`), in order. */
  readonly heard: string[] = [];
  session: Json | null = null;
  closedBy: "session.close" | "socket" | null = null;
  /** The usage `session.closed` reported (seconds of the session's audio). */
  reportedSeconds: number | null = null;
  private counter = 0;
  private audioMs = 0;
  private callerMs = 0;
  private lastAudioAt = 0;
  private lineSaid = false;
  private readonly userSays: string[];
  private readonly replies: GptLiveReply[];
  private waiting: { callId: string; after?: string; output?: string } | null = null;

  constructor(
    private readonly ws: WebSocket,
    readonly headers: IncomingMessage["headers"],
    private readonly script: GptLiveScript,
  ) {
    this.userSays = [...(script.userSays ?? [])];
    this.replies = [...(script.replies ?? [])];
    ws.on("message", (data) => this.onMessage(String(data)));
    ws.on("close", () => (this.closedBy ??= "socket"));
    ws.on("error", () => {});
  }

  /** The names of the functions delegated to the Responses backend. */
  get toolNames(): string[] {
    const tools = (((this.session?.["delegation"] as Json | undefined)?.["responses"] as Json | undefined)?.["tools"] ?? []) as Json[];
    return tools.map((t) => String(t["name"]));
  }

  waitFor(type: string, count = 1): Promise<Json[]> {
    return until(`GPT-Live received ${count} × ${type}`, async () => this.received.filter((e) => e["type"] === type), (found) => found.length >= count);
  }

  private id(prefix: string): string {
    this.counter += 1;
    return `${prefix}_${this.counter}`;
  }

  private send(event: Json): void {
    if (this.ws.readyState === this.ws.OPEN) this.ws.send(JSON.stringify({ event_id: this.id("event"), ...event }));
  }

  private fail(code: string, message: string, clientEventId: unknown, close = false): void {
    this.send({ type: "error", error: { code, message, ...(typeof clientEventId === "string" ? { client_event_id: clientEventId } : {}) } });
    if (close) this.ws.close(1008, code);
  }

  private onMessage(text: string): void {
    const event = JSON.parse(text) as Json;
    this.received.push(event);
    const type = event["type"];
    if (!this.session && type !== "session.start") return this.fail("session_not_started", "The first message must be session.start.", event["event_id"], true);
    switch (type) {
      case "session.start":
        return this.start(event);
      case "session.input_audio.append":
        return this.hear(String(event["audio"] ?? ""));
      case "session.instructions.append": {
        this.send({ type: "session.instructions.appended", delegation_id: event["delegation_id"] ?? null, client_event_id: event["event_id"] });
        const content = String(event["content"] ?? "");
        if (content.includes('"')) this.speak(quoted(content));
        return;
      }
      case "response.item.create": {
        const item = (event["item"] ?? {}) as Json;
        if (item["type"] !== "function_call_output" || !this.waiting || item["call_id"] !== this.waiting.callId) {
          return this.fail("invalid_request_error", "No delegated response is waiting for this function call output.", event["event_id"]);
        }
        this.waiting.output = String(item["output"] ?? "");
        return;
      }
      case "response.create": {
        const waiting = this.waiting;
        if (!waiting?.output) return this.fail("invalid_request_error", "No delegated response is waiting for tool results.", event["event_id"]);
        this.waiting = null;
        const after = waiting.after ?? `I found this: ${waiting.output}`;
        if (after) this.speak(after);
        return;
      }
      case "session.update":
        this.session = { ...this.session, delegation: (event["session"] as Json)["delegation"] };
        return this.send({ type: "session.updated", session: this.session });
      case "session.close":
        this.closedBy = "session.close";
        this.reportedSeconds = Math.round(this.audioMs / 1000);
        this.send({ type: "session.closed", reason: "client_closed", session: this.session, usage: { seconds: this.reportedSeconds } });
        this.ws.close(1000);
        return;
      default:
        return this.fail("unknown_event", `Unknown client event type: ${String(type)}`, event["event_id"]);
    }
  }

  private start(event: Json): void {
    const session = (event["session"] ?? {}) as Json;
    const unknown = Object.keys(session).find((key) => !SESSION_FIELDS.has(key));
    if (unknown) return this.fail("unknown_parameter", `Unknown parameter: 'session.${unknown}'.`, event["event_id"], true);
    if (!(GPT_LIVE_MODELS as readonly string[]).includes(String(session["model"]))) return this.fail("model_not_found", `The model '${String(session["model"])}' does not exist.`, event["event_id"], true);
    const voice = ((session["audio"] as Json | undefined)?.["output"] as Json | undefined)?.["voice"];
    if (voice !== undefined && !(GPT_LIVE_VOICES as readonly string[]).includes(String(voice))) return this.fail("invalid_value", `Invalid voice '${String(voice)}'.`, event["event_id"], true);
    const delegation = session["delegation"] as Json | undefined;
    if (delegation?.["type"] === "responses") {
      const responses = delegation["responses"] as Json | undefined;
      if (!responses?.["model"]) return this.fail("missing_required_parameter", "Missing required parameter: 'session.delegation.responses.model'.", event["event_id"], true);
      const tools = (responses["tools"] ?? []) as Json[];
      if (tools.some((t) => t["type"] !== "function" || typeof t["name"] !== "string")) return this.fail("invalid_value", "Each delegated tool must be a function with a name.", event["event_id"], true);
    }
    this.session = session;
    this.send({ type: "session.started", session: { id: this.id("live"), ...session } });
  }

  private hear(audio: string): void {
    const ms = Buffer.from(audio, "base64").length / PCM_BYTES_PER_MS;
    this.audioMs += ms;
    // Quiet frames (a phone line sends them all through a pause) are no speech.
    const pcm = Buffer.from(audio, "base64");
    let loud = false;
    for (let i = 0; i + 1 < pcm.length && !loud; i += 2) loud = Math.abs(pcm.readInt16LE(i)) > QUIET;
    if (!loud) return;
    // One line per burst of caller audio: a pause (no speech for a while) starts the next burst.
    const now = performance.now();
    if (now - this.lastAudioAt > BURST_GAP_MS) {
      this.callerMs = 0;
      this.lineSaid = false;
    }
    this.lastAudioAt = now;
    this.callerMs += ms;
    if (this.lineSaid || this.callerMs < (this.script.speechMs ?? 300) || this.userSays.length === 0) return;
    this.lineSaid = true;
    const line = this.userSays.shift()!;
    this.heard.push(line);
    const start = Math.round(this.audioMs);
    for (const word of line.split(" ")) this.send({ type: "session.input_transcript.delta", delta: `${word} `, start_ms: start, end_ms: start });
    const reply = this.replies.shift();
    if (!reply) return;
    // The model answers once the caller has paused, as a voice model does, not in the same breath.
    setTimeout(() => {
      if (reply.say) this.speak(reply.say);
      if (reply.call) this.delegate(reply.call, reply.after);
    }, this.script.replyAfterMs ?? 300);
  }

  private delegate(call: NonNullable<GptLiveReply["call"]>, after: string | undefined): void {
    const delegationId = this.id("delegation");
    const responseId = this.id("resp");
    const callId = this.id("call");
    const envelope = (inner: Json) => this.send({ type: "response.event", delegation_id: delegationId, event: inner });
    this.send({ type: "session.delegation.created", delegation: { id: delegationId, type: "delegation", target: "responses" }, offset_ms: Math.round(this.audioMs) });
    envelope({ type: "response.created", response: { id: responseId, status: "in_progress" } });
    if (!this.toolNames.includes(call.name)) {
      envelope({ type: "response.failed", response: { id: responseId, status: "failed", error: { message: `No tool named ${call.name}` } } });
      return;
    }
    const item = { id: this.id("fc"), type: "function_call", status: "completed", call_id: callId, name: call.name, arguments: JSON.stringify(call.arguments) };
    envelope({ type: "response.output_item.done", output_index: 0, item });
    envelope({ type: "response.completed", response: { id: responseId, status: "completed" } });
    this.waiting = { callId, after };
  }

  private speak(text: string): void {
    this.spoken.push(text);
    const msPerWord = this.script.msPerWord ?? 200;
    const words = text.split(" ");
    words.forEach((word, i) => {
      this.send({ type: "session.output_audio.delta", delta: tone("audio/pcm", msPerWord, i * msPerWord * 24).toString("base64") });
      this.send({ type: "session.output_transcript.delta", delta: i === 0 ? word : ` ${word}`, start_ms: 0, end_ms: 0 });
    });
  }
}

export interface FakeGptLive {
  readonly connections: FakeGptLiveConnection[];
  script: GptLiveScript;
  connection(index?: number): Promise<FakeGptLiveConnection>;
}

/** GPT-Live on `realtime`'s server: every WebSocket opened on /v1/live/sessions from now on. */
export function serveGptLive(realtime: FakeRealtime, script: GptLiveScript = {}): FakeGptLive {
  const live: FakeGptLive = {
    connections: [],
    script,
    connection: (index = 0) => until(`GPT-Live connection #${index}`, async () => live.connections[index], Boolean).then((c) => c!),
  };
  realtime.live = (ws, headers) => live.connections.push(new FakeGptLiveConnection(ws, headers, live.script));
  return live;
}
