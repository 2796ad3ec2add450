/**
 * The browser side of WS /api/calls/live for tests: a real `ws` client speaking the live-socket
 * protocol of src/shared/calls.ts (binary PCM16 24 kHz, JSON control messages).
 */
import WebSocket from "ws";
import { socketOpened, Waiters } from "./waiters.ts";
import {
  serverMessageSchema,
  type ClientMessage,
  type ServerMessage,
  type TranscriptEntry,
  type UserEndReason,
} from "../../src/shared/calls.ts";
import { tone } from "./realtime-audio.ts";

export class TestBrowser {
  readonly messages: ServerMessage[] = [];
  /** Bytes of assistant audio received per item (announced by audio_start). */
  readonly audio = new Map<string, number>();
  readonly entries: Array<TranscriptEntry | undefined> = [];
  closed: { code: number; reason: string } | null = null;
  private currentItem: string | null = null;
  private readonly waiters = new Waiters();

  private constructor(private readonly ws: WebSocket) {
    ws.on("message", (data, isBinary) => {
      if (isBinary) {
        const bytes = (data as Buffer).length;
        const item = this.currentItem ?? "(unannounced)";
        this.audio.set(item, (this.audio.get(item) ?? 0) + bytes);
      } else {
        const message = serverMessageSchema.parse(JSON.parse(data.toString()));
        this.messages.push(message);
        if (message.type === "audio_start") this.currentItem = message.itemId;
        if (message.type === "clear") this.currentItem = null;
        if (message.type === "transcript") this.entries[message.index] = message.entry;
        if (message.type === "transcript_delta") {
          const entry = this.entries[message.index];
          if (!entry) throw new Error(`transcript_delta for unknown entry ${message.index}`);
          this.entries[message.index] = { ...entry, content: entry.content + message.text };
        }
      }
      this.waiters.notify();
    });
    ws.on("close", (code, reason) => {
      this.closed = { code, reason: reason.toString() };
      this.waiters.notify();
    });
    ws.on("error", () => {});
  }

  /** Rejects with "Unexpected server response: <status>" when the upgrade is refused. */
  static async connect(url: string, options: { headers?: Record<string, string> } = {}): Promise<TestBrowser> {
    const ws = new WebSocket(url, { headers: options.headers });
    const browser = new TestBrowser(ws);
    await socketOpened(ws);
    return browser;
  }

  until(check: () => boolean, what = "condition", timeoutMs = 5000): Promise<void> {
    return this.waiters.until(check, () => `browser: timed out waiting for ${what}; statuses: ${this.statuses().join(" | ")}`, timeoutMs);
  }

  /** The transcript as shown: entries in index order, holes skipped. */
  transcript(): TranscriptEntry[] {
    return this.entries.filter((e): e is TranscriptEntry => e !== undefined);
  }

  statuses(): string[] {
    return this.messages.flatMap((m) => (m.type === "status" ? [m.text] : []));
  }

  errors(): string[] {
    return this.messages.flatMap((m) => (m.type === "error" ? [m.message] : []));
  }

  of<T extends ServerMessage["type"]>(type: T): Array<Extract<ServerMessage, { type: T }>> {
    return this.messages.filter((m): m is Extract<ServerMessage, { type: T }> => m.type === type);
  }

  untilStatus(text: string, timeoutMs?: number): Promise<void> {
    return this.until(() => this.statuses().includes(text), `status "${text}"`, timeoutMs);
  }

  untilClosed(timeoutMs?: number): Promise<void> {
    return this.until(() => this.closed !== null, "socket close", timeoutMs);
  }

  private control(message: ClientMessage): void {
    this.ws.send(JSON.stringify(message));
  }

  /** Microphone audio: `ms` of tone as PCM16 24 kHz, in 4096-sample frames like the worklet. */
  speak(ms: number): void {
    const audio = tone("audio/pcm", ms);
    for (let at = 0; at < audio.length; at += 8192) this.ws.send(audio.subarray(at, at + 8192), { binary: true });
  }

  sendRaw(data: string | Buffer): void {
    this.ws.send(data, { binary: Buffer.isBuffer(data) });
  }

  sendText(text: string): void {
    this.control({ type: "user_text", text });
  }

  end(reason?: UserEndReason): void {
    this.control(reason ? { type: "end", reason } : { type: "end" });
  }

  playback(itemId: string, playedMs: number): void {
    this.control({ type: "playback", itemId, playedMs });
  }

  /** The browser vanishes without an end message. */
  /** The browser goes silent without closing (laptop asleep): stops reading, so no pong answers a ping. */
  freeze(): void {
    this.ws.pause();
  }

  disconnect(): void {
    this.ws.terminate();
  }
}
