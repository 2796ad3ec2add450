/**
 * The supervisor's end of `WS /api/live/calls/:callId` (src/shared/live.ts): JSON commands out,
 * the call's state in, and the audio both ways — the call's mixed audio (or, after a take-over,
 * the caller) into a playback queue at the call's rate, the supervisor's microphone out while
 * they have control. Owns its playback and capture for the socket's lifetime.
 */
import { callServerMessageSchema, type CallServerMessage, type SupervisorMessage } from "@shared/live";
import { isPermissionDenied, MIC_REQUIRED_MESSAGE, requestMicrophone, startCapture, stopStream, type Capture } from "@/lib/audio/audio-capture";
import { createPlayback, type Playback } from "@/lib/audio/audio-playback";
import { parseFrame, socketUrl } from "@/lib/socket-url";

export interface WatchSocketHandlers {
  message(message: CallServerMessage): void;
  /** The socket closed; `opened` is false when the server refused it (not a live call of this account). */
  close(opened: boolean, code: number, reason: string): void;
  /** Milliseconds of the call played so far and the output level (0..1), about every 100 ms. */
  heard(playedMs: number, level: number): void;
  /** The microphone could not start (refused, no device). */
  micFailed(message: string): void;
}

/** One stream, never flushed: the worklet's per-item accounting then counts everything heard. */
const STREAM_ID = "live";
/**
 * Listen must stay under 500 ms behind the call: the worklet's jitter buffer starts at 60 ms and
 * grows to 300 ms at most; the queue never holds more than this (a burst after a stall is dropped).
 */
const MAX_QUEUED_MS = 400;
/** Microphone chunks of 20 ms (a phone's frame): every sample of a chunk waits for its end. */
const MIC_CHUNK_MS = 20;
/** A stalled socket must not grow memory without bound. */
const MAX_BUFFERED_BYTES = 256 * 1024;

export class WatchSocket {
  private readonly ws: WebSocket;
  private opened = false;
  private closed = false;
  private sampleRate: number | null = null;
  private playback: Playback | null = null;
  private capture: Capture | null = null;
  /** Bumped whenever the microphone should stop: a start still asking for permission checks it. */
  private micAttempt = 0;
  private haveControl = false;

  constructor(
    callId: string,
    private readonly handlers: WatchSocketHandlers,
  ) {
    this.ws = new WebSocket(socketUrl(`/api/live/calls/${encodeURIComponent(callId)}`));
    this.ws.binaryType = "arraybuffer";
    this.ws.onopen = () => {
      this.opened = true;
    };
    this.ws.onmessage = this.onMessage;
    this.ws.onclose = (event) => this.onClose(event.code, event.reason);
  }

  send(message: SupervisorMessage): boolean {
    if (this.closed || this.ws.readyState !== WebSocket.OPEN) return false;
    this.ws.send(JSON.stringify(message));
    return true;
  }

  /**
   * Makes sure the call's audio can be played. Called inside the click that asks for it (Listen,
   * Take over): browsers only let an AudioContext start from a user gesture.
   */
  ensurePlayback(): void {
    if (this.playback || this.closed || this.sampleRate === null) return;
    const playback = createPlayback({ played: (report) => this.handlers.heard(report.playedMs, report.playing ? report.level : 0) }, { sampleRate: this.sampleRate, maxQueuedMs: MAX_QUEUED_MS });
    this.playback = playback;
  }

  stopPlayback(): void {
    this.playback?.close();
    this.playback = null;
    this.handlers.heard(0, 0);
  }

  /** Take over: the microphone first (a refusal sends nothing), then the command. */
  async takeOver(): Promise<void> {
    const attempt = ++this.micAttempt;
    const rate = this.sampleRate;
    if (rate === null || this.closed) return;
    this.ensurePlayback();
    let stream: MediaStream;
    try {
      stream = await requestMicrophone();
    } catch (err) {
      this.handlers.micFailed(isPermissionDenied(err) ? MIC_REQUIRED_MESSAGE : err instanceof Error ? err.message : String(err));
      return;
    }
    if (attempt !== this.micAttempt || this.closed) return stopStream(stream);
    try {
      const capture = await startCapture(stream, (chunk) => this.sendAudio(chunk.pcm), { targetRate: rate, chunkSamples: Math.round((rate * MIC_CHUNK_MS) / 1000) });
      if (attempt !== this.micAttempt || this.closed) return capture.stop();
      this.capture = capture;
    } catch (err) {
      stopStream(stream);
      this.handlers.micFailed(err instanceof Error ? err.message : String(err));
      return;
    }
    this.send({ type: "take_over" });
  }

  handBack(): void {
    this.stopMicrophone();
    this.send({ type: "hand_back" });
  }

  close(): void {
    if (this.closed) return;
    this.ws.close(1000, "Supervisor left");
    this.onClose(1000, "Supervisor left");
  }

  private stopMicrophone(): void {
    this.micAttempt += 1;
    this.capture?.stop();
    this.capture = null;
  }

  private sendAudio(pcm: ArrayBuffer): void {
    // The server drops audio from anyone without control; not sending it saves the bytes.
    if (!this.haveControl || this.closed || this.ws.readyState !== WebSocket.OPEN) return;
    if (this.ws.bufferedAmount > MAX_BUFFERED_BYTES) return;
    this.ws.send(pcm);
  }

  private readonly onMessage = (event: MessageEvent<ArrayBuffer | string>): void => {
    if (this.closed) return;
    if (typeof event.data !== "string") {
      if (event.data.byteLength > 0) this.playback?.push(STREAM_ID, event.data);
      return;
    }
    const message = parseFrame(callServerMessageSchema, event.data);
    if (!message) return;
    if (message.type === "watching") this.sampleRate = message.sampleRate;
    if (message.type === "watching" || message.type === "control") {
      const control = message.control;
      const lostControl = this.haveControl && !control.youHaveControl;
      this.haveControl = control.youHaveControl;
      // Handed back, or the server gave control away: the microphone stops at once.
      if (lostControl) this.stopMicrophone();
      // Audio arrives while listening or in control; the page has had a click by then, so a
      // context created here may start too.
      if (control.listening || control.youHaveControl) this.ensurePlayback();
      else this.stopPlayback();
    }
    if (message.type === "error" && !this.haveControl && this.capture) {
      // A refused take-over (someone was quicker): the microphone must not stay open.
      this.stopMicrophone();
    }
    this.handlers.message(message);
    if (message.type === "ended") this.close();
  };

  private onClose(code: number, reason: string): void {
    if (this.closed) return;
    this.closed = true;
    this.stopMicrophone();
    this.stopPlayback();
    this.handlers.close(this.opened, code, reason);
  }
}
