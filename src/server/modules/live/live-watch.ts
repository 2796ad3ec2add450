/**
 * One supervisor's socket on one call (WS /api/live/calls/:callId): the Watcher the call's
 * supervision talks to, and the commands and microphone frames coming the other way, on the
 * socket handling the caller transports use (socket-link.ts: a heartbeat, so a supervisor in
 * control whose network died hands the call back; sends refused, not queued, under backpressure).
 * Text frames are commands (src/shared/live.ts), checked once here: anything unreadable
 * answers an `error` message and changes nothing. Binary frames are the supervisor's
 * microphone (PCM16 at the call's rate), used only from the supervisor who took over.
 */
import type WebSocket from "ws";
import { SESSION_ENDED_CLOSE } from "../../../shared/auth.ts";
import { LIVE_TEXTS, supervisorMessageSchema, type CallServerMessage } from "../../../shared/live.ts";
import { SocketLink } from "../../voice/transports/socket-link.ts";
import type { SupervisorAction } from "../../../shared/calls.ts";
import type { CallSupervision, Watcher } from "../../voice/supervision.ts";

/** A supervisor whose socket backs up this far loses frames instead of growing our memory (~10 s at 24 kHz). */
const MAX_BUFFERED_BYTES = 512 * 1024;
const HEARTBEAT_MS = 30_000;
/** A supervisor's socket, on the carrying instance or relayed from another (live-relay.ts). */
export const SUPERVISOR_SOCKET = { heartbeatMs: HEARTBEAT_MS, maxBufferedBytes: MAX_BUFFERED_BYTES };

export function parseCommand(data: Buffer) {
  try {
    return supervisorMessageSchema.safeParse(JSON.parse(data.toString("utf8")));
  } catch {
    return null;
  }
}

/**
 * Returns the end for a supervisor whose session ended: no more commands, gone from the call, closed with 4401.
 * `acted` hears each action of this supervisor once it took effect (the audit log).
 */
export function watchCall(supervision: CallSupervision, socket: WebSocket, name: string, acted?: (action: SupervisorAction) => void): () => void {
  const link = new SocketLink(socket, SUPERVISOR_SOCKET);
  const watcher: Watcher = {
    name,
    send: (message: CallServerMessage) => void link.send(JSON.stringify(message)),
    audio: (frame) => void link.send(frame, true),
    close: () => link.close(1000, LIVE_TEXTS.notLive),
    ...(acted ? { acted } : {}),
  };
  link.attach({
    message: (data, isBinary) => {
      if (isBinary) {
        supervision.supervisorAudio(watcher, data);
        return;
      }
      const parsed = parseCommand(data);
      if (parsed?.success) supervision.command(watcher, parsed.data);
      else watcher.send({ type: "error", message: LIVE_TEXTS.invalidCommand });
    },
    gone: () => supervision.leave(watcher),
  });
  supervision.join(watcher);
  return () => {
    link.close(SESSION_ENDED_CLOSE.code, SESSION_ENDED_CLOSE.reason);
    supervision.leave(watcher);
  };
}
