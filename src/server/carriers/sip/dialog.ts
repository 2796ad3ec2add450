/**
 * A dialog (RFC 3261 §12): the state both ends keep for a call once it is answered, from which
 * every request inside the call (ACK, BYE, re-INVITE) is built and routed (§12.2.1.1, loose
 * routing by Route headers from the Record-Route the proxies put in, §16.12).
 */
import { newBranch, parseNameAddr, parseUri } from "./address.ts";
import { headerValue, headerValues, type Headers, type SipRequest, type SipResponse } from "./message.ts";
import type { Peer } from "./transport.ts";

/** Our own address as the far end must see it (a public address behind NAT). */
export interface LocalContact {
  address: string;
  port: number;
  transport: Peer["transport"];
  userAgent: string;
}

export const viaFor = (local: LocalContact, branch = newBranch()) => `SIP/2.0/${local.transport} ${local.address}:${local.port};branch=${branch};rport`;
/**
 * Our Contact. Over TLS: `sips:` when the request was addressed so (§8.1.1.8 asks it back), else
 * `sip:…;transport=tls` — a sip: dialog stays one, and the far end still reaches us over TLS.
 */
export const contactFor = (local: LocalContact, user = "switchboard", sips = false) => {
  if (local.transport === "TLS" && sips) return `<sips:${user}@${local.address}:${local.port}>`;
  const param = local.transport === "TCP" ? ";transport=tcp" : local.transport === "TLS" ? ";transport=tls" : "";
  return `<sip:${user}@${local.address}:${local.port}${param}>`;
};

/**
 * What another instance needs to end the dialog with a BYE once the one holding it has died
 * (kept on the call's record). Our CSeq is well past the last one used by then: see `fromState`.
 */
export type DialogState = {
  callId: string;
  localHeader: string;
  remoteHeader: string;
  remoteTarget: string;
  routeSet: string[];
  localSeq: number;
  transport: Peer["transport"];
};

/** How far past the saved CSeq a restored dialog starts: beyond any request the dead instance sent after saving it (§12.2.1.1). */
const RESTORED_SEQ_STEP = 10_000;

export class Dialog {
  localSeq: number;
  remoteSeq: number;

  private constructor(
    readonly callId: string,
    /** Our From (UAC) or To (UAS) header value, with our tag. */
    readonly localHeader: string,
    /** The far end's, with its tag. */
    public remoteHeader: string,
    public remoteTarget: string,
    readonly routeSet: string[],
    localSeq: number,
    remoteSeq: number,
    /** The connection the dialog was made on: over TCP, requests go back on it while it is open. */
    readonly flow: Peer,
  ) {
    this.localSeq = localSeq;
    this.remoteSeq = remoteSeq;
  }

  /** The dialog of an INVITE we answer: route set in Record-Route order (§12.1.1). */
  static asServer(invite: SipRequest, toHeader: string, flow: Peer): Dialog | null {
    const contact = parseNameAddr(headerValue(invite.headers, "contact") ?? "");
    const cseq = Number(headerValue(invite.headers, "cseq")!.split(/\s+/)[0]);
    if (!contact) return null;
    return new Dialog(headerValue(invite.headers, "call-id")!, toHeader, headerValue(invite.headers, "from")!, contact.uri, headerValues(invite.headers, "record-route"), Math.floor(Math.random() * 10_000) + 1, cseq, flow);
  }

  /** The dialog of an INVITE of ours that was answered: route set reversed (§12.1.2). */
  static asClient(invite: SipRequest, response: SipResponse, flow: Peer): Dialog | null {
    const contact = parseNameAddr(headerValue(response.headers, "contact") ?? "");
    if (!contact) return null;
    const cseq = Number(headerValue(invite.headers, "cseq")!.split(/\s+/)[0]);
    return new Dialog(headerValue(invite.headers, "call-id")!, headerValue(invite.headers, "from")!, headerValue(response.headers, "to")!, contact.uri, headerValues(response.headers, "record-route").reverse(), cseq, 0, flow);
  }

  state(): DialogState {
    return { callId: this.callId, localHeader: this.localHeader, remoteHeader: this.remoteHeader, remoteTarget: this.remoteTarget, routeSet: [...this.routeSet], localSeq: this.localSeq, transport: this.flow.transport };
  }

  /** The dialog as saved by another instance; requests go to its target afresh (that instance's TCP connection died with it). */
  static fromState(state: DialogState): Dialog {
    return new Dialog(state.callId, state.localHeader, state.remoteHeader, state.remoteTarget, state.routeSet, state.localSeq + RESTORED_SEQ_STEP, 0, { transport: state.transport, address: "", port: 0 });
  }

  /** Where a request inside the dialog goes first: the first loose-routing proxy, or the far end. */
  nextHop(): string {
    const first = this.routeSet[0] ? parseNameAddr(this.routeSet[0]) : null;
    return first && parseUri(first.uri)?.params.lr !== undefined ? first.uri : this.remoteTarget;
  }

  /** A request inside the dialog (§12.2.1.1). ACK and CANCEL reuse the INVITE's CSeq number; the rest take the next. */
  request(method: string, local: LocalContact, options: { headers?: Headers; body?: Buffer; seq?: number; branch?: string } = {}): SipRequest {
    const seq = options.seq ?? (this.localSeq += 1);
    const first = this.routeSet[0] ? parseNameAddr(this.routeSet[0]) : null;
    const strict = first && parseUri(first.uri)?.params.lr === undefined;
    // A strict router (RFC 2543) takes the Request-URI's place and the far end's target goes last.
    const uri = strict ? first.uri : this.remoteTarget;
    const routes = strict ? [...this.routeSet.slice(1), `<${this.remoteTarget}>`] : this.routeSet;
    const headers: Headers = [
      ["via", viaFor(local, options.branch)],
      ["max-forwards", "70"],
      ["from", this.localHeader],
      ["to", this.remoteHeader],
      ["call-id", this.callId],
      ["cseq", `${seq} ${method}`],
      ...routes.map((r): [string, string] => ["route", r]),
    ];
    if (method === "INVITE") headers.push(["contact", contactFor(local, "switchboard", this.sips)]);
    headers.push(["user-agent", local.userAgent], ...(options.headers ?? []));
    return { kind: "request", method, uri, headers, body: options.body ?? Buffer.alloc(0) };
  }

  /** Whether the far end's target is a sips: URI: our own Contact then says sips: too. */
  get sips(): boolean {
    return parseUri(this.remoteTarget)?.scheme === "sips";
  }

  /** A target refresh (re-INVITE) may move the far end (§12.2.2). */
  refreshTarget(message: SipRequest | SipResponse): void {
    const contact = parseNameAddr(headerValue(message.headers, "contact") ?? "");
    if (contact) this.remoteTarget = contact.uri;
  }
}
