/**
 * Standard Webhooks signing (standardwebhooks.com): the secret is `whsec_` + base64 of random
 * bytes, the signed content is `{webhook-id}.{webhook-timestamp}.{body}`, and `webhook-signature`
 * is `v1,` + base64 of its HMAC-SHA256 keyed with the secret's decoded bytes. The
 * `standardwebhooks` packages of any language verify it. During a rotation's grace period the
 * header carries one `v1,<signature>` per secret, space-separated (the standard's way): a receiver
 * holding either secret verifies.
 */
import { createHmac, randomBytes } from "node:crypto";

const SECRET_PREFIX = "whsec_";

export function newWebhookSecret(): string {
  return `${SECRET_PREFIX}${randomBytes(32).toString("base64")}`;
}

/** `msg_` + 24 random base64url characters: unique per delivery, repeated on its retries. */
export function newMessageId(): string {
  return `msg_${randomBytes(18).toString("base64url")}`;
}

export interface SignedHeaders {
  "webhook-id": string;
  "webhook-timestamp": string;
  "webhook-signature": string;
}

/** Signed with each of `secrets` (the current one first). */
export function signWebhook(secrets: readonly string[], messageId: string, timestampSeconds: number, body: string): SignedHeaders {
  const signatures = secrets.map((secret) => {
    const key = Buffer.from(secret.startsWith(SECRET_PREFIX) ? secret.slice(SECRET_PREFIX.length) : secret, "base64");
    return `v1,${createHmac("sha256", key).update(`${messageId}.${timestampSeconds}.${body}`).digest("base64")}`;
  });
  return { "webhook-id": messageId, "webhook-timestamp": String(timestampSeconds), "webhook-signature": signatures.join(" ") };
}
