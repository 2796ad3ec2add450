import { describe, expect, it } from "vitest";
import { CALL_TOKEN_TTL_MS, createCallTokens } from "./call-tokens.ts";

const SECRET = "call-token-test-secret-0123456789abcdef";
const T0 = 1_790_000_000_000;

describe("call session tokens", () => {
  it("are accepted once, for their user, within 60 s", () => {
    const tokens = createCallTokens(SECRET);
    const token = tokens.issue("user-1", "asst-1", T0);
    expect(tokens.redeem(token, "user-2", T0 + 1)).toEqual({ ok: false, reason: "wrong_user" });
    const first = tokens.redeem(token, "user-1", T0 + CALL_TOKEN_TTL_MS - 1);
    expect(first).toMatchObject({ ok: true, claims: { userId: "user-1", assistantId: "asst-1", expiresAt: T0 + CALL_TOKEN_TTL_MS } });
    expect(tokens.redeem(token, "user-1", T0 + 2)).toEqual({ ok: false, reason: "used" });
  });

  it("expire at 60 s", () => {
    const tokens = createCallTokens(SECRET);
    expect(tokens.redeem(tokens.issue("u", "a", T0), "u", T0 + CALL_TOKEN_TTL_MS)).toEqual({ ok: false, reason: "expired" });
  });

  it("verify on another instance with the same APP_SECRET, and not with another secret", () => {
    const token = createCallTokens(SECRET).issue("u", "a", T0);
    expect(createCallTokens(SECRET).redeem(token, "u", T0 + 1).ok).toBe(true);
    expect(createCallTokens(`${SECRET}-rotated`).redeem(token, "u", T0 + 1)).toEqual({ ok: false, reason: "bad_signature" });
  });

  it("refuse edited claims and anything that is not a token", () => {
    const tokens = createCallTokens(SECRET);
    const [payload, mac] = tokens.issue("u", "a", T0).split(".");
    const claims = JSON.parse(Buffer.from(payload!, "base64url").toString()) as Record<string, unknown>;
    const forged = `${Buffer.from(JSON.stringify({ ...claims, c: { u: "someone-else", a: "a" } })).toString("base64url")}.${mac}`;
    expect(tokens.redeem(forged, "someone-else", T0 + 1)).toEqual({ ok: false, reason: "bad_signature" });
    for (const junk of [undefined, "", "abc", `${payload}.short`, ["a", "b"], 42]) {
      expect(tokens.redeem(junk, "u", T0 + 1)).toEqual({ ok: false, reason: "malformed" });
    }
  });
});
