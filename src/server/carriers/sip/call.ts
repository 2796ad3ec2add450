/**
 * One SIP call, answered or placed by us: its INVITE's progress, its dialog once answered, the
 * requests inside it (re-INVITE, BYE), and its RTP. The endpoint routes messages here; the call
 * never touches sockets itself.
 */
import { EventEmitter } from "node:events";
import { newBranch, parseUri, tagOf } from "./address.ts";
import { answerChallenge } from "./digest.ts";
import { contactFor, Dialog, type LocalContact } from "./dialog.ts";
import { reasonForStatus, type SipEndReason } from "./end-reasons.ts";
import { INFO_DIGIT_TYPES, infoDigit } from "./info-digits.ts";
import { parseSessionExpires, sessionHeaders, SessionTimer, supportsTimer } from "./session-timer.ts";
import { headerValue, headerValues, responseTo, type Headers, type SipRequest, type SipResponse } from "./message.ts";
import type { RtpStream } from "./rtp-session.ts";
import { answerOffer, makeOffer, readAnswer, type LocalMedia, type MediaPlan, type SrtpPolicy } from "./sdp.ts";
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
  openRtp(): Promise<RtpStream>;
  /** What a call signalled from `peer` may do with SRTP (over TLS only). */
  srtpPolicy(peer: Peer): SrtpPolicy;
  forget(call: SipCall): void;
}

export const ALLOW = "INVITE, ACK, CANCEL, BYE, OPTIONS, INFO, UPDATE";

/** How long a transfer the far end accepted may take to report its outcome (the destination rings meanwhile). */
export const REFER_OUTCOME_MS = 60_000;

/** The far end refused our REFER, or reported that the transfer failed: its SIP status and words. */
export class TransferRefused extends Error {
  constructor(
    readonly status: number,
    readonly stage: "refer" | "notify",
    reason: string,
  ) {
    super(`SIP ${status}${reason ? ` ${reason}` : ""}`);
  }
}

export interface SipCallEvents {
  ringing: [];
  answered: [];
  media: [plan: MediaPlan];
  ended: [reason: SipEndReason, status?: number];
  /** A keypad digit sent by SIP INFO (RFC 4733's come through the RTP session). */
  digit: [digit: string];
}

type State = "calling" | "ringing" | "answering" | "confirmed" | "ended";

export class SipCall extends EventEmitter<SipCallEvents> {
  state: State;
  rtp: RtpStream | null = null;
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
  /** A REFER of ours waiting for its outcome (the NOTIFYs of its implicit subscription, RFC 3515 §2.4.4). */
  private referOutcome: ((status: number, reason: string) => void) | null = null;
  /** RFC 4028: who refreshes the dialog and when (armed once the call is up, when either side asked for one). */
  private readonly session = new SessionTimer({ refresh: () => void this.refreshSession(), expired: () => void this.sendBye("timeout") });
  /** The interval agreed at answer, armed when the call is confirmed: [seconds, we refresh]. */
  private sessionPlan: [number, boolean] | null = null;
  private remoteAllow: string[] | null = null;
  /** Our BYE's transaction, once sent: true when it is answered, false when it timed out. */
  private byeDone: Promise<boolean> | undefined;

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
    this.inviteTx.respond(responseTo(this.invite, 180, { toTag: this.localTag, headers: [["contact", this.contact()]] }));
  }

  /** Answers with 200 and our SDP; resolves once the caller's ACK arrives (the call is then up). */
  async answer(): Promise<void> {
    if (this.state !== "ringing" || !this.inviteTx) throw new Error("Only a ringing inbound call can be answered");
    this.state = "answering";
    const rtp = await this.core.openRtp();
    // Every step before this one (admission, the assistant's lookup, the port) may have resolved
    // without the event loop reading the socket: a CANCEL already here is read now, before our 200
    // goes, so a caller who gave up gets 487 and never a 2xx (§9.2).
    await new Promise<void>((resolve) => setImmediate(resolve));
    if (this.state !== "answering") return void rtp.close(); // cancelled meanwhile
    this.rtp = rtp;
    this.localMedia = { address: this.core.mediaAddress(), port: rtp.port, sessionId: Date.now(), version: 1 };
    const policy = this.core.srtpPolicy(this.peer);
    const offer = this.invite.body.length > 0 ? answerOffer(this.invite.body.toString("utf8"), policy) : null;
    if (offer && !offer.ok) return void this.reject(488);
    // No offer in the INVITE: ours goes in the 200 (RTP/SAVP only when SRTP is required) and the answer comes in the ACK (§13.2.1).
    this.localMedia.srtpKey = (offer?.ok ? offer.plan.srtp : policy === "required") ? rtp.srtpKey : undefined;
    const body = offer?.ok ? offer.answer(this.localMedia) : makeOffer(this.localMedia);
    if (offer?.ok) this.setPlan(offer.plan);
    const response = responseTo(this.invite, 200, { toTag: this.localTag, headers: [...this.okHeaders(), ...this.agreeSession(this.invite)], body: Buffer.from(body) });
    this.dialog = Dialog.asServer(this.invite, headerValue(response.headers, "to")!, this.peer);
    if (!this.dialog) return void this.reject(400);
    const done = new Promise<void>((resolve) => (this.acked = resolve));
    this.inviteTx.respond(response);
    await done;
  }

  /** A final refusal (486 busy, 603 decline, a 407 challenge, ...) before answering. */
  reject(status: number, headers: Headers = []): void {
    if ((this.state !== "ringing" && this.state !== "answering") || !this.inviteTx) return;
    this.inviteTx.respond(responseTo(this.invite, status, { toTag: this.localTag, headers }));
    this.end("rejected", status);
  }

  /** Our 2xx was acknowledged, or the ACK never came (`null`). */
  inviteAcked(ack: SipRequest | null): void {
    if (this.state !== "answering") return;
    if (!ack) return void this.sendBye("timeout");
    if (this.byeOnAck) return void this.sendBye("local-hangup");
    if (!this.plan && ack.body.length > 0) {
      const plan = readAnswer(ack.body.toString("utf8"), !!this.localMedia?.srtpKey);
      if (!plan) return void this.sendBye("rejected");
      this.setPlan(plan);
    }
    this.state = "confirmed";
    if (this.sessionPlan) this.session.arm(...this.sessionPlan);
    this.watchSilence();
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
    const offer = request.body.length > 0 ? answerOffer(request.body.toString("utf8"), this.core.srtpPolicy(this.peer)) : null;
    if (offer && !offer.ok) return tx.respond(responseTo(request, 488)); // the call goes on as it was (§14.2)
    this.dialog.refreshTarget(request);
    this.localMedia = { ...this.localMedia, version: this.localMedia.version + 1, ...(offer?.ok ? { srtpKey: offer.plan.srtp ? this.rtp.srtpKey : undefined } : {}) };
    const body = offer?.ok ? offer.answer(this.localMedia) : makeOffer(this.localMedia);
    if (offer?.ok) this.setPlan(offer.plan);
    this.reinvite = tx;
    tx.respond(responseTo(request, 200, { headers: [...this.okHeaders(), ...this.refreshedByPeer(request)], body: Buffer.from(body) }));
  }

  /** An UPDATE (RFC 3311) inside the call: a session refresh, with or without a new offer. */
  updateReceived(request: SipRequest, tx: ServerNonInviteTransaction): void {
    if (!this.dialog || !this.localMedia || this.state !== "confirmed") return tx.respond(responseTo(request, 481));
    const offer = request.body.length > 0 ? answerOffer(request.body.toString("utf8"), this.core.srtpPolicy(this.peer)) : null;
    if (offer && !offer.ok) return tx.respond(responseTo(request, 488));
    this.dialog.refreshTarget(request);
    const headers = [["contact", this.contact()] as [string, string], ...this.refreshedByPeer(request)];
    if (!offer?.ok) return tx.respond(responseTo(request, 200, { headers }));
    this.localMedia = { ...this.localMedia, version: this.localMedia.version + 1, srtpKey: offer.plan.srtp ? this.rtp?.srtpKey : undefined };
    const body = offer.answer(this.localMedia);
    this.setPlan(offer.plan);
    tx.respond(responseTo(request, 200, { headers: [...headers, ["content-type", "application/sdp"]], body: Buffer.from(body) }));
  }

  reinviteAcked(ack: SipRequest | null): void {
    this.reinvite = null;
    if (!ack) return;
    if (ack.body.length > 0) {
      const plan = readAnswer(ack.body.toString("utf8"), !!this.localMedia?.srtpKey);
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

  /**
   * Hangs up as `hangup` does, and resolves once our BYE is answered (true) or its retransmissions
   * gave up (Timer F, false): a caller that goes away sooner may leave the far end's call up, its
   * BYE lost. True as well when no BYE was needed.
   */
  async hungUp(): Promise<boolean> {
    this.hangup();
    return (await this.byeDone) ?? true;
  }

  private sendBye(reason: SipEndReason): Promise<boolean> {
    this.byeDone = this.byeOut(reason);
    return this.byeDone;
  }

  private async byeOut(reason: SipEndReason): Promise<boolean> {
    const dialog = this.dialog;
    this.end(reason);
    if (!dialog) return true;
    const peer = await this.core.peerFor(dialog.nextHop(), dialog.flow);
    if (!peer) return false;
    const local = this.core.local(peer);
    return new Promise<boolean>((resolve) => {
      this.core.request(dialog.request("BYE", local), peer, { response: (r) => void (r.status >= 200 && resolve(true)), timeout: () => resolve(false) });
    });
  }

  // ---- transfer (RFC 3515) -------------------------------------------------------------------

  /**
   * Blind transfer: asks the far end (trunk or PBX) to call `target` in our place. Resolves with the
   * final status its NOTIFY reports (message/sipfrag), or once it took the call away; rejects with
   * TransferRefused when the REFER is refused or the transfer failed, the call going on as it was.
   */
  async refer(target: string, outcomeMs = REFER_OUTCOME_MS): Promise<number> {
    const dialog = this.dialog;
    if (!dialog || this.state !== "confirmed" || this.referOutcome) throw new Error("Only an answered call can be transferred, once at a time");
    const peer = await this.core.peerFor(dialog.nextHop(), dialog.flow);
    if (!peer) throw new TransferRefused(503, "refer", "the phone system cannot be reached");
    const local = this.core.local(peer);
    const request = dialog.request("REFER", local, { headers: [["refer-to", `<${target}>`], ["referred-by", `<sip:switchboard@${local.address}>`], ["contact", contactFor(local, "switchboard", dialog.sips)]] });
    return new Promise<number>((resolve, reject) => {
      let accepted = false;
      const settle = (status: number, reason: string, stage: "refer" | "notify") => {
        clearTimeout(timer);
        this.off("ended", gone);
        this.referOutcome = null;
        if (status < 300) resolve(status);
        else reject(new TransferRefused(status, stage, reason));
      };
      // Accepted and then silent: the far end has the caller; refused by silence: no transfer.
      const timer = setTimeout(() => settle(accepted ? 202 : 408, accepted ? "" : "Request Timeout", "refer"), outcomeMs);
      const gone = () => settle(accepted ? 200 : 487, accepted ? "" : "Call ended", "refer");
      this.once("ended", gone);
      this.referOutcome = (status, reason) => settle(status, reason, "notify");
      this.core.request(request, peer, {
        response: (r) => {
          if (r.status < 200) return;
          if (r.status < 300) accepted = true;
          else settle(r.status, r.reason, "refer");
        },
        timeout: () => settle(408, "Request Timeout", "refer"),
      });
    });
  }

  /** A NOTIFY inside the call: the progress of our REFER (`Event: refer`, a sipfrag status line). */
  notifyReceived(request: SipRequest, tx: ServerNonInviteTransaction): void {
    const event = (headerValue(request.headers, "event") ?? headerValue(request.headers, "o") ?? "").trim();
    if (!/^refer\b/i.test(event)) return tx.respond(responseTo(request, 489));
    tx.respond(responseTo(request, 200));
    const frag = /^SIP\/2\.0\s+(\d{3})\s*([^\r\n]*)/.exec(request.body.toString("utf8"));
    const status = frag ? Number(frag[1]) : null;
    const terminated = /^terminated/i.test(headerValue(request.headers, "subscription-state") ?? "");
    if (status !== null && status >= 200) this.referOutcome?.(status, frag![2]!.trim());
    else if (terminated) this.referOutcome?.(status ?? 200, "");
  }

  /** An INFO inside the call: a keypad digit (info-digits.ts) is passed on; another content type is refused (415). */
  infoReceived(request: SipRequest, tx: ServerNonInviteTransaction): void {
    if (request.body.length === 0) return tx.respond(responseTo(request, 200)); // an empty INFO: a ping
    const digit = infoDigit(headerValue(request.headers, "content-type"), request.body.toString("utf8"));
    if (digit === "not-dtmf") return tx.respond(responseTo(request, 415, { headers: [["accept", INFO_DIGIT_TYPES]] }));
    tx.respond(responseTo(request, 200));
    if (digit && this.state === "confirmed") this.emit("digit", digit);
  }

  // ---- session timers (RFC 4028) -----------------------------------------------------------

  /** Our answer to the far end's INVITE: the interval it asked for, refreshed by it when it can (else by us). */
  private agreeSession(invite: SipRequest): [string, string][] {
    const asked = parseSessionExpires(invite);
    if (!asked) return [];
    const theyCan = supportsTimer(invite);
    const refresher = theyCan ? (asked.refresher ?? "uac") : "uas";
    this.sessionPlan = [asked.seconds, refresher === "uas"];
    return sessionHeaders(asked.seconds, refresher, theyCan);
  }

  /** A refresh the far end sent (re-INVITE or UPDATE): the clock starts again; the headers of our 200. */
  private refreshedByPeer(request: SipRequest): [string, string][] {
    const asked = parseSessionExpires(request);
    if (!asked && !this.sessionPlan) return [];
    const seconds = asked?.seconds ?? this.session.seconds;
    // In a refresh, "uac" is its sender: the far end, unless it hands the job to us.
    const weRefresh = asked?.refresher === "uas";
    this.sessionPlan = [seconds, weRefresh];
    this.session.arm(seconds, weRefresh);
    return sessionHeaders(seconds, weRefresh ? "uas" : "uac", supportsTimer(request));
  }

  /** Our refresh: UPDATE when the far end takes it (no offer needed), else a re-INVITE with our SDP again. */
  private async refreshSession() {
    const dialog = this.dialog;
    if (!dialog || this.state !== "confirmed" || !this.localMedia) return;
    const peer = await this.core.peerFor(dialog.nextHop(), dialog.flow);
    if (!peer) return void this.sendBye("timeout");
    const local = this.core.local(peer);
    const seconds = this.session.seconds;
    const headers: Headers = [["session-expires", `${seconds};refresher=uac`], ["supported", "timer"]];
    const update = this.remoteAllows("UPDATE");
    if (!update) this.localMedia = { ...this.localMedia, version: this.localMedia.version + 1 };
    const request = update
      ? dialog.request("UPDATE", local, { headers: [["contact", contactFor(local, "switchboard", dialog.sips)], ...headers] })
      : dialog.request("INVITE", local, { headers: [...headers, ["content-type", "application/sdp"]], body: Buffer.from(makeOffer(this.localMedia)) });
    const seq = dialog.localSeq; // the re-INVITE's, which its ACK repeats
    this.core.request(request, peer, {
      response: (r) => {
        if (r.status < 200 || this.state === "ended") return;
        if (request.method === "INVITE" && r.status < 300) {
          const ack = dialog.request("ACK", local, { seq });
          this.lastAck = { request: ack, peer };
          this.core.send(ack, peer);
          const plan = readAnswer(r.body.toString("utf8"), !!this.localMedia?.srtpKey);
          if (plan) this.setPlan(plan);
        }
        // §10: a refresh the far end says it does not know the call for (or never answered) ends it.
        if (r.status === 408 || r.status === 481) return void this.sendBye("timeout");
        const granted = r.status < 300 ? parseSessionExpires(r) : null;
        this.session.arm(granted?.seconds ?? seconds, granted?.refresher !== "uas");
      },
      timeout: () => void this.sendBye("timeout"),
    });
  }

  /** Whether the far end takes `method`: the Allow of its INVITE (calls in) or of its 200 (calls out). */
  private remoteAllows(method: string): boolean {
    return (this.remoteAllow ?? headerValues(this.invite.headers, "allow")).some((m) => m.toUpperCase() === method);
  }

  // ---- calls we place -----------------------------------------------------------------------

  /** Sends our INVITE (again, with credentials, after a challenge). */
  async place(credentials?: { username: string; password: string }): Promise<void> {
    const rtp = await this.core.openRtp();
    this.rtp = rtp;
    // Over TLS we offer SRTP (RTP/SAVP) with our key, and only that (ADR 075).
    const srtpKey = this.core.srtpPolicy(this.peer) === "refuse" ? undefined : rtp.srtpKey;
    this.localMedia = { address: this.core.mediaAddress(), port: rtp.port, sessionId: Date.now(), version: 1, srtpKey };
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
    const plan = readAnswer(response.body.toString("utf8"), !!this.localMedia?.srtpKey);
    if (!plan) return void this.sendBye("rejected");
    this.setPlan(plan);
    this.state = "confirmed";
    this.remoteAllow = headerValues(response.headers, "allow");
    const agreed = parseSessionExpires(response);
    if (agreed) this.session.arm(agreed.seconds, agreed.refresher !== "uas");
    this.watchSilence();
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

  /** Once the call is up, a far end gone silent (no RTP, not on hold) is hung up as a lost connection. */
  private watchSilence() {
    this.rtp?.onSilent(() => void this.sendBye("timeout"));
  }

  private setPlan(plan: MediaPlan) {
    this.plan = plan;
    this.rtp?.configure(plan);
    this.emit("media", plan);
  }

  end(reason: SipEndReason, status?: number): void {
    if (this.state === "ended") return;
    this.state = "ended";
    this.endReason = reason;
    this.session.stop();
    this.rtp?.close();
    this.core.forget(this);
    this.acked?.();
    this.emit("ended", reason, status);
  }

  /** Our Contact in answers to the far end's INVITE: sips: when it addressed us so. */
  private contact(): string {
    return contactFor(this.core.local(this.peer), "switchboard", parseUri(this.invite.uri)?.scheme === "sips");
  }

  private okHeaders(): Headers {
    return [["contact", this.contact()], ["allow", ALLOW], ["supported", "timer"], ["content-type", "application/sdp"], ["user-agent", this.core.local(this.peer).userAgent]];
  }

  /** Whether a message with this From/To pair is ours (a far end's tag is set once it answered). */
  get remoteTag(): string | undefined {
    return this.dialog ? tagOf(this.dialog.remoteHeader) : undefined;
  }
}


