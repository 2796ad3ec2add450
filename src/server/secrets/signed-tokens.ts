/**
 * Short-lived, single-use signed tokens: `<payload>.<mac>` where the payload (base64url JSON)
 * carries the claims, a random nonce and the expiry, and the mac is an HMAC-SHA256 under a
 * key derived from APP_SECRET with a per-use label (HKDF "info"), so a token of one kind can
 * never be passed off as another. Any instance can verify one (design §2).
 *
 * Single use is the one thing a signature cannot give: the nonce is consumed in the shared
 * counter store (PostgreSQL, or Redis when REDIS_URL is set), so a token redeemed on one
 * instance is refused on every other (docs/decisions/025-shared-state.md).
 *
 * Used by test calls (modules/calls/call-tokens.ts) and phone calls' media streams
 * (telephony/stream-tokens.ts).
 */
import { createHmac, hkdfSync, randomBytes, timingSafeEqual } from "node:crypto";
import { counterKey, type CounterStore } from "../shared-state/index.ts";

const TOKEN = /^([A-Za-z0-9_-]{1,1200})\.([A-Za-z0-9_-]{43})$/;

export type TokenClaims = Record<string, string>;

export type SignedTokenCheck<C extends TokenClaims> =
  | { ok: true; claims: C; expiresAt: number; nonce: string }
  | { ok: false; reason: "malformed" | "bad_signature" | "rejected" | "expired" | "used" };

export interface SignedTokens<C extends TokenClaims> {
  issue(claims: C, now?: number): string;
  /**
   * The claims of a well-signed, unexpired token, without using it up (null otherwise): lets work
   * that depends on them start while `redeem` records the use. Only `redeem` makes a token good.
   */
  verify(token: unknown, now?: number): C | null;
  /**
   * Verifies the token and, when valid and `accept`ed (default: any claims), marks it used on
   * every instance (later checks say "used"). A token refused by `accept` is not used up.
   */
  redeem(token: unknown, now?: number, accept?: (claims: C) => boolean): Promise<SignedTokenCheck<C>>;
}

interface Payload {
  c: TokenClaims;
  e: number;
  n: string;
}

function parsePayload(text: string): Payload | null {
  try {
    const value = JSON.parse(Buffer.from(text, "base64url").toString("utf8")) as Partial<Payload>;
    const claims = value.c;
    const ok =
      typeof claims === "object" &&
      claims !== null &&
      Object.values(claims).every((v) => typeof v === "string") &&
      typeof value.n === "string" &&
      Number.isSafeInteger(value.e);
    return ok ? (value as Payload) : null;
  } catch {
    return null;
  }
}

export function createSignedTokens<C extends TokenClaims>(secret: string, label: string, ttlMs: number, counters: CounterStore): SignedTokens<C> {
  const key = Buffer.from(hkdfSync("sha256", secret, "", label, 32));
  const mac = (payload: string) => createHmac("sha256", key).update(payload).digest("base64url");
  const readToken = (token: unknown): { payload: Payload } | { reason: "malformed" | "bad_signature" } => {
    const match = typeof token === "string" ? TOKEN.exec(token) : null;
    if (!match) return { reason: "malformed" };
    const [, encoded = "", signature = ""] = match;
    // Compare the text: base64url has several spellings of a digest's last bits; accept one.
    if (!timingSafeEqual(Buffer.from(signature), Buffer.from(mac(encoded)))) return { reason: "bad_signature" };
    const payload = parsePayload(encoded);
    return payload ? { payload } : { reason: "malformed" };
  };

  return {
    issue(claims, now = Date.now()) {
      const payload: Payload = { c: claims, e: now + ttlMs, n: randomBytes(16).toString("base64url") };
      const encoded = Buffer.from(JSON.stringify(payload), "utf8").toString("base64url");
      return `${encoded}.${mac(encoded)}`;
    },

    verify(token, now = Date.now()) {
      const read = readToken(token);
      return "payload" in read && now < read.payload.e ? (read.payload.c as C) : null;
    },

    async redeem(token, now = Date.now(), accept = () => true) {
      const read = readToken(token);
      if (!("payload" in read)) return { ok: false, reason: read.reason };
      const { payload } = read;
      if (!accept(payload.c as C)) return { ok: false, reason: "rejected" };
      if (now >= payload.e) return { ok: false, reason: "expired" };
      // Remembered for a whole token lifetime more than it has left: instance clocks may differ
      // by some seconds, and the expiry check must refuse it everywhere before the store forgets.
      if (!(await counters.consumeOnce(counterKey.token(label, payload.n), payload.e - now + ttlMs))) return { ok: false, reason: "used" };
      return { ok: true, claims: payload.c as C, expiresAt: payload.e, nonce: payload.n };
    },
  };
}
