import { createHmac, hkdfSync, timingSafeEqual } from "node:crypto";
import { isValidKey } from "./keys.ts";

export const DEFAULT_URL_LIFETIME_MS = 3_600_000;
export const MEDIA_BASE_PATH = "/api/media";

// HKDF "info" label: the app secret also encrypts credentials and signs telephony
// tokens, so each use gets its own derived key and a leak of one cannot forge another.
const SIGNING_LABEL = "switchboard/media-url-signing/v1";
const EXP_PATTERN = /^[1-9]\d{0,15}$/;
const SIG_PATTERN = /^[A-Za-z0-9_-]{43}$/; // base64url of a 32-byte HMAC-SHA256, unpadded

export interface SignUrlOptions {
  expiresInMs?: number;
  now?: number;
}

export type VerifyFailure = "unsigned" | "malformed" | "bad_signature" | "expired";
export type VerifyResult = { ok: true; expiresAt: number } | { ok: false; reason: VerifyFailure };

export interface UrlSigner {
  /** Path the signed URLs point at; the media routes are mounted at `${basePath}/*`. */
  readonly basePath: string;
  /** `${basePath}/<key>?exp=<unix ms>&sig=<base64url>`; throws on an invalid key. */
  signUrl(key: string, options?: SignUrlOptions): string;
  /** `exp` and `sig` are taken as they arrive in a query string (possibly absent or repeated). */
  verifySignedUrl(key: string, exp: unknown, sig: unknown, now?: number): VerifyResult;
}

export interface UrlSignerOptions {
  /** The app secret (APP_SECRET); the signing key is derived from it, never used directly. */
  secret: string | Uint8Array;
  basePath?: string;
}

export function createUrlSigner({ secret, basePath = MEDIA_BASE_PATH }: UrlSignerOptions): UrlSigner {
  if (secret.length === 0) throw new Error("createUrlSigner: the app secret is empty");
  const signingKey = Buffer.from(hkdfSync("sha256", secret, "", SIGNING_LABEL, 32));
  // The newline keeps the (key, exp) pair unambiguous: keys cannot contain one.
  const mac = (key: string, exp: string) => createHmac("sha256", signingKey).update(`${key}\n${exp}`).digest();

  return {
    basePath,
    signUrl(key, { expiresInMs = DEFAULT_URL_LIFETIME_MS, now = Date.now() } = {}) {
      if (!isValidKey(key)) throw new Error(`signUrl: invalid object key ${JSON.stringify(key)}`);
      if (!Number.isSafeInteger(expiresInMs) || expiresInMs <= 0) {
        throw new Error(`signUrl: expiresInMs must be a positive integer, got ${expiresInMs}`);
      }
      const exp = String(Math.floor(now) + expiresInMs);
      return `${basePath}/${key}?exp=${exp}&sig=${mac(key, exp).toString("base64url")}`;
    },
    verifySignedUrl(key, exp, sig, now = Date.now()) {
      if (exp === undefined && sig === undefined) return { ok: false, reason: "unsigned" };
      if (typeof exp !== "string" || typeof sig !== "string") return { ok: false, reason: "malformed" };
      if (!EXP_PATTERN.test(exp) || !SIG_PATTERN.test(sig)) return { ok: false, reason: "malformed" };
      // Compare the text, not decoded bytes: base64url has several spellings of a
      // 32-byte value's last bits, and only the canonical one should be accepted.
      const expected = Buffer.from(mac(key, exp).toString("base64url"));
      if (!timingSafeEqual(Buffer.from(sig), expected)) return { ok: false, reason: "bad_signature" };
      const expiresAt = Number(exp);
      if (now >= expiresAt) return { ok: false, reason: "expired" };
      return { ok: true, expiresAt };
    },
  };
}
