/**
 * Transactions (RFC 3261 §17): the retransmissions UDP needs, and the absorbing of the far
 * end's retransmissions. Reliable transports (TCP) run the same machines with the timers that
 * only UDP needs set to zero or not started, as §17 says.
 */
import type { SipRequest, SipResponse } from "./message.ts";
import type { Peer } from "./transport.ts";

export interface Timers {
  /** RTT estimate (500 ms), the longest retransmit interval (4 s), a message's life in the network (5 s). */
  t1: number;
  t2: number;
  t4: number;
}

export const DEFAULT_TIMERS: Timers = { t1: 500, t2: 4000, t4: 5000 };

/** What the sender of a request is told; `unreachable`, when given, hears of a failed connection (else `timeout`). */
export interface ClientHandlers {
  response(r: SipResponse): void;
  timeout(): void;
  unreachable?(error: Error): void;
  ackFor?(r: SipResponse): SipRequest;
}

type Send = (message: SipRequest | SipResponse, to: Peer) => void;

const reliable = (peer: Peer) => peer.transport !== "UDP";

/** Timers kept per transaction so that ending it stops every one. */
class TimerSet {
  private readonly handles = new Set<NodeJS.Timeout>();
  set(fn: () => void, ms: number) {
    const h = setTimeout(() => (this.handles.delete(h), fn()), ms);
    h.unref();
    this.handles.add(h);
    return h;
  }
  clear(h: NodeJS.Timeout | undefined) {
    if (!h) return;
    clearTimeout(h);
    this.handles.delete(h);
  }
  clearAll() {
    for (const h of this.handles) clearTimeout(h);
    this.handles.clear();
  }
}

/**
 * Server INVITE transaction (§17.2.1, with RFC 6026's Accepted state): 100 Trying at once; a
 * 2xx is retransmitted (T1 doubling to T2) until its ACK or 64·T1 (then `onNoAck`); a 3xx–6xx
 * is retransmitted by Timer G until its ACK, given up by Timer H, and the ACK's retransmissions
 * are absorbed for Timer I.
 */
export class ServerInviteTransaction {
  state: "proceeding" | "accepted" | "completed" | "confirmed" | "terminated" = "proceeding";
  private last: SipResponse | null = null;
  private readonly timers = new TimerSet();
  private retransmit: NodeJS.Timeout | undefined;

  constructor(
    readonly request: SipRequest,
    readonly peer: Peer,
    private readonly send: Send,
    private readonly t: Timers,
    private readonly onEnd: (outcome: "acked" | "no-ack" | "done") => void,
  ) {}

  respond(response: SipResponse): void {
    if (this.state !== "proceeding") return;
    this.last = response;
    this.send(response, this.peer);
    if (response.status < 200) return;
    if (response.status < 300) {
      this.state = "accepted";
      this.retransmitUntilAck(this.t.t1);
      this.timers.set(() => this.end("no-ack"), 64 * this.t.t1);
      return;
    }
    this.state = "completed";
    if (!reliable(this.peer)) this.retransmitUntilAck(this.t.t1);
    this.timers.set(() => this.end("no-ack"), 64 * this.t.t1);
  }

  private retransmitUntilAck(interval: number) {
    // The 2xx is retransmitted over TCP too: its ACK is end to end, not hop by hop (§13.3.1.4).
    if (this.state === "completed" && reliable(this.peer)) return;
    this.retransmit = this.timers.set(() => {
      if (this.last && (this.state === "accepted" || this.state === "completed")) this.send(this.last, this.peer);
      this.retransmitUntilAck(Math.min(interval * 2, this.t.t2));
    }, interval);
  }

  /** The INVITE came again: say again what we last said. */
  requestRetransmitted(): void {
    if (this.last && this.state !== "terminated" && this.state !== "confirmed") this.send(this.last, this.peer);
  }

  /** An ACK for this INVITE (same branch for a non-2xx, same dialog and CSeq for a 2xx). */
  ack(): void {
    if (this.state === "accepted") return this.end("acked");
    if (this.state !== "completed") return;
    this.state = "confirmed";
    this.timers.clearAll();
    this.timers.set(() => this.end("done"), reliable(this.peer) ? 0 : this.t.t4);
  }

  private end(outcome: "acked" | "no-ack" | "done") {
    if (this.state === "terminated") return;
    this.state = "terminated";
    this.timers.clear(this.retransmit);
    this.timers.clearAll();
    this.onEnd(outcome);
  }

  stop(): void {
    this.end("done");
  }
}

/** Server non-INVITE transaction (§17.2.2): retransmitted requests get the last answer again until Timer J. */
export class ServerNonInviteTransaction {
  private last: SipResponse | null = null;
  private readonly timers = new TimerSet();
  private done = false;

  constructor(
    readonly request: SipRequest,
    readonly peer: Peer,
    private readonly send: Send,
    private readonly t: Timers,
    private readonly onEnd: () => void,
  ) {}

  respond(response: SipResponse): void {
    if (this.done || (this.last && this.last.status >= 200)) return;
    this.last = response;
    this.send(response, this.peer);
    if (response.status >= 200) this.timers.set(() => this.stop(), reliable(this.peer) ? 0 : 64 * this.t.t1);
  }

  requestRetransmitted(): void {
    if (this.last && !this.done) this.send(this.last, this.peer);
  }

  stop(): void {
    if (this.done) return;
    this.done = true;
    this.timers.clearAll();
    this.onEnd();
  }
}

/**
 * Client transactions (§17.1): INVITE (Timer A retransmits, B gives up, D absorbs the final
 * answer's retransmissions, ACKing each non-2xx) and non-INVITE (E, F, K).
 */
export class ClientTransaction {
  state: "calling" | "proceeding" | "completed" | "terminated" = "calling";
  private readonly timers = new TimerSet();
  private retransmit: NodeJS.Timeout | undefined;

  constructor(
    readonly request: SipRequest,
    readonly peer: Peer,
    private readonly send: Send,
    private readonly t: Timers,
    private readonly handlers: ClientHandlers & { ended(): void },
  ) {
    send(request, peer);
    if (!reliable(peer)) this.schedule(t.t1);
    this.timers.set(() => this.timedOut(), 64 * t.t1);
  }

  private get invite() {
    return this.request.method === "INVITE";
  }

  private schedule(interval: number) {
    this.retransmit = this.timers.set(() => {
      if (this.state === "terminated" || this.state === "completed") return;
      this.send(this.request, this.peer);
      this.schedule(this.invite ? interval * 2 : Math.min(interval * 2, this.t.t2));
    }, interval);
  }

  private timedOut() {
    if (this.state !== "calling" && this.state !== "proceeding") return;
    this.finish();
    this.handlers.timeout();
  }

  /** The connection for the request could not be made (§17.1.4): as good as no answer, at once. */
  transportFailed(error: Error): void {
    if (this.state !== "calling") return;
    if (!this.handlers.unreachable) return this.timedOut();
    this.finish();
    this.handlers.unreachable(error);
  }

  receive(response: SipResponse): void {
    if (this.state === "terminated") return;
    if (this.state === "completed") {
      // A retransmitted final answer: an INVITE's non-2xx is ACKed again, nothing goes up.
      if (this.invite && response.status >= 300 && this.handlers.ackFor) this.send(this.handlers.ackFor(response), this.peer);
      return;
    }
    if (response.status < 200) {
      if (this.invite) this.timers.clear(this.retransmit);
      else if (this.state === "calling") {
        this.timers.clear(this.retransmit);
        if (!reliable(this.peer)) this.schedule(this.t.t2);
      }
      this.state = "proceeding";
      this.handlers.response(response);
      return;
    }
    this.timers.clearAll();
    if (this.invite && response.status < 300) {
      // The 2xx's ACK and its retransmissions belong to the dialog (§17.1.1.2).
      this.finish();
      this.handlers.response(response);
      return;
    }
    this.state = "completed";
    if (this.invite && this.handlers.ackFor) this.send(this.handlers.ackFor(response), this.peer);
    this.handlers.response(response);
    const linger = reliable(this.peer) ? 0 : this.invite ? 32_000 : this.t.t4;
    this.timers.set(() => this.finish(), Math.min(linger, 64 * this.t.t1));
  }

  private finish() {
    if (this.state === "terminated") return;
    this.state = "terminated";
    this.timers.clearAll();
    this.handlers.ended();
  }

  stop(): void {
    this.finish();
  }
}
