/**
 * One supervisor's socket on one call (WS /api/live/calls/:callId): the Watcher the call's
 * supervision talks to, and the commands and microphone frames coming the other way.
 * Text frames are commands (src/shared/live.ts), checked once here: anything unreadable
 * answers an `error` message and changes nothing. Binary frames are the supervisor's
 * microphone (PCM16 at the call's rate), used only from the supervisor who took over.
 */
import WebSocket from "ws";
import { LIVE_TEXTS, supervisorMessageSchema, type CallServerMessage } from "../../../shared/live.ts";
import type { CallSupervision, Watcher } from "../../voice/supervision.ts";

/** A listener whose socket backs up this far loses frames instead of growing our memory (~10 s at 24 kHz). */
const MAX_BUFFERED_AUDIO_BYTES = 512 * 1024;

function bytesOf(data: WebSocket.RawData): Buffer {
  if (Buffer.isBuffer(data)) return data;
  return Array.isArray(data) ? Buffer.concat(data) : Buffer.from(data);
}

export function watchCall(supervision: CallSupervision, socket: WebSocket, name: string): void {
  const watcher: Watcher = {
    name,
    send: (message: CallServerMessage) => {
      if (socket.readyState === WebSocket.OPEN) socket.send(JSON.stringify(message));
    },
    audio: (frame) => {
      if (socket.readyState === WebSocket.OPEN && socket.bufferedAmount < MAX_BUFFERED_AUDIO_BYTES) socket.send(frame, { binary: true });
    },
    close: () => socket.close(1000, LIVE_TEXTS.notLive),
  };
  socket.on("message", (data, isBinary) => {
    if (isBinary) {
      supervision.supervisorAudio(watcher, bytesOf(data));
      return;
    }
    let json: unknown;
    try {
      json = JSON.parse(bytesOf(data).toString("utf8"));
    } catch {
      watcher.send({ type: "error", message: LIVE_TEXTS.invalidCommand });
      return;
    }
    const parsed = supervisorMessageSchema.safeParse(json);
    if (!parsed.success) {
      watcher.send({ type: "error", message: LIVE_TEXTS.invalidCommand });
      return;
    }
    supervision.command(watcher, parsed.data);
  });
  socket.on("close", () => supervision.leave(watcher));
  socket.on("error", () => {});
  supervision.join(watcher);
}
