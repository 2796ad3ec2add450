import { createHmac } from "node:crypto";
import { describe, expect, it } from "vitest";
import { createUrlSigner, DEFAULT_URL_LIFETIME_MS } from "./signed-url.ts";

const NOW = 1_800_000_000_000;
const signer = createUrlSigner({ secret: "test-app-secret-0123456789abcdef" });

function parts(url: string) {
  const parsed = new URL(url, "http://localhost");
  return { path: parsed.pathname, exp: parsed.searchParams.get("exp") ?? undefined, sig: parsed.searchParams.get("sig") ?? undefined };
}

describe("createUrlSigner", () => {
  it("signs a key into a relative media address that expires in one hour by default", () => {
    const url = signer.signUrl("media/clip-bank.mp4", { now: NOW });
    const { path, exp, sig } = parts(url);
    expect(path).toBe("/api/media/media/clip-bank.mp4");
    expect(Number(exp)).toBe(NOW + DEFAULT_URL_LIFETIME_MS);
    expect(sig).toMatch(/^[A-Za-z0-9_-]{43}$/);
    expect(signer.verifySignedUrl("media/clip-bank.mp4", exp, sig, NOW)).toEqual({ ok: true, expiresAt: NOW + DEFAULT_URL_LIFETIME_MS });
  });

  it("honours a custom lifetime and expires exactly at exp", () => {
    const { exp, sig } = parts(signer.signUrl("a.mp4", { expiresInMs: 5_000, now: NOW }));
    expect(signer.verifySignedUrl("a.mp4", exp, sig, NOW + 4_999).ok).toBe(true);
    expect(signer.verifySignedUrl("a.mp4", exp, sig, NOW + 5_000)).toEqual({ ok: false, reason: "expired" });
  });

  it("refuses another key, a changed expiry, a changed signature and another secret", () => {
    const { exp, sig = "" } = parts(signer.signUrl("a.mp4", { now: NOW }));
    expect(signer.verifySignedUrl("b.mp4", exp, sig, NOW)).toEqual({ ok: false, reason: "bad_signature" });
    expect(signer.verifySignedUrl("a.mp4", String(Number(exp) + 1_000), sig, NOW)).toEqual({ ok: false, reason: "bad_signature" });
    const flipped = (sig[0] === "A" ? "B" : "A") + sig.slice(1);
    expect(signer.verifySignedUrl("a.mp4", exp, flipped, NOW)).toEqual({ ok: false, reason: "bad_signature" });
    const other = createUrlSigner({ secret: "another-secret-0123456789abcdef" });
    expect(other.verifySignedUrl("a.mp4", exp, sig, NOW)).toEqual({ ok: false, reason: "bad_signature" });
  });

  it("accepts only the canonical spelling of the signature", () => {
    const { exp, sig = "" } = parts(signer.signUrl("a.mp4", { now: NOW }));
    // The last base64url character carries 2 padding bits; other spellings decode to the same bytes.
    const alphabet = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_";
    const index = alphabet.indexOf(sig.at(-1) ?? "");
    const twin = sig.slice(0, -1) + alphabet[index ^ 1];
    expect(Buffer.from(twin, "base64url")).toEqual(Buffer.from(sig, "base64url"));
    expect(signer.verifySignedUrl("a.mp4", exp, twin, NOW).ok).toBe(false);
  });

  it("does not use the raw app secret as the HMAC key", () => {
    const secret = "test-app-secret-0123456789abcdef";
    const { exp = "", sig } = parts(signer.signUrl("a.mp4", { now: NOW }));
    const naive = createHmac("sha256", secret).update(`a.mp4\n${exp}`).digest("base64url");
    expect(sig).not.toBe(naive);
  });

  it("classifies missing and malformed parameters", () => {
    expect(signer.verifySignedUrl("a.mp4", undefined, undefined, NOW)).toEqual({ ok: false, reason: "unsigned" });
    expect(signer.verifySignedUrl("a.mp4", String(NOW + 1), undefined, NOW)).toEqual({ ok: false, reason: "malformed" });
    expect(signer.verifySignedUrl("a.mp4", ["1", "2"], "x".repeat(43), NOW)).toEqual({ ok: false, reason: "malformed" });
    expect(signer.verifySignedUrl("a.mp4", "0123", "x".repeat(43), NOW)).toEqual({ ok: false, reason: "malformed" });
    expect(signer.verifySignedUrl("a.mp4", String(NOW + 1), "short", NOW)).toEqual({ ok: false, reason: "malformed" });
  });

  it("refuses to sign invalid keys or lifetimes, and an empty secret", () => {
    expect(() => signer.signUrl("../etc/passwd")).toThrow(/invalid object key/);
    expect(() => signer.signUrl("/abs.mp4")).toThrow(/invalid object key/);
    expect(() => signer.signUrl("a.mp4", { expiresInMs: 0 })).toThrow(/expiresInMs/);
    expect(() => signer.signUrl("a.mp4", { expiresInMs: Number.POSITIVE_INFINITY })).toThrow(/expiresInMs/);
    expect(() => createUrlSigner({ secret: "" })).toThrow(/empty/);
  });

  it("uses a custom base path", () => {
    const recordings = createUrlSigner({ secret: "s3cret-s3cret-s3cret", basePath: "/api/recordings" });
    expect(recordings.signUrl("r/1.wav", { now: NOW })).toMatch(/^\/api\/recordings\/r\/1\.wav\?exp=\d+&sig=/);
  });
});
