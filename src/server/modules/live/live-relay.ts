/**
 * One watched call across instances (docs/decisions/047-live-board-across-instances.md). A
 * supervisor's socket may reach an instance that does not carry the call: that instance (the
 * serving side, which checked the session, role and account) relays the socket over the
 * database bus to the carrier's own channel, where a Watcher stands in for the socket — so the
 * call's supervision works exactly as for a local supervisor: commands, microphone, transcript,
 * control, `ended` and the mixed audio (20 ms frames, well under NOTIFY's limit).
 *
 * Each side keeps the other honest: the serving side pings its sessions every PING_MS and the
 * carrier drops a watcher not pinged for 3 × PING_MS (a serving instance that died hands a
 * taken-over call back); the serving side closes a socket whose call left its board (the
 * carrier died or the call ended).
 */
import { createHash, randomUUID } from "node:crypto";
import type { FastifyBaseLogger } from "fastify";
import type WebSocket from "ws";
import { SESSION_ENDED_CLOSE } from "../../../shared/auth.ts";
import type { SupervisorAction } from "../../../shared/calls.ts";
import { LIVE_TEXTS, supervisorMessageSchema, type CallServerMessage, type SupervisorMessage } from "../../../shared/live.ts";
import type { Bus } from "../../db/bus.ts";
import { SocketLink } from "../../voice/transports/socket-link.ts";
import type { CallSupervision, Watcher } from "../../voice/supervision.ts";
import type { LiveCalls } from "../calls/live-calls.ts";
import type { LivePeers } from "./live-peers.ts";
import { parseCommand, SUPERVISOR_SOCKET } from "./live-watch.ts";

const PING_MS = 5000;

type RelayMessage =
  // serving → carrier
  | { t: "join"; s: string; from: string; org: string; callId: string; name: string }
  | { t: "cmd"; s: string; m: SupervisorMessage }
  | { t: "mic"; s: string; d: string }
  | { t: "leave"; s: string }
  | { t: "ping"; ss: string[] }
  // carrier → serving
  | { t: "msg"; s: string; m: CallServerMessage }
  | { t: "audio"; s: string; d: string }
  | { t: "close"; s: string }
  | { t: "acted"; s: string; action: SupervisorAction };

/** An instance's own relay channel (a NOTIFY channel name is at most 63 characters). */
export const relayChannel = (instanceId: string) => `switchboard_live_${createHash("sha256").update(instanceId).digest("hex").slice(0, 24)}`;

interface Carried {
  watcher: Watcher;
  supervision: CallSupervision;
  seenAt: number;
}

interface Served {
  link: SocketLink;
  carrier: string;
  org: string;
  callId: string;
  acted?: (action: SupervisorAction) => void;
}

export class LiveRelay {
  private readonly carried = new Map<string, Carried>();
  private readonly served = new Map<string, Served>();
  private stopListening: (() => void) | null = null;
  private timer: NodeJS.Timeout | null = null;

  constructor(
    private readonly bus: Bus,
    private readonly instanceId: string,
    private readonly liveCalls: Pick<LiveCalls, "findSupervised">,
    private readonly peers: Pick<LivePeers, "carrierOf">,
    private readonly log: FastifyBaseLogger,
  ) {}

  async start(): Promise<void> {
    this.stopListening = await this.bus.subscribe(relayChannel(this.instanceId), (payload) => this.heard(JSON.parse(payload) as RelayMessage));
    this.timer = setInterval(() => this.tick(), PING_MS);
    this.timer.unref();
  }

  stop(): void {
    if (this.timer) clearInterval(this.timer);
    this.timer = null;
    this.stopListening?.();
    for (const s of this.served.keys()) this.closeServed(s, 1001, LIVE_TEXTS.notLive);
    for (const { supervision, watcher } of this.carried.values()) supervision.leave(watcher);
    this.carried.clear();
  }

  /**
   * Relays `socket` to the call's carrier (already checked: the actor's account has this call on
   * its board). Returns the end for a supervisor whose session ended, as watchCall does.
   */
  watchRemote(carrier: string, organizationId: string, callId: string, socket: WebSocket, name: string, acted?: (action: SupervisorAction) => void): () => void {
    const s = randomUUID();
    const link = new SocketLink(socket, SUPERVISOR_SOCKET);
    this.served.set(s, { link, carrier, org: organizationId, callId, ...(acted ? { acted } : {}) });
    const toCarrier = (message: RelayMessage) => this.send(carrier, message);
    link.attach({
      message: (data, isBinary) => {
        if (!this.served.has(s)) return;
        if (isBinary) {
          toCarrier({ t: "mic", s, d: data.toString("base64") });
          return;
        }
        const parsed = parseCommand(data);
        if (parsed?.success) toCarrier({ t: "cmd", s, m: parsed.data });
        else link.send(JSON.stringify({ type: "error", message: LIVE_TEXTS.invalidCommand } satisfies CallServerMessage));
      },
      gone: () => {
        if (this.served.delete(s)) toCarrier({ t: "leave", s });
      },
    });
    toCarrier({ t: "join", s, from: this.instanceId, org: organizationId, callId, name });
    return () => this.closeServed(s, SESSION_ENDED_CLOSE.code, SESSION_ENDED_CLOSE.reason);
  }

  private closeServed(s: string, code: number, reason: string): void {
    const served = this.served.get(s);
    if (!served) return;
    this.served.delete(s);
    this.send(served.carrier, { t: "leave", s });
    served.link.close(code, reason);
  }

  private send(instanceId: string, message: RelayMessage): void {
    this.bus.publish(relayChannel(instanceId), JSON.stringify(message)).catch((err: unknown) => this.log.warn({ err }, "relaying a watched call's message failed"));
  }

  private heard(message: RelayMessage): void {
    switch (message.t) {
      case "join":
        return this.join(message);
      case "cmd": {
        const carried = this.carried.get(message.s);
        const parsed = supervisorMessageSchema.safeParse(message.m);
        if (carried && parsed.success) carried.supervision.command(carried.watcher, parsed.data);
        return;
      }
      case "mic": {
        const carried = this.carried.get(message.s);
        if (carried) carried.supervision.supervisorAudio(carried.watcher, Buffer.from(message.d, "base64"));
        return;
      }
      case "leave": {
        const carried = this.carried.get(message.s);
        if (!carried) return;
        this.carried.delete(message.s);
        carried.supervision.leave(carried.watcher);
        return;
      }
      case "ping":
        for (const s of message.ss) {
          const carried = this.carried.get(s);
          if (carried) carried.seenAt = Date.now();
        }
        return;
      case "msg":
        this.served.get(message.s)?.link.send(JSON.stringify(message.m));
        return;
      case "audio":
        this.served.get(message.s)?.link.send(Buffer.from(message.d, "base64"), true);
        return;
      case "acted":
        this.served.get(message.s)?.acted?.(message.action);
        return;
      case "close": {
        const served = this.served.get(message.s);
        if (!served) return;
        this.served.delete(message.s);
        served.link.close(1000, LIVE_TEXTS.notLive);
        return;
      }
    }
  }

  /** Carrier side: a supervisor on another instance joins one of this instance's calls. */
  private join(message: Extract<RelayMessage, { t: "join" }>): void {
    const { s, from } = message;
    const supervision = this.liveCalls.findSupervised(message.org, message.callId);
    if (!supervision) {
      this.send(from, { t: "close", s });
      return;
    }
    const watcher: Watcher = {
      name: message.name,
      send: (m) => this.send(from, { t: "msg", s, m }),
      audio: (frame) => this.send(from, { t: "audio", s, d: frame.toString("base64") }),
      close: () => {
        this.carried.delete(s);
        this.send(from, { t: "close", s });
      },
      acted: (action) => this.send(from, { t: "acted", s, action }),
    };
    this.carried.set(s, { watcher, supervision, seenAt: Date.now() });
    supervision.join(watcher);
  }

  private tick(): void {
    const byCarrier = new Map<string, string[]>();
    for (const [s, served] of this.served) {
      // The call left the board (ended, or its carrier died): nothing more will come.
      if (this.peers.carrierOf(served.org, served.callId) !== served.carrier) {
        this.closeServed(s, 1000, LIVE_TEXTS.notLive);
        continue;
      }
      byCarrier.set(served.carrier, [...(byCarrier.get(served.carrier) ?? []), s]);
    }
    for (const [carrier, ss] of byCarrier) this.send(carrier, { t: "ping", ss });
    const lapsed = Date.now() - 3 * PING_MS;
    for (const [s, carried] of this.carried) {
      if (carried.seenAt >= lapsed) continue;
      this.carried.delete(s);
      carried.supervision.leave(carried.watcher);
    }
  }
}
