/**
 * The browser end of WS /api/calls/live (protocol in src/shared/calls.ts): microphone chunks
 * out as binary frames, the assistant's audio in as binary frames into the playback queue,
 * JSON control messages both ways. Owns the capture and playback for the call's lifetime.
 */
import { serverMessageSchema, type ClientMessage, type ServerMessage, type UserEndReason } from "@shared/calls";
import type { Capture } from "@/lib/audio/audio-capture";
import type { Playback } from "@/lib/audio/audio-playback";
import type { PlaybackReport } from "@/lib/audio/playback-worklet";
import { parseFrame, socketUrl } from "@/lib/socket-url";

export interface CallSocketHandlers {
  open(): void;
  /** Every control message except audio_start and clear, which the socket handles itself. */
  message(message: ServerMessage): void;
  /** The socket failed (before or after opening); `close` follows. */
  error(opened: boolean): void;
  close(code: number, reason: string): void;
  /** Microphone level (0..1) of each chunk sent. */
  micLevel(level: number): void;
  /** Output level of the assistant's voice, and whether it is playing. */
  speaker(level: number, playing: boolean): void;
}

/** A stalled socket must not grow memory without bound: about 20 s of microphone audio. */
const MAX_BUFFERED_BYTES = 1024 * 1024;
/** How long to wait for the server to finish the call after `end` before hanging up. */
const END_GRACE_MS = 5000;

export function liveCallUrl(sessionId: string, location: Location = window.location): string {
  return socketUrl(`/api/calls/live?session_id=${encodeURIComponent(sessionId)}`, location);
}

export class CallSocket {
  private readonly ws: WebSocket;
  private capture: Capture | null = null;
  private opened = false;
  private closed = false;
  private micOn = true;
  private itemId: string | null = null;
  private pendingEnd: UserEndReason | null = null;
  private endTimer: ReturnType<typeof setTimeout> | null = null;

  constructor(
    sessionId: string,
    private readonly playback: Playback,
    private readonly handlers: CallSocketHandlers,
  ) {
    this.ws = new WebSocket(liveCallUrl(sessionId));
    this.ws.binaryType = "arraybuffer";
    this.ws.onopen = this.onOpen;
    this.ws.onmessage = this.onMessage;
    this.ws.onerror = () => {
      if (!this.closed) this.handlers.error(this.opened);
    };
    this.ws.onclose = (event) => this.onClose(event.code, event.reason);
  }

  get isOpen(): boolean {
    return this.ws.readyState === WebSocket.OPEN;
  }

  /** The microphone joins once its worklet runs; chunks go out while the socket is open. */
  attachCapture(capture: Capture): void {
    if (this.closed) {
      capture.stop();
      return;
    }
    this.capture = capture;
    capture.setEnabled(this.micOn);
  }

  /** Microphone chunk from the capture worklet. */
  sendAudio(pcm: ArrayBuffer, level: number): void {
    if (!this.micOn || this.closed || !this.isOpen) return;
    this.handlers.micLevel(level);
    if (this.ws.bufferedAmount > MAX_BUFFERED_BYTES) return;
    this.ws.send(pcm);
  }

  setMicrophone(on: boolean): void {
    this.micOn = on;
    this.capture?.setEnabled(on);
    if (!on) this.handlers.micLevel(0);
  }

  /** A typed message; false when it could not be handed to the socket. */
  sendText(text: string): boolean {
    return this.send({ type: "user_text", text });
  }

  /** Playback accounting from the playback worklet. */
  played(report: PlaybackReport): void {
    this.handlers.speaker(report.level, report.playing);
    this.send({ type: "playback", itemId: report.itemId, playedMs: report.playedMs });
  }

  /**
   * Ask the server to end the call: it finalises the record, sends `ended` and closes with
   * 1000. Audio stops at once; if the server does not finish in time, hang up ourselves.
   */
  end(reason: UserEndReason): void {
    if (this.closed) return;
    this.stopAudio();
    if (this.ws.readyState === WebSocket.CONNECTING) this.pendingEnd = reason;
    else this.send({ type: "end", reason });
    this.endTimer ??= setTimeout(() => this.hangUp(), END_GRACE_MS);
  }

  /** Unmount: say why, then close without waiting. */
  dispose(reason: UserEndReason): void {
    if (this.closed) return;
    this.send({ type: "end", reason });
    this.hangUp();
  }

  private hangUp(): void {
    this.stopAudio();
    if (this.ws.readyState === WebSocket.CONNECTING || this.ws.readyState === WebSocket.OPEN) this.ws.close(1000, "Call ended");
  }

  private stopAudio(): void {
    this.capture?.stop();
    this.capture = null;
    this.playback.close();
    this.handlers.micLevel(0);
    this.handlers.speaker(0, false);
  }

  private send(message: ClientMessage): boolean {
    if (!this.isOpen) return false;
    try {
      this.ws.send(JSON.stringify(message));
      return true;
    } catch {
      return false;
    }
  }

  private readonly onOpen = (): void => {
    this.opened = true;
    if (this.pendingEnd) {
      this.send({ type: "end", reason: this.pendingEnd });
      return;
    }
    this.handlers.open();
  };

  private readonly onMessage = (event: MessageEvent<ArrayBuffer | string>): void => {
    if (this.closed) return;
    if (typeof event.data !== "string") {
      // Audio is only ever announced by audio_start; anything else is a stray of a flushed item.
      if (this.itemId && event.data.byteLength > 0) this.playback.push(this.itemId, event.data);
      return;
    }
    const message = parseFrame(serverMessageSchema, event.data);
    if (!message) return;
    switch (message.type) {
      case "audio_start":
        this.itemId = message.itemId;
        return;
      case "clear":
        this.itemId = null;
        this.playback.clear();
        return;
      case "ended":
        this.stopAudio();
        break;
    }
    this.handlers.message(message);
  };

  private onClose(code: number, reason: string): void {
    if (this.closed) return;
    this.closed = true;
    if (this.endTimer) clearTimeout(this.endTimer);
    this.stopAudio();
    this.handlers.close(code, reason);
  }
}
