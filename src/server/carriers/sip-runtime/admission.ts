/**
 * Who may place a call into Switchboard over SIP. An INVITE is admitted for one of the numbers its
 * Request-URI names when it comes from an address of that number's trunk, or answers our digest
 * challenge with the trunk's inbound credentials. Everyone else is challenged once and then refused:
 * a known number and an unknown one are answered alike, so a scanner learns nothing of which exist.
 */
import { BlockList, isIP } from "node:net";
import type { DigestChallenger } from "../sip/digest.ts";
import type { SipInboundCandidate } from "./directory.ts";

export type Admission =
  | { kind: "admitted"; candidate: SipInboundCandidate }
  /** Answer 401 with these WWW-Authenticate values. */
  | { kind: "challenge"; headers: [string, string][] }
  | { kind: "refused" };

/** Whether `address` is one of `entries` (addresses or CIDR ranges; anything else never matches). */
export function addressAllowed(address: string, entries: readonly string[] | BlockList): boolean {
  const family = isIP(address);
  if (!family) return false;
  const list = entries instanceof BlockList ? entries : addressList(entries);
  return list.check(address, family === 6 ? "ipv6" : "ipv4");
}

/** `entries` as a list to check many addresses against (built once). */
export function addressList(entries: readonly string[]): BlockList {
  const list = new BlockList();
  for (const entry of entries) {
    const [base, bits] = entry.trim().split("/");
    const type = isIP(base ?? "");
    if (!type) continue;
    const kind = type === 6 ? "ipv6" : "ipv4";
    if (bits === undefined) list.addAddress(base!, kind);
    else if (/^\d{1,3}$/.test(bits) && Number(bits) <= (type === 6 ? 128 : 32)) list.addSubnet(base!, Number(bits), kind);
  }
  return list;
}

export function admit(candidates: readonly SipInboundCandidate[], source: string, authorization: string | undefined, challenger: DigestChallenger): Admission {
  const trusted = candidates.find((c) => addressAllowed(source, c.trunk.inboundAddresses));
  if (trusted) return { kind: "admitted", candidate: trusted };
  const challenge = (stale: boolean): Admission => ({ kind: "challenge", headers: challenger.challenges(stale).map((v) => ["www-authenticate", v]) });
  if (!authorization) return challenge(false);
  let stale = false;
  for (const candidate of candidates) {
    const credentials = candidate.trunk.inboundCredentials;
    if (!credentials) continue;
    const verdict = challenger.verify(authorization, "INVITE", (username) => (username === credentials.username ? credentials.password : undefined));
    if (verdict === "ok") return { kind: "admitted", candidate };
    if (verdict === "stale") stale = true;
  }
  return stale ? challenge(true) : { kind: "refused" };
}

/**
 * Refusals per source address, in memory: a source refused (or challenged without answering)
 * `limit` times within `windowMs` is refused at once, before any database lookup, until its window
 * ends. An admitted call clears its source. At most `maxSources` are tracked (the oldest go first),
 * so a flood from many addresses costs bounded memory.
 */
export class RefusalLimiter {
  private readonly strikes = new Map<string, { count: number; since: number }>();

  constructor(
    private readonly limit = 20,
    private readonly windowMs = 10_000,
    private readonly maxSources = 10_000,
    private readonly now: () => number = Date.now,
  ) {}

  blocked(source: string): boolean {
    const entry = this.strikes.get(source);
    if (!entry) return false;
    if (this.now() - entry.since >= this.windowMs) {
      this.strikes.delete(source);
      return false;
    }
    return entry.count >= this.limit;
  }

  strike(source: string): void {
    const entry = this.strikes.get(source);
    if (entry && this.now() - entry.since < this.windowMs) {
      entry.count += 1;
      return;
    }
    this.strikes.delete(source);
    if (this.strikes.size >= this.maxSources) this.strikes.delete(this.strikes.keys().next().value!);
    this.strikes.set(source, { count: 1, since: this.now() });
  }

  clear(source: string): void {
    this.strikes.delete(source);
  }
}
