/**
 * The session id of a test call (POST /api/calls/test-session → WS /api/calls/live): a
 * signed, single-use token (secrets/signed-tokens.ts) naming the user and the assistant,
 * valid 60 s, used up on every instance. Redeeming needs the same user's session: it can only
 * open a call billed to that user's own key (see docs/decisions/030-test-call-session-token.md).
 */
import { createSignedTokens } from "../../secrets/signed-tokens.ts";
import type { CounterStore } from "../../shared-state/index.ts";

export const CALL_TOKEN_TTL_MS = 60_000;

// HKDF "info" label: the app secret also encrypts credentials and signs media URLs; each use
// gets its own derived key, so one can never be passed off as another.
const SIGNING_LABEL = "switchboard/call-session-token/v1";

export interface CallTokenClaims {
  organizationId: string;
  assistantId: string;
  /** Unix ms. */
  expiresAt: number;
  nonce: string;
}

export type CallTokenCheck =
  | { ok: true; claims: CallTokenClaims }
  | { ok: false; reason: "malformed" | "bad_signature" | "wrong_user" | "expired" | "used" };

export interface CallTokens {
  issue(organizationId: string, assistantId: string, now?: number): string;
  /** Verifies the token for `organizationId` and, when valid, marks it used on every instance (later checks say "used"). */
  redeem(token: unknown, organizationId: string, now?: number): Promise<CallTokenCheck>;
}

export interface CallTokenOptions {
  /** Where used nonces are remembered; shared by every instance. */
  counters: CounterStore;
  ttlMs?: number;
}

export function createCallTokens(secret: string, { counters, ttlMs = CALL_TOKEN_TTL_MS }: CallTokenOptions): CallTokens {
  const tokens = createSignedTokens<{ u: string; a: string }>(secret, SIGNING_LABEL, ttlMs, counters);
  return {
    issue: (organizationId, assistantId, now) => tokens.issue({ u: organizationId, a: assistantId }, now),
    async redeem(token, organizationId, now) {
      const check = await tokens.redeem(token, now, (claims) => claims.u === organizationId);
      if (!check.ok) return { ok: false, reason: check.reason === "rejected" ? "wrong_user" : check.reason };
      const { claims, expiresAt, nonce } = check;
      return { ok: true, claims: { organizationId: claims.u, assistantId: claims.a, expiresAt, nonce } };
    },
  };
}
