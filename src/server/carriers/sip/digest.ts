/**
 * Digest authentication (RFC 3261 §22, RFC 8760 for SHA-256): we challenge a trunk's INVITEs
 * with 401, and answer a trunk's 401/407 to ours. qop=auth only (auth-int is not used by trunks).
 */
import { createHash, randomBytes, timingSafeEqual } from "node:crypto";

export type DigestAlgorithm = "MD5" | "SHA-256";

const hash = (algorithm: DigestAlgorithm, text: string) => createHash(algorithm === "MD5" ? "md5" : "sha256").update(text).digest("hex");

/** `Digest k=v, k="v"` into its parameters (keys lower-case). */
export function parseDigest(header: string): Record<string, string> | null {
  const m = /^\s*Digest\s+(.*)$/is.exec(header);
  if (!m) return null;
  const out: Record<string, string> = {};
  const re = /([A-Za-z0-9_-]+)\s*=\s*(?:"((?:[^"\\]|\\.)*)"|([^\s,]+))\s*(?:,|$)/g;
  for (let part = re.exec(m[1]!); part; part = re.exec(m[1]!)) {
    out[part[1]!.toLowerCase()] = part[2] !== undefined ? part[2].replace(/\\(.)/g, "$1") : part[3]!;
  }
  return out;
}

export interface DigestResponseInput {
  algorithm: DigestAlgorithm;
  username: string;
  password: string;
  realm: string;
  method: string;
  uri: string;
  nonce: string;
  qop?: "auth";
  nc?: string;
  cnonce?: string;
}

export function digestResponse(input: DigestResponseInput): string {
  const ha1 = hash(input.algorithm, `${input.username}:${input.realm}:${input.password}`);
  const ha2 = hash(input.algorithm, `${input.method}:${input.uri}`);
  return input.qop
    ? hash(input.algorithm, `${ha1}:${input.nonce}:${input.nc}:${input.cnonce}:${input.qop}:${ha2}`)
    : hash(input.algorithm, `${ha1}:${input.nonce}:${ha2}`);
}

/**
 * The Authorization (or Proxy-Authorization) value answering `challenge`, or null when it asks
 * for what we cannot do (another algorithm, auth-int only).
 */
export function answerChallenge(challenge: string, credentials: { username: string; password: string }, method: string, uri: string): string | null {
  const p = parseDigest(challenge);
  if (!p?.realm || !p.nonce) return null;
  const algorithm = (p.algorithm ?? "MD5").toUpperCase();
  if (algorithm !== "MD5" && algorithm !== "SHA-256") return null;
  const qops = p.qop?.split(",").map((q) => q.trim());
  if (qops && !qops.includes("auth")) return null;
  const qop = qops ? ("auth" as const) : undefined;
  const cnonce = randomBytes(8).toString("hex");
  const nc = "00000001";
  const response = digestResponse({ algorithm, ...credentials, realm: p.realm, method, uri, nonce: p.nonce, qop, nc, cnonce });
  const fields = [`username="${credentials.username}"`, `realm="${p.realm}"`, `nonce="${p.nonce}"`, `uri="${uri}"`, `response="${response}"`, `algorithm=${algorithm}`];
  if (p.opaque !== undefined) fields.push(`opaque="${p.opaque}"`);
  if (qop) fields.push(`qop=${qop}`, `nc=${nc}`, `cnonce="${cnonce}"`);
  return `Digest ${fields.join(", ")}`;
}

/**
 * Our side of inbound authentication: nonces we issued (kept a few minutes), checked answers.
 * A nonce is signed with the instance's key, so one issued by this process is recognised
 * without state; its age bounds replay.
 */
export class DigestChallenger {
  private readonly key = randomBytes(16);

  constructor(
    private readonly realm: string,
    private readonly algorithms: readonly DigestAlgorithm[] = ["SHA-256", "MD5"],
    private readonly nonceTtlMs = 5 * 60_000,
  ) {}

  /** One WWW-Authenticate value per algorithm, strongest first (RFC 8760 §2.4). */
  challenges(stale = false): string[] {
    const nonce = this.makeNonce();
    return this.algorithms.map((a) => `Digest realm="${this.realm}", nonce="${nonce}", algorithm=${a}, qop="auth"${stale ? ", stale=true" : ""}`);
  }

  /** "ok", "stale" (answer with a fresh nonce) or "bad". */
  verify(authorization: string | undefined, method: string, lookup: (username: string) => string | undefined): "ok" | "stale" | "bad" | "missing" {
    if (!authorization) return "missing";
    const p = parseDigest(authorization);
    if (!p?.username || !p.nonce || !p.response || !p.uri || p.realm !== this.realm) return "bad";
    const algorithm = (p.algorithm ?? "MD5").toUpperCase() as DigestAlgorithm;
    if (!this.algorithms.includes(algorithm)) return "bad";
    const password = lookup(p.username);
    if (password === undefined) return "bad";
    if (p.qop !== undefined && (p.qop !== "auth" || !p.nc || !p.cnonce)) return "bad";
    const expected = digestResponse({ algorithm, username: p.username, password, realm: this.realm, method, uri: p.uri, nonce: p.nonce, qop: p.qop ? "auth" : undefined, nc: p.nc, cnonce: p.cnonce });
    const given = Buffer.from(p.response.toLowerCase());
    if (given.length !== expected.length || !timingSafeEqual(given, Buffer.from(expected))) return "bad";
    const age = this.nonceAge(p.nonce);
    if (age === null) return "bad";
    return age > this.nonceTtlMs ? "stale" : "ok";
  }

  private makeNonce(): string {
    const time = Date.now().toString(16);
    return `${time}.${this.sign(time)}`;
  }

  private nonceAge(nonce: string): number | null {
    const [time, sig] = nonce.split(".");
    if (!time || !sig || sig !== this.sign(time)) return null;
    return Date.now() - Number.parseInt(time, 16);
  }

  private sign(time: string) {
    return createHash("sha256").update(this.key).update(time).digest("hex").slice(0, 24);
  }
}
