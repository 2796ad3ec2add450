/**
 * The session id of a test call (POST /api/calls/test-session → WS /api/calls/live).
 *
 * It is a signed token, not a key into server memory: `<payload>.<mac>` where the payload
 * (base64url JSON) names the user, the assistant, a random nonce and the expiry, and the mac
 * is an HMAC-SHA256 under a key derived from APP_SECRET. Any instance behind a load balancer
 * can verify it (DESIGN.md §2: no instance needs another's memory).
 *
 * Single use is the one thing a signature cannot give: the nonce is consumed in the shared
 * counter store (PostgreSQL, or Redis when REDIS_URL is set) for the token's remaining life, so
 * a token redeemed on one instance is refused on every other (docs/decisions/025-shared-state.md).
 */
import { createHmac, hkdfSync, randomBytes, timingSafeEqual } from "node:crypto";
import { counterKey, type CounterStore } from "../../shared-state/index.ts";

export const CALL_TOKEN_TTL_MS = 60_000;

// HKDF "info" label: the app secret also encrypts credentials and signs media URLs; each use
// gets its own derived key, so one can never be passed off as another.
const SIGNING_LABEL = "switchboard/call-session-token/v1";
const TOKEN = /^([A-Za-z0-9_-]{1,600})\.([A-Za-z0-9_-]{43})$/;

export interface CallTokenClaims {
  userId: string;
  assistantId: string;
  /** Unix ms. */
  expiresAt: number;
  nonce: string;
}

export type CallTokenCheck =
  | { ok: true; claims: CallTokenClaims }
  | { ok: false; reason: "malformed" | "bad_signature" | "wrong_user" | "expired" | "used" };

export interface CallTokens {
  issue(userId: string, assistantId: string, now?: number): string;
  /** Verifies the token for `userId` and, when valid, marks it used on every instance (later checks say "used"). */
  redeem(token: unknown, userId: string, now?: number): Promise<CallTokenCheck>;
}

interface Payload {
  u: string;
  a: string;
  e: number;
  n: string;
}

function parsePayload(text: string): Payload | null {
  try {
    const value = JSON.parse(Buffer.from(text, "base64url").toString("utf8")) as Partial<Payload>;
    const ok =
      typeof value.u === "string" && typeof value.a === "string" && typeof value.n === "string" && Number.isSafeInteger(value.e);
    return ok ? (value as Payload) : null;
  } catch {
    return null;
  }
}

export interface CallTokenOptions {
  /** Where used nonces are remembered; shared by every instance. */
  counters: CounterStore;
  ttlMs?: number;
}

export function createCallTokens(secret: string, { counters, ttlMs = CALL_TOKEN_TTL_MS }: CallTokenOptions): CallTokens {
  const key = Buffer.from(hkdfSync("sha256", secret, "", SIGNING_LABEL, 32));
  const mac = (payload: string) => createHmac("sha256", key).update(payload).digest("base64url");

  return {
    issue(userId, assistantId, now = Date.now()) {
      const payload: Payload = { u: userId, a: assistantId, e: now + ttlMs, n: randomBytes(16).toString("base64url") };
      const encoded = Buffer.from(JSON.stringify(payload), "utf8").toString("base64url");
      return `${encoded}.${mac(encoded)}`;
    },

    async redeem(token, userId, now = Date.now()) {
      const match = typeof token === "string" ? TOKEN.exec(token) : null;
      if (!match) return { ok: false, reason: "malformed" };
      const [, encoded = "", signature = ""] = match;
      // Compare the text: base64url has several spellings of a digest's last bits; accept one.
      if (!timingSafeEqual(Buffer.from(signature), Buffer.from(mac(encoded)))) return { ok: false, reason: "bad_signature" };
      const payload = parsePayload(encoded);
      if (!payload) return { ok: false, reason: "malformed" };
      if (payload.u !== userId) return { ok: false, reason: "wrong_user" };
      if (now >= payload.e) return { ok: false, reason: "expired" };
      // Remembered for a whole token lifetime more than it has left: instance clocks may differ
      // by some seconds, and the expiry check must refuse it everywhere before the store forgets.
      const used = !(await counters.consumeOnce(counterKey.token("call", payload.n), payload.e - now + ttlMs));
      if (used) return { ok: false, reason: "used" };
      return { ok: true, claims: { userId: payload.u, assistantId: payload.a, expiresAt: payload.e, nonce: payload.n } };
    },
  };
}
