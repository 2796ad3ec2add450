/**
 * In-memory Transport and a provider that never answers, for call-engine tests that need no
 * sockets (states before the provider is ready, close before start, ...).
 */
import type { ServerMessage } from "../../src/shared/calls.ts";
import { wireByteLength, type CallAudioFormat, type WireAudio } from "../../src/server/voice/audio.ts";
import type { RealtimeProvider, RealtimeProviderHandlers } from "../../src/server/voice/providers/openai-realtime.ts";
import type { Transport, TransportHandlers } from "../../src/server/voice/seams.ts";

export class MemoryTransport implements Transport {
  readonly sent: ServerMessage[] = [];
  readonly audio: Array<{ itemId: string; bytes: number }> = [];
  handlers: TransportHandlers | null = null;
  clears = 0;
  closed: { code: number; reason: string } | null = null;

  constructor(readonly audioFormat: CallAudioFormat = "audio/pcm") {}

  start(handlers: TransportHandlers): void {
    this.handlers = handlers;
  }
  /** Set to refuse assistant audio, as a backed-up socket does. */
  refuseAudio = false;

  sendAudio(itemId: string, audio: WireAudio): boolean {
    if (this.refuseAudio) return false;
    this.audio.push({ itemId, bytes: wireByteLength(audio) });
    return true;
  }
  clearPlayback(flushed: () => void): void {
    this.clears += 1;
    flushed();
  }
  send(message: ServerMessage): void {
    this.sent.push(message);
  }
  close(code = 1000, reason = ""): void {
    this.closed ??= { code, reason };
  }
}

/** Connects to nothing: the call stays "connecting" until something closes it. */
export class SilentProvider implements RealtimeProvider {
  handlers: RealtimeProviderHandlers | null = null;
  readonly calls: string[] = [];
  closed = false;
  isOpen = false;

  connect(handlers: RealtimeProviderHandlers): void {
    this.handlers = handlers;
  }
  private record(name: string): boolean {
    this.calls.push(name);
    return this.isOpen;
  }
  updateSession(): boolean {
    return this.record("updateSession");
  }
  appendAudio(): boolean {
    return this.record("appendAudio");
  }
  createItem(): boolean {
    return this.record("createItem");
  }
  createResponse(): boolean {
    return this.record("createResponse");
  }
  cancelResponse(): boolean {
    return this.record("cancelResponse");
  }
  truncate(): boolean {
    return this.record("truncate");
  }
  clientEventType(): string | undefined {
    return undefined;
  }
  close(code = 1000, reason = ""): void {
    if (this.closed) return;
    this.closed = true;
    this.handlers?.close(code, reason);
  }
}
