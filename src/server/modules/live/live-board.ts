/**
 * The board sockets of this instance (WS /api/live/board), grouped by account: a `calls`
 * snapshot when one opens, then one `call_updated` / `call_removed` per change of one of the
 * account's calls, pushed by the LiveCalls registry (already throttled per call by the call's
 * supervision), and the same of the other instances' calls, heard from the database bus
 * (live-peers.ts; docs/decisions/032-live-board.md, 047-live-board-across-instances.md).
 *
 * Each socket is a SocketLink: a heartbeat drops a board whose network died, and a board that
 * stops reading is cut off once its backlog passes twice MAX_BUFFERED_BYTES (the page reconnects
 * and gets a fresh snapshot) instead of queueing summaries in this process without bound.
 */
import type WebSocket from "ws";
import type { BoardServerMessage } from "../../../shared/live.ts";
import { SocketLink } from "../../voice/transports/socket-link.ts";
import type { LiveCalls } from "../calls/live-calls.ts";
import type { LivePeers } from "./live-peers.ts";

const MAX_BUFFERED_BYTES = 256 * 1024;
const HEARTBEAT_MS = 30_000;

export class LiveBoard {
  private readonly links = new Map<string, Set<SocketLink>>();
  private readonly stops: Array<() => void>;

  constructor(
    private readonly liveCalls: Pick<LiveCalls, "watchBoard" | "supervisedBy" | "carriedOnBoard">,
    private readonly peers?: Pick<LivePeers, "watch" | "remoteCalls">,
  ) {
    const local = liveCalls.watchBoard({
      changed: (supervision, call) => this.send(supervision.organizationId, { type: "call_updated", call }),
      removed: (supervision) => {
        if (supervision.callId) this.send(supervision.organizationId, { type: "call_removed", callId: supervision.callId });
      },
    });
    const remote = peers?.watch({
      updated: (organizationId, call) => this.send(organizationId, { type: "call_updated", call }),
      removed: (organizationId, callId) => this.send(organizationId, { type: "call_removed", callId }),
    });
    this.stops = remote ? [local, remote] : [local];
  }

  stop(): void {
    for (const stop of this.stops) stop();
  }

  open(organizationId: string, socket: WebSocket): void {
    let own = this.links.get(organizationId);
    if (!own) {
      own = new Set();
      this.links.set(organizationId, own);
    }
    const link = new SocketLink(socket, { heartbeatMs: HEARTBEAT_MS, maxBufferedBytes: MAX_BUFFERED_BYTES });
    own.add(link);
    link.attach({
      // Nothing is expected from the board; whatever comes is ignored.
      message: () => {},
      gone: () => {
        own.delete(link);
        if (own.size === 0 && this.links.get(organizationId) === own) this.links.delete(organizationId);
      },
    });
    const calls = [
      ...this.liveCalls.supervisedBy(organizationId).map((supervision) => supervision.summary()),
      ...this.liveCalls.carriedOnBoard().filter((c) => c.organizationId === organizationId).map((c) => c.summary),
      ...(this.peers?.remoteCalls(organizationId) ?? []),
    ];
    link.send(JSON.stringify({ type: "calls", calls } satisfies BoardServerMessage));
  }

  private send(organizationId: string, message: BoardServerMessage): void {
    const own = this.links.get(organizationId);
    if (!own) return;
    const text = JSON.stringify(message);
    for (const link of own) link.send(text);
  }
}
