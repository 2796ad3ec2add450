/**
 * The SIP endpoint a trunk or PBX talks to: listens on UDP and TCP (and TLS when given a
 * certificate), keeps the transactions, and routes each message to its call. Requests outside a call are answered here (OPTIONS, and the
 * refusals RFC 3261 §8.2 asks for); a new INVITE becomes a `call` event.
 */
import { lookup } from "node:dns/promises";
import { EventEmitter } from "node:events";
import { isIP } from "node:net";
import { newCallId, newTag, parseUri, parseVia, tagOf, type Via } from "./address.ts";
import { ALLOW, SipCall, type CallCore } from "./call.ts";
import { contactFor, Dialog, viaFor, type DialogState, type LocalContact } from "./dialog.ts";
import { DigestChallenger, type DigestAlgorithm } from "./digest.ts";
import { canAnswer, headerValue, headerValues, parseCSeq, responseTo, splitList, type Headers, type ParseResult, type SipRequest, type SipResponse } from "./message.ts";
import { Registration, type RegistrationOptions } from "./registration.ts";
import type { RtpPortRange } from "./rtp-session.ts";
import { openRtpOnThread } from "./rtp-thread.ts";
import { MIN_SE_S, OUR_SESSION_EXPIRES_S, parseSessionExpires } from "./session-timer.ts";
import { answerOffer, type SrtpPolicy } from "./sdp.ts";
import { ClientTransaction, DEFAULT_TIMERS, type ClientHandlers, ServerInviteTransaction, ServerNonInviteTransaction, type Timers } from "./transactions.ts";
import { SipTransport, type Peer, type TlsSettings, type TransportName } from "./transport.ts";

export interface SipEndpointOptions {
  /** Address to listen on (SIP and RTP). */
  host: string;
  /** SIP port, UDP and TCP alike; 0 picks a free one. */
  port: number;
  transports?: { udp: boolean; tcp: boolean };
  /**
   * SIP over TLS on its own port, and what calls over it do with SRTP (ADR 075): `optional` takes
   * RTP/SAVP when offered and plain RTP otherwise; `required` refuses plain RTP (488).
   */
  tls?: TlsSettings & { srtp?: "optional" | "required" };
  /** The address the far end must reach us at (Via, Contact, SDP) when we sit behind NAT. */
  publicAddress?: string;
  rtp: { ports: RtpPortRange; rtcpIntervalMs?: number; jitterFrames?: number; inactivityMs?: number };
  /** Challenge every new INVITE with digest authentication (RFC 8760 algorithms). */
  auth?: { realm: string; algorithms?: DigestAlgorithm[]; password(username: string): string | undefined };
  timers?: Partial<Timers>;
  userAgent?: string;
  /** The shortest session-timer interval accepted (RFC 4028 Min-SE; 90 s, tests shorten it). */
  minSessionExpires?: number;
}

/** Methods we know but do not take outside a call: 405, not 501 (§8.2.1). */
const KNOWN = new Set(["REGISTER", "SUBSCRIBE", "NOTIFY", "REFER", "MESSAGE", "UPDATE", "PRACK", "PUBLISH", "INFO"]);

export interface OutboundCallOptions {
  /** Whom to call: `sip:+15551234567@trunk.example.com:5060`. */
  uri: string;
  fromUser?: string;
  credentials?: { username: string; password: string };
  transport?: TransportName;
}

/** The default port of a transport when a URI names none (RFC 3261 §19.1.2). */
const defaultPort = (transport: TransportName) => (transport === "TLS" ? 5061 : 5060);

export class SipEndpoint extends EventEmitter<{ call: [call: SipCall]; options: [from: Peer]; connectFailed: [to: Peer, error: Error] }> {
  private readonly transport = new SipTransport(
    (result, from) => this.receive(result, from),
    (to, error) => this.connectFailed(to, error),
  );
  private readonly serverTx = new Map<string, ServerInviteTransaction | ServerNonInviteTransaction>();
  private readonly clientTx = new Map<string, ClientTransaction>();
  private readonly calls = new Map<string, SipCall>();
  private readonly callOfTx = new Map<ServerInviteTransaction, SipCall>();
  private readonly registrations = new Set<Registration>();
  private readonly timers: Timers;
  private readonly challenger: DigestChallenger | null;
  private readonly core: CallCore;

  private constructor(private readonly options: SipEndpointOptions) {
    super();
    this.timers = { ...DEFAULT_TIMERS, ...options.timers };
    this.challenger = options.auth ? new DigestChallenger(options.auth.realm, options.auth.algorithms) : null;
    this.core = {
      local: (peer) => this.local(peer.transport),
      mediaAddress: () => this.advertised,
      send: (message, to) => this.transport.send(message, to),
      request: (request, to, handlers) => this.request(request, to, handlers),
      peerFor: (uri, flow) => this.peerFor(uri, flow),
      openRtp: () => openRtpOnThread({ host: this.options.host, ...this.options.rtp }),
      srtpPolicy: (peer) => this.srtpPolicy(peer),
      forget: (call) => this.calls.delete(`${call.callId}|${call.localTag}`),
    };
  }

  static async start(options: SipEndpointOptions): Promise<SipEndpoint> {
    const endpoint = new SipEndpoint(options);
    await endpoint.transport.listen(options.host, options.port, options.transports ?? { udp: true, tcp: true }, options.tls);
    return endpoint;
  }

  get port(): number {
    return this.transport.port;
  }

  /** The TLS port, or null when this endpoint has no certificate. */
  get tlsPort(): number | null {
    return this.transport.tlsPort;
  }

  /** SDES keys travel inside the SDP: only a call signalled over TLS may carry them (RFC 4568 §8.3). */
  private srtpPolicy(peer: Peer): SrtpPolicy {
    return peer.transport === "TLS" ? (this.options.tls?.srtp ?? "optional") : "refuse";
  }

  private get advertised(): string {
    return this.options.publicAddress ?? (this.options.host === "0.0.0.0" || this.options.host === "::" ? "127.0.0.1" : this.options.host);
  }

  private local(transport: TransportName): LocalContact {
    return { address: this.advertised, port: transport === "TLS" ? (this.tlsPort ?? this.port) : this.port, transport, userAgent: this.options.userAgent ?? "Switchboard" };
  }

  /** Places a call; `answered`/`ended` events say how it went. */
  async call(options: OutboundCallOptions): Promise<SipCall> {
    if (!parseUri(options.uri)) throw new Error(`Not a SIP URI: ${options.uri}`);
    const peer = await this.peerFor(options.uri, { transport: options.transport ?? "UDP", address: "", port: 0 });
    if (!peer) throw new Error(`Cannot reach ${options.uri}`);
    // Without a listener of our own the far end could not open a TLS connection back to our Contact.
    if (peer.transport === "TLS" && !this.transport.tls) throw new Error("SIP over TLS needs a certificate (SIP_TLS_CERT, SIP_TLS_KEY)");
    const local = this.local(peer.transport);
    const tag = newTag();
    const callId = newCallId(local.address);
    const headers: Headers = [
      ["via", viaFor(local)],
      ["max-forwards", "70"],
      ["from", `<sip:${options.fromUser ?? "switchboard"}@${local.address}>;tag=${tag}`],
      ["to", `<${options.uri}>`],
      ["call-id", callId],
      ["cseq", "1 INVITE"],
      ["contact", contactFor(local, "switchboard", parseUri(options.uri)?.scheme === "sips")],
      ["allow", ALLOW],
      // RFC 4028: we take part in session timers; the far end says who refreshes in its 200.
      ["supported", "timer"],
      ["session-expires", String(OUR_SESSION_EXPIRES_S)],
      ["user-agent", local.userAgent],
    ];
    const call = new SipCall(this.core, "outbound", callId, tag, { kind: "request", method: "INVITE", uri: options.uri, headers, body: Buffer.alloc(0) }, null, peer);
    this.calls.set(`${callId}|${tag}`, call);
    await call.place(options.credentials);
    return call;
  }

  /** Keeps a trunk registered at its registrar from here; `start()` sends the first REGISTER. */
  register(options: RegistrationOptions): Registration {
    const registration = new Registration(
      {
        local: (transport) => this.local(transport),
        request: (r, to, handlers) => this.request(r, to, handlers),
        peerFor: (uri, flow) => this.peerFor(uri, flow),
        forget: (r) => this.registrations.delete(r),
      },
      options,
    );
    this.registrations.add(registration);
    return registration;
  }

  /**
   * Ends a dialog this endpoint holds no call for — one whose instance died (ADR 058) — with a
   * BYE built from its saved state. Resolves with the far end's final status, or null without one.
   */
  async byeFor(state: DialogState): Promise<number | null> {
    const dialog = Dialog.fromState(state);
    const peer = await this.peerFor(dialog.nextHop(), dialog.flow);
    if (!peer) return null;
    const bye = dialog.request("BYE", this.local(peer.transport));
    return new Promise((resolve) => {
      this.request(bye, peer, {
        response: (r) => {
          if (r.status >= 200) resolve(r.status);
        },
        timeout: () => resolve(null),
      });
    });
  }

  private request(request: SipRequest, to: Peer, handlers: ClientHandlers) {
    const branch = parseVia(headerValues(request.headers, "via")[0]!)?.params.branch ?? "";
    const key = `${branch}|${request.method}`;
    const tx = new ClientTransaction(request, to, (m, p) => this.transport.send(m, p), this.timers, { ...handlers, ended: () => this.clientTx.delete(key) });
    if (tx.state !== "terminated") this.clientTx.set(key, tx);
    return tx;
  }

  private async peerFor(uri: string, flow: Peer): Promise<Peer | null> {
    // Over TCP and TLS, requests go back on the connection the call came on while it is open (§18.4).
    if (flow.transport !== "UDP" && flow.socket && !flow.socket.destroyed) return flow;
    const parsed = parseUri(uri);
    if (!parsed) return null;
    // A sips: URI is reached over TLS only (§26.2.2); `transport=` names the rest.
    const named = parsed.params.transport?.toUpperCase();
    const transport: TransportName = parsed.scheme === "sips" || named === "TLS" ? "TLS" : named === "TCP" ? "TCP" : flow.transport;
    let address = parsed.host;
    if (!isIP(address)) {
      try {
        address = (await lookup(address)).address;
      } catch {
        return null;
      }
    }
    return { transport, address, port: parsed.port ?? defaultPort(transport), name: parsed.host };
  }

  /** A connection of ours failed (refused, an untrusted certificate): what waited on it fails now, not at Timer B. */
  private connectFailed(to: Peer, error: Error): void {
    for (const tx of this.clientTx.values()) {
      if (tx.peer.transport === to.transport && tx.peer.address === to.address && tx.peer.port === to.port) tx.transportFailed(error);
    }
    this.emit("connectFailed", to, error);
  }

  private receive(result: ParseResult, from: Peer): void {
    if (!result.ok) {
      // A request too broken to route is dropped; one we can answer is told why (§8.2, §21.4.1).
      if (result.request && canAnswer(result.request)) {
        const status = result.error === "unsupported URI scheme" ? 416 : 400;
        this.transport.send(responseTo(result.request, status, { reason: status === 400 ? `Bad Request (${result.error})` : undefined }), this.responsePeer(result.request, from));
      }
      return;
    }
    const message = result.message;
    if (message.kind === "response") return this.response(message);
    this.requestIn(message, from);
  }

  private response(response: SipResponse): void {
    const via = parseVia(headerValues(response.headers, "via")[0] ?? "");
    const cseq = parseCSeq(headerValue(response.headers, "cseq")!);
    if (!via || !cseq) return;
    const tx = this.clientTx.get(`${via.params.branch ?? ""}|${cseq.method}`);
    if (tx) return tx.receive(response);
    if (cseq.method === "INVITE" && response.status >= 200 && response.status < 300) {
      const callId = headerValue(response.headers, "call-id")!;
      this.calls.get(`${callId}|${tagOf(headerValue(response.headers, "from"))}`)?.retransmitted2xx();
    }
  }

  /** Where answers to `request` go (§18.2.2, RFC 3581 rport): the connection, or the source port. */
  private responsePeer(request: SipRequest, from: Peer): Peer {
    if (from.transport !== "UDP") return from;
    const via = parseVia(headerValues(request.headers, "via")[0] ?? "");
    const port = via && via.params.rport === undefined && via.port ? via.port : from.port;
    return { transport: "UDP", address: from.address, port };
  }

  /** Notes where the request really came from in its top Via (received, rport) before answers copy it. */
  private stampVia(request: SipRequest, from: Peer, via: Via): void {
    const index = request.headers.findIndex(([n]) => n === "via");
    const [top, ...rest] = splitList(request.headers[index]![1]);
    let stamped = top!;
    if (via.params.rport === "") stamped = stamped.replace(/;\s*rport(?=;|$)/i, `;rport=${from.port}`);
    if (via.host !== from.address) stamped += `;received=${from.address}`;
    request.headers[index]![1] = [stamped, ...rest].join(", ");
  }

  private requestIn(request: SipRequest, from: Peer): void {
    const via = parseVia(headerValues(request.headers, "via")[0]!);
    if (!via) {
      if (request.method !== "ACK") this.transport.send(responseTo(request, 400, { reason: "Bad Request (Via)" }), from);
      return;
    }
    this.stampVia(request, from, via);
    const to = this.responsePeer(request, from);
    const key = (method: string) => `${via.params.branch ?? ""}|${via.host}:${via.port ?? ""}|${method}`;
    const callId = headerValue(request.headers, "call-id")!;
    const toTag = tagOf(headerValue(request.headers, "to"));
    const seq = parseCSeq(headerValue(request.headers, "cseq")!)!.seq;

    if (request.method === "ACK") {
      const tx = this.serverTx.get(key("INVITE"));
      if (tx instanceof ServerInviteTransaction && (tx.state === "completed" || tx.state === "confirmed")) return tx.ack();
      if (toTag) this.calls.get(`${callId}|${toTag}`)?.takeAck(request, seq);
      return;
    }
    const existing = this.serverTx.get(key(request.method));
    if (existing) return existing.requestRetransmitted();

    const send = (m: SipRequest | SipResponse, p: Peer) => this.transport.send(m, p);
    if (request.method === "INVITE") {
      const tx = new ServerInviteTransaction(request, to, send, this.timers, (outcome) => {
        this.serverTx.delete(key("INVITE"));
        const call = this.callOfTx.get(tx);
        this.callOfTx.delete(tx);
        if (outcome !== "no-ack" || !call) return;
        if (toTag) call.reinviteAcked(null);
        else call.inviteAcked(null);
      });
      this.serverTx.set(key("INVITE"), tx);
      tx.respond(responseTo(request, 100));
      return this.invite(request, tx, from, toTag);
    }
    const tx = new ServerNonInviteTransaction(request, to, send, this.timers, () => this.serverTx.delete(key(request.method)));
    this.serverTx.set(key(request.method), tx);
    if (request.method === "CANCEL") {
      const invite = this.serverTx.get(key("INVITE"));
      if (!(invite instanceof ServerInviteTransaction)) return tx.respond(responseTo(request, 481));
      tx.respond(responseTo(request, 200));
      return this.callOfTx.get(invite)?.cancelled();
    }
    if (this.refused(request, tx)) return;
    if (toTag) {
      const call = this.calls.get(`${callId}|${toTag}`);
      if (!call?.dialog) return tx.respond(responseTo(request, 481));
      if (request.method === "BYE") return call.byeReceived(request, tx);
      if (request.method === "NOTIFY") return call.notifyReceived(request, tx);
      if (request.method === "INFO") return call.infoReceived(request, tx);
      if (request.method === "UPDATE") return call.updateReceived(request, tx);
      if (request.method === "OPTIONS") return tx.respond(responseTo(request, 200, { headers: [["allow", ALLOW]] }));
    } else if (request.method === "OPTIONS") {
      // Trunks ping with OPTIONS to see whether we are up (a keep-alive): 200 with what we accept.
      this.emit("options", from);
      return tx.respond(responseTo(request, 200, { toTag: newTag(), headers: [["allow", ALLOW], ["accept", "application/sdp"]] }));
    } else if (request.method === "BYE") {
      return tx.respond(responseTo(request, 481));
    }
    const known = KNOWN.has(request.method) || request.method === "BYE" || request.method === "OPTIONS";
    tx.respond(responseTo(request, known ? 405 : 501, { toTag: toTag ? undefined : newTag(), headers: known ? [["allow", ALLOW]] : [] }));
  }

  /** §8.2.2: hop limits and extensions we do not support. */
  private refused(request: SipRequest, tx: ServerInviteTransaction | ServerNonInviteTransaction): boolean {
    const maxForwards = headerValue(request.headers, "max-forwards");
    if (maxForwards !== undefined && Number(maxForwards) === 0 && request.method !== "OPTIONS") {
      tx.respond(responseTo(request, 483, { toTag: newTag() }));
      return true;
    }
    const required = headerValues(request.headers, "require").filter((t) => t.toLowerCase() !== "timer");
    if (required.length > 0) {
      tx.respond(responseTo(request, 420, { toTag: newTag(), headers: [["unsupported", required.join(", ")]] }));
      return true;
    }
    return false;
  }

  private invite(request: SipRequest, tx: ServerInviteTransaction, from: Peer, toTag: string | undefined): void {
    if (this.refused(request, tx)) return;
    const callId = headerValue(request.headers, "call-id")!;
    if (toTag) {
      const call = this.calls.get(`${callId}|${toTag}`);
      if (!call?.dialog) return tx.respond(responseTo(request, 481));
      this.callOfTx.set(tx, call);
      return call.reinvited(request, tx);
    }
    const type = headerValue(request.headers, "content-type");
    if (request.body.length > 0 && !/^application\/sdp\s*(;|$)/i.test(type ?? "")) {
      return tx.respond(responseTo(request, 415, { toTag: newTag(), headers: [["accept", "application/sdp"]] }));
    }
    if (request.body.length > 0) {
      const offer = answerOffer(request.body.toString("utf8"), this.srtpPolicy(from));
      if (!offer.ok) return tx.respond(responseTo(request, 488, { toTag: newTag(), headers: [["warning", `304 ${this.advertised} "${offer.reason}"`]] }));
    }
    // RFC 4028 §8.1: an interval shorter than we accept is refused with the least we take.
    const minSE = this.options.minSessionExpires ?? MIN_SE_S;
    const asked = parseSessionExpires(request);
    if (asked && asked.seconds < minSE) return tx.respond(responseTo(request, 422, { toTag: newTag(), headers: [["min-se", String(minSE)]] }));
    if (this.challenger && this.options.auth) {
      const verdict = this.challenger.verify(headerValue(request.headers, "authorization"), "INVITE", this.options.auth.password);
      if (verdict !== "ok") {
        const headers = this.challenger.challenges(verdict === "stale").map((c): [string, string] => ["www-authenticate", c]);
        return tx.respond(responseTo(request, 401, { toTag: newTag(), headers }));
      }
    }
    if (this.listenerCount("call") === 0) return tx.respond(responseTo(request, 480, { toTag: newTag() }));
    const tag = newTag();
    const call = new SipCall(this.core, "inbound", callId, tag, request, tx, from);
    this.calls.set(`${callId}|${tag}`, call);
    this.callOfTx.set(tx, call);
    this.emit("call", call);
  }

  /** Stops listening; calls still up end where they are (no BYE: the process is going away). */
  async close(): Promise<void> {
    for (const registration of this.registrations) registration.halt();
    for (const call of this.calls.values()) call.end("local-hangup");
    for (const tx of this.serverTx.values()) tx.stop();
    for (const tx of this.clientTx.values()) tx.stop();
    await this.transport.close();
  }
}
