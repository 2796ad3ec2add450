/**
 * The board sockets of this instance (WS /api/live/board), grouped by account: a `calls`
 * snapshot when one opens, then one `call_updated` / `call_removed` per change of one of the
 * account's calls, pushed by the LiveCalls registry (already throttled per call by the call's
 * supervision). A board sees the calls this instance carries (docs/decisions/032-live-board.md).
 */
import WebSocket from "ws";
import type { BoardServerMessage } from "../../../shared/live.ts";
import type { LiveCalls } from "../calls/live-calls.ts";

export class LiveBoard {
  private readonly sockets = new Map<string, Set<WebSocket>>();
  readonly stop: () => void;

  constructor(private readonly liveCalls: LiveCalls) {
    this.stop = liveCalls.watchBoard({
      changed: (supervision, call) => this.send(supervision.userId, { type: "call_updated", call }),
      removed: (supervision) => {
        if (supervision.callId) this.send(supervision.userId, { type: "call_removed", callId: supervision.callId });
      },
    });
  }

  open(userId: string, socket: WebSocket): void {
    let own = this.sockets.get(userId);
    if (!own) {
      own = new Set();
      this.sockets.set(userId, own);
    }
    own.add(socket);
    socket.on("close", () => {
      own.delete(socket);
      if (own.size === 0 && this.sockets.get(userId) === own) this.sockets.delete(userId);
    });
    // Nothing is expected from the board; whatever comes is ignored.
    socket.on("error", () => {});
    const calls = this.liveCalls.supervisedBy(userId).map((supervision) => supervision.summary());
    socket.send(JSON.stringify({ type: "calls", calls } satisfies BoardServerMessage));
  }

  private send(userId: string, message: BoardServerMessage): void {
    const own = this.sockets.get(userId);
    if (!own) return;
    const text = JSON.stringify(message);
    for (const socket of own) if (socket.readyState === WebSocket.OPEN) socket.send(text);
  }
}
