/**
 * One SIP call, answered or placed by us: its INVITE's progress, its dialog once answered, the
 * requests inside it (re-INVITE, BYE), and its RTP. The endpoint routes messages here; the call
 * never touches sockets itself.
 */
import { EventEmitter } from "node:events";
import { newBranch, tagOf } from "./address.ts";
import { answerChallenge } from "./digest.ts";
import { Dialog, type LocalContact } from "./dialog.ts";
import { reasonForStatus, type SipEndReason } from "./end-reasons.ts";
import { headerValue, responseTo, type Headers, type SipRequest, type SipResponse } from "./message.ts";
import type { RtpSession } from "./rtp-session.ts";
import { answerOffer, makeOffer, readAnswer, type LocalMedia, type MediaPlan } from "./sdp.ts";
import type { ClientTransaction, ServerInviteTransaction, ServerNonInviteTransaction } from "./transactions.ts";
import type { Peer } from "./transport.ts";

/** What a call needs from its endpoint. */
export interface CallCore {
  local(peer: Peer): LocalContact;
  mediaAddress(): string;
  send(message: SipRequest | SipResponse, to: Peer): void;
  request(request: SipRequest, to: Peer, handlers: { response(r: SipResponse): void; timeout(): void; ackFor?(r: SipResponse): SipRequest }): ClientTransaction;
  /** Where a request to `uri` goes (the dialog's connection for TCP when it is still open). */
  peerFor(uri: string, flow: Peer): Promise<Peer | null>;
  openRtp(): Promise<RtpSession>;
  forget(call: SipCall): void;
}

export const ALLOW = "INVITE, ACK, CANCEL, BYE, OPTIONS";

export interface SipCallEvents {
  ringing: [];
  answered: [];
  media: [plan: MediaPlan];
  ended: [reason: SipEndReason, status?: number];
}

type State = "calling" | "ringing" | "answering" | "confirmed" | "ended";

export class SipCall extends EventEmitter<SipCallEvents> {
  state: State;
  rtp: RtpSession | null = null;
  plan: MediaPlan | null = null;
  dialog: Dialog | null = null;
  endReason: SipEndReason | null = null;
  private localMedia: LocalMedia | null = null;
  private reinvite: ServerInviteTransaction | null = null;
  private lastAck: { request: SipRequest; peer: Peer } | null = null;
  private cancelWanted = false;
  /** We hung up after our 200 went out but before its ACK came: BYE waits for the ACK (§15). */
  private byeOnAck = false;
  private authTries = 0;
  private clientTx: ClientTransaction | null = null;
  private acked: (() => void) | null = null;

  constructor(
    private readonly core: CallCore,
    readonly direction: "inbound" | "outbound",
    readonly callId: string,
    /** Our tag (To on calls we answer, From on calls we place). */
    readonly localTag: string,
    /** The INVITE: the far end's (inbound) or ours (outbound, replaced when we answer a challenge). */
    public invite: SipRequest,
    private readonly inviteTx: ServerInviteTransaction | null,
    /** The far end's contact for an outbound call, the INVITE's source for an inbound one. */
    readonly peer: Peer,
  ) {
    super();
    this.state = direction === "inbound" ? "ringing" : "calling";
  }

  /** The caller's URI as the From header says it (inbound), or whom we call (outbound). */
  get from(): string {
    return headerValue(this.invite.headers, "from") ?? "";
  }
  get to(): string {
    return headerValue(this.invite.headers, "to") ?? "";
  }

  // ---- calls we answer --------------------------------------------------------------------

  /** 180 Ringing. */
  ring(): void {
    if (this.state !== "ringing" || !this.inviteTx) return;
    this.inviteTx.respond(responseTo(this.invite, 180, { toTag: this.localTag, headers: [["contact", contactOf(this.core, this.peer)]] }));
  }

  /** Answers with 200 and our SDP; resolves once the caller's ACK arrives (the call is then up). */
  async answer(): Promise<void> {
    if (this.state !== "ringing" || !this.inviteTx) throw new Error("Only a ringing inbound call can be answered");
    this.state = "answering";
    const rtp = await this.core.openRtp();
    if (this.state !== "answering") return void rtp.close(); // cancelled meanwhile
    this.rtp = rtp;
    this.localMedia = { address: this.core.mediaAddress(), port: rtp.port, sessionId: Date.now(), version: 1 };
    const offer = this.invite.body.length > 0 ? answerOffer(this.invite.body.toString("utf8")) : null;
    if (offer && !offer.ok) return void this.reject(488);
    // No offer in the INVITE: ours goes in the 200 and the answer comes in the ACK (§13.2.1).
    const body = offer?.ok ? offer.answer(this.localMedia) : makeOffer(this.localMedia);
    if (offer?.ok) this.setPlan(offer.plan);
    const response = responseTo(this.invite, 200, { toTag: this.localTag, headers: okHeaders(this.core, this.peer), body: Buffer.from(body) });
    this.dialog = Dialog.asServer(this.invite, headerValue(response.headers, "to")!, this.peer);
    if (!this.dialog) return void this.reject(400);
    const done = new Promise<void>((resolve) => (this.acked = resolve));
    this.inviteTx.respond(response);
    await done;
  }

  /** A final refusal (486 busy, 603 decline, ...) before answering. */
  reject(status: number): void {
    if ((this.state !== "ringing" && this.state !== "answering") || !this.inviteTx) return;
    this.inviteTx.respond(responseTo(this.invite, status, { toTag: this.localTag }));
    this.end("rejected", status);
  }

  /** Our 2xx was acknowledged, or the ACK never came (`null`). */
  inviteAcked(ack: SipRequest | null): void {
    if (this.state !== "answering") return;
    if (!ack) return void this.sendBye("timeout");
    if (this.byeOnAck) return void this.sendBye("local-hangup");
    if (!this.plan && ack.body.length > 0) {
      const plan = readAnswer(ack.body.toString("utf8"));
      if (!plan) return void this.sendBye("rejected");
      this.setPlan(plan);
    }
    this.state = "confirmed";
    this.emit("answered");
    this.acked?.();
  }

  /** The caller gave up before we answered (the endpoint has answered the CANCEL with 200). */
  cancelled(): void {
    // Once our 200 is out the CANCEL changes nothing (§9.2): the call goes on.
    if ((this.state !== "ringing" && this.state !== "answering") || !this.inviteTx || this.inviteTx.state !== "proceeding") return;
    this.inviteTx.respond(responseTo(this.invite, 487, { toTag: this.localTag }));
    this.end("cancelled", 487);
  }

  // ---- requests inside the call -----------------------------------------------------------

  /** A re-INVITE: hold, resume, a new codec or address, or a refresh with the same SDP. */
  reinvited(request: SipRequest, tx: ServerInviteTransaction): void {
    if (!this.dialog || !this.rtp || !this.localMedia || this.state === "ended") return tx.respond(responseTo(request, 481));
    if (this.reinvite || this.state !== "confirmed") return tx.respond(responseTo(request, 491)); // §14.2: one at a time
    const offer = request.body.length > 0 ? answerOffer(request.body.toString("utf8")) : null;
    if (offer && !offer.ok) return tx.respond(responseTo(request, 488)); // the call goes on as it was (§14.2)
    this.dialog.refreshTarget(request);
    this.localMedia = { ...this.localMedia, version: this.localMedia.version + 1 };
    const body = offer?.ok ? offer.answer(this.localMedia) : makeOffer(this.localMedia);
    if (offer?.ok) this.setPlan(offer.plan);
    this.reinvite = tx;
    tx.respond(responseTo(request, 200, { headers: okHeaders(this.core, this.peer), body: Buffer.from(body) }));
  }

  reinviteAcked(ack: SipRequest | null): void {
    this.reinvite = null;
    if (!ack) return;
    if (ack.body.length > 0) {
      const plan = readAnswer(ack.body.toString("utf8"));
      if (plan) this.setPlan(plan);
    }
  }

  /** An ACK inside the dialog: for our 2xx to the first INVITE, or to a re-INVITE's. */
  takeAck(ack: SipRequest, seq: number): void {
    const inviteSeq = Number(headerValue(this.invite.headers, "cseq")!.split(/\s+/)[0]);
    if (this.direction === "inbound" && seq === inviteSeq) {
      this.inviteTx?.ack();
      return this.inviteAcked(ack);
    }
    if (!this.reinvite) return;
    this.reinvite.ack();
    this.reinviteAcked(ack);
  }

  byeReceived(request: SipRequest, tx: ServerNonInviteTransaction): void {
    tx.respond(responseTo(request, 200));
    if (this.state === "ringing" || this.state === "answering") this.inviteTx?.respond(responseTo(this.invite, 487, { toTag: this.localTag }));
    this.end("remote-hangup");
  }

  /** Ends the call from our side: BYE once answered, a refusal or CANCEL before. */
  hangup(): void {
    if (this.state === "ended") return;
    if (this.direction === "inbound") {
      if (this.state === "ringing") return this.reject(480);
      if (this.state === "answering" && this.dialog) return void (this.byeOnAck = true);
      if (this.state === "answering") return this.reject(480);
      return void this.sendBye("local-hangup");
    }
    if (this.dialog) return void this.sendBye("local-hangup");
    this.cancelWanted = true;
    if (this.state === "ringing") this.sendCancel();
  }

  private async sendBye(reason: SipEndReason) {
    const dialog = this.dialog;
    this.end(reason);
    if (!dialog) return;
    const peer = await this.core.peerFor(dialog.nextHop(), dialog.flow);
    if (!peer) return;
    const local = this.core.local(peer);
    this.core.request(dialog.request("BYE", local), peer, { response() {}, timeout() {} });
  }

  // ---- calls we place -----------------------------------------------------------------------

  /** Sends our INVITE (again, with credentials, after a challenge). */
  async place(credentials?: { username: string; password: string }): Promise<void> {
    const rtp = await this.core.openRtp();
    this.rtp = rtp;
    this.localMedia = { address: this.core.mediaAddress(), port: rtp.port, sessionId: Date.now(), version: 1 };
    this.invite = { ...this.invite, headers: [...this.invite.headers, ["content-type", "application/sdp"]], body: Buffer.from(makeOffer(this.localMedia)) };
    this.sendInvite(credentials);
  }

  private sendInvite(credentials?: { username: string; password: string }) {
    const local = this.core.local(this.peer);
    this.clientTx = this.core.request(this.invite, this.peer, {
      response: (r) => this.inviteAnswered(r, credentials),
      timeout: () => this.end("unreachable", 408),
      ackFor: (r) => this.ackForFailure(r, local),
    });
  }

  private ackForFailure(response: SipResponse, local: LocalContact): SipRequest {
    const via = headerValue(this.invite.headers, "via")!;
    const seq = headerValue(this.invite.headers, "cseq")!.split(/\s+/)[0];
    const headers: Headers = [["via", via], ["max-forwards", "70"], ["from", this.from], ["to", headerValue(response.headers, "to") ?? this.to], ["call-id", this.callId], ["cseq", `${seq} ACK`], ["user-agent", local.userAgent]];
    return { kind: "request", method: "ACK", uri: this.invite.uri, headers: [...headers, ...this.invite.headers.filter(([n]) => n === "route")], body: Buffer.alloc(0) };
  }

  private inviteAnswered(response: SipResponse, credentials?: { username: string; password: string }) {
    if (this.state === "ended") return;
    if (response.status < 200) {
      if (response.status > 100 && this.state === "calling") {
        this.state = "ringing";
        this.emit("ringing");
      } else if (this.state === "calling") this.state = "ringing";
      if (this.cancelWanted) this.sendCancel();
      return;
    }
    if (response.status < 300) return void this.confirmOutbound(response);
    const challenge = response.status === 401 ? headerValue(response.headers, "www-authenticate") : response.status === 407 ? headerValue(response.headers, "proxy-authenticate") : undefined;
    if (challenge && credentials && this.authTries < 2 && !this.cancelWanted) {
      const authorization = answerChallenge(challenge, credentials, "INVITE", this.invite.uri);
      if (authorization) {
        this.authTries += 1;
        const seq = Number(headerValue(this.invite.headers, "cseq")!.split(/\s+/)[0]) + 1;
        const name = response.status === 401 ? "authorization" : "proxy-authorization";
        const headers = this.invite.headers
          .filter(([n]) => n !== "authorization" && n !== "proxy-authorization")
          .map(([n, v]): [string, string] => (n === "cseq" ? [n, `${seq} INVITE`] : n === "via" ? [n, v.replace(/branch=[^;]+/, `branch=${newBranch()}`)] : [n, v]));
        this.invite = { ...this.invite, headers: [...headers, [name, authorization]] };
        this.state = "calling";
        return this.sendInvite(credentials);
      }
    }
    this.end(this.cancelWanted ? "local-hangup" : reasonForStatus(response.status), response.status);
  }

  private async confirmOutbound(response: SipResponse) {
    if (!this.dialog) {
      this.dialog = Dialog.asClient(this.invite, response, this.peer);
      if (!this.dialog) return this.end("rejected", response.status);
    }
    const peer = await this.core.peerFor(this.dialog.nextHop(), this.dialog.flow);
    if (!peer) return this.end("unreachable");
    const seq = Number(headerValue(this.invite.headers, "cseq")!.split(/\s+/)[0]);
    const ack = this.dialog.request("ACK", this.core.local(peer), { seq });
    this.lastAck = { request: ack, peer };
    this.core.send(ack, peer);
    if (this.cancelWanted) return void this.sendBye("local-hangup");
    const plan = readAnswer(response.body.toString("utf8"));
    if (!plan) return void this.sendBye("rejected");
    this.setPlan(plan);
    this.state = "confirmed";
    this.emit("answered");
  }

  /** A retransmitted 2xx: our ACK was lost (§13.2.2.4). */
  retransmitted2xx(): void {
    if (this.lastAck) this.core.send(this.lastAck.request, this.lastAck.peer);
  }

  private sendCancel() {
    if (!this.clientTx || this.clientTx.state !== "proceeding") return;
    const headers: Headers = this.invite.headers
      .filter(([n]) => ["via", "from", "to", "call-id", "route", "max-forwards"].includes(n))
      .map(([n, v]) => [n, v]);
    headers.push(["cseq", `${headerValue(this.invite.headers, "cseq")!.split(/\s+/)[0]} CANCEL`]);
    this.core.request({ kind: "request", method: "CANCEL", uri: this.invite.uri, headers, body: Buffer.alloc(0) }, this.peer, { response() {}, timeout() {} });
  }

  // ---- both ---------------------------------------------------------------------------------

  private setPlan(plan: MediaPlan) {
    this.plan = plan;
    this.rtp?.configure(plan);
    this.emit("media", plan);
  }

  end(reason: SipEndReason, status?: number): void {
    if (this.state === "ended") return;
    this.state = "ended";
    this.endReason = reason;
    this.rtp?.close();
    this.core.forget(this);
    this.acked?.();
    this.emit("ended", reason, status);
  }

  /** Whether a message with this From/To pair is ours (a far end's tag is set once it answered). */
  get remoteTag(): string | undefined {
    return this.dialog ? tagOf(this.dialog.remoteHeader) : undefined;
  }
}

function contactOf(core: CallCore, peer: Peer) {
  const local = core.local(peer);
  return `<sip:switchboard@${local.address}:${local.port}${local.transport === "TCP" ? ";transport=tcp" : ""}>`;
}

function okHeaders(core: CallCore, peer: Peer): Headers {
  return [["contact", contactOf(core, peer)], ["allow", ALLOW], ["content-type", "application/sdp"], ["user-agent", core.local(peer).userAgent]];
}
