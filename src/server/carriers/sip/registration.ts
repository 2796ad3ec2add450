/**
 * A REGISTER client (RFC 3261 §10.2) for a trunk that wants to know where we are: binds the
 * trunk's address-of-record (its outbound username at the registrar's domain) to our Contact,
 * answers the registrar's 401/407 digest challenges (MD5 or SHA-256, digest.ts), refreshes at half
 * the interval granted, tries again with back-off after a failure, and removes the binding
 * (Expires: 0) when stopped. One Call-ID for every REGISTER of the registration, its CSeq one more
 * each time (§10.2: the registrar orders requests by them).
 */
import { EventEmitter } from "node:events";
import { formatUri, newCallId, newTag, parseNameAddr, parseUri, type SipUri } from "./address.ts";
import { ALLOW } from "./call.ts";
import { answerChallenge } from "./digest.ts";
import { contactFor, viaFor, type LocalContact } from "./dialog.ts";
import { headerValue, headerValues, type Headers, type SipRequest, type SipResponse } from "./message.ts";
import type { ClientHandlers, ClientTransaction } from "./transactions.ts";
import { untrustedCertificate, type Peer, type TransportName } from "./transport.ts";

export interface RegistrationOptions {
  /** The trunk's outbound URI: the registrar (its user part, if any, is not sent). */
  registrar: string;
  username: string;
  password: string;
  /** Seconds asked for; the registrar may grant fewer (or ask for more with 423). */
  expires: number;
  transport: TransportName;
  /** Back-off after a failure: the first wait, doubling up to the longest. */
  retry?: { firstMs: number; maxMs: number };
}

/** Why a REGISTER did not bind. */
export type RegistrationFailure =
  | { kind: "refused"; status: number; reason: string }
  /** Our answer to its challenge was refused (wrong username or password). */
  | { kind: "credentials"; status: number }
  | { kind: "unsupported-challenge" }
  | { kind: "timeout" }
  | { kind: "unreachable" }
  /** Reached over TLS, its certificate is not one we trust (or does not name it). */
  | { kind: "untrusted"; detail: string };

export interface RegistrationEvents {
  registered: [expiresS: number];
  failed: [failure: RegistrationFailure];
}

/** What a registration needs of its endpoint. */
export interface RegistrarCore {
  local(transport: TransportName): LocalContact;
  request(request: SipRequest, to: Peer, handlers: ClientHandlers): ClientTransaction;
  peerFor(uri: string, flow: Peer): Promise<Peer | null>;
  /** The registration has stopped: the endpoint no longer holds it. */
  forget(registration: Registration): void;
}

export const DEFAULT_RETRY = { firstMs: 30_000, maxMs: 30 * 60_000 };
/** Challenges answered per REGISTER before the credentials are called wrong (a stale nonce gets a second go). */
const MAX_AUTH_TRIES = 2;

export class Registration extends EventEmitter<RegistrationEvents> {
  readonly callId: string;
  private readonly tag = newTag();
  private readonly requestUri: string;
  private readonly aor: string;
  private seq = 0;
  private expires: number;
  private failures = 0;
  private timer: NodeJS.Timeout | undefined;
  private stopped = false;
  /** Whether the registrar ever bound us: only then is there a binding to remove. */
  private bound = false;

  constructor(
    private readonly core: RegistrarCore,
    private readonly options: RegistrationOptions,
  ) {
    super();
    const uri = parseUri(options.registrar);
    if (!uri) throw new Error(`Not a SIP URI: ${options.registrar}`);
    // §10.2: the Request-URI names the registrar's domain, without userinfo; To and From the AOR.
    const params: SipUri["params"] = uri.params.transport ? { transport: uri.params.transport } : {};
    this.requestUri = formatUri({ scheme: uri.scheme, host: uri.host, port: uri.port, params });
    this.aor = formatUri({ scheme: uri.scheme, user: options.username, host: uri.host, params: {} });
    this.callId = newCallId(core.local(options.transport).address);
    this.expires = options.expires;
  }

  start(): void {
    void this.send(this.expires, 0);
  }

  /** Removes the binding (Expires: 0); resolves true once the registrar confirms, false on failure or after `waitMs`. */
  async stop(waitMs = 2000): Promise<boolean> {
    if (this.stopped) return false;
    this.halt();
    if (!this.bound) return false;
    return new Promise<boolean>((resolve) => {
      const timer = setTimeout(() => resolve(false), waitMs);
      void this.send(0, 0, undefined, (ok) => {
        clearTimeout(timer);
        resolve(ok);
      });
    });
  }

  /** Stops every timer without a word to the registrar (the process is going away). */
  halt(): void {
    this.stopped = true;
    clearTimeout(this.timer);
    this.removeAllListeners();
    this.core.forget(this);
  }

  private later(fn: () => void, ms: number) {
    clearTimeout(this.timer);
    this.timer = setTimeout(fn, ms);
    this.timer.unref();
  }

  private async send(expires: number, authTries: number, authorization?: [string, string], removed?: (ok: boolean) => void): Promise<void> {
    // A URI that cannot be reached as written (no TLS of our own for a sips: one) is unreachable, not a crash.
    const peer = await this.core.peerFor(this.requestUri, { transport: this.options.transport, address: "", port: 0 }).catch(() => null);
    if (!peer) return this.failed({ kind: "unreachable" }, removed);
    if (this.stopped && !removed) return;
    const local = this.core.local(peer.transport);
    const request = this.build(local, expires, authorization);
    this.core.request(request, peer, {
      response: (r) => this.answered(r, local, expires, authTries, removed),
      timeout: () => this.failed({ kind: "timeout" }, removed),
      unreachable: (error) => this.failed(untrustedCertificate(error) ? { kind: "untrusted", detail: error.message } : { kind: "unreachable" }, removed),
    });
  }

  private build(local: LocalContact, expires: number, authorization?: [string, string]): SipRequest {
    this.seq += 1;
    const headers: Headers = [
      ["via", viaFor(local)],
      ["max-forwards", "70"],
      ["from", `<${this.aor}>;tag=${this.tag}`],
      ["to", `<${this.aor}>`],
      ["call-id", this.callId],
      ["cseq", `${this.seq} REGISTER`],
      ["contact", contactFor(local, this.options.username, this.requestUri.startsWith("sips:"))],
      ["expires", String(expires)],
      ["allow", ALLOW],
      ["user-agent", local.userAgent],
    ];
    if (authorization) headers.push(authorization);
    return { kind: "request", method: "REGISTER", uri: this.requestUri, headers, body: Buffer.alloc(0) };
  }

  private answered(response: SipResponse, local: LocalContact, expires: number, authTries: number, removed?: (ok: boolean) => void): void {
    if (response.status < 200 || (this.stopped && !removed)) return;
    if (response.status < 300) {
      if (removed) return removed(true);
      this.bound = true;
      this.failures = 0;
      const granted = grantedExpires(response, local, expires);
      // Refreshed at half the interval (§10.2.4 leaves the margin to us): a lost REGISTER has time for its retransmissions.
      this.later(() => void this.send(this.expires, 0), Math.max(granted * 500, 1000));
      this.emit("registered", granted);
      return;
    }
    if (response.status === 401 || response.status === 407) {
      if (authTries >= MAX_AUTH_TRIES) return this.failed({ kind: "credentials", status: response.status }, removed);
      const challenge = headerValue(response.headers, response.status === 401 ? "www-authenticate" : "proxy-authenticate");
      const answer = challenge ? answerChallenge(challenge, this.options, "REGISTER", this.requestUri) : null;
      if (!answer) return this.failed({ kind: "unsupported-challenge" }, removed);
      void this.send(expires, authTries + 1, [response.status === 401 ? "authorization" : "proxy-authorization", answer], removed);
      return;
    }
    // §10.2.8: too brief an interval; the registrar says the least it takes.
    const least = Number(headerValue(response.headers, "min-expires"));
    if (response.status === 423 && !removed && Number.isInteger(least) && least > expires) {
      this.expires = least;
      void this.send(least, 0);
      return;
    }
    if (response.status === 403 && authTries > 0) return this.failed({ kind: "credentials", status: 403 }, removed);
    this.failed({ kind: "refused", status: response.status, reason: response.reason }, removed);
  }

  private failed(failure: RegistrationFailure, removed?: (ok: boolean) => void): void {
    if (removed) return removed(false);
    if (this.stopped) return;
    const { firstMs, maxMs } = this.options.retry ?? DEFAULT_RETRY;
    const wait = Math.min(firstMs * 2 ** this.failures, maxMs);
    this.failures += 1;
    this.later(() => void this.send(this.expires, 0), wait);
    this.emit("failed", failure);
  }
}

/**
 * What the registrar granted (§10.2.4): the expires parameter of our Contact in its 200, else its
 * Expires header, else what we asked.
 */
function grantedExpires(response: SipResponse, local: LocalContact, asked: number): number {
  const ours = headerValues(response.headers, "contact")
    .map((c) => parseNameAddr(c))
    .find((c) => {
      const uri = c ? parseUri(c.uri) : null;
      return uri?.host === local.address && (uri.port ?? 5060) === local.port;
    });
  const fromContact = Number(ours?.params.expires);
  if (ours?.params.expires !== undefined && Number.isInteger(fromContact) && fromContact > 0) return fromContact;
  const header = Number(headerValue(response.headers, "expires"));
  return Number.isInteger(header) && header > 0 ? header : asked;
}
