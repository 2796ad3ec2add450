import { createCipheriv, createDecipheriv, hkdfSync, randomBytes } from "node:crypto";

/** Derives a purpose-bound key so one APP_SECRET can sign and encrypt without reusing key material. */
export function deriveKey(appSecret: string, purpose: string): Buffer {
  return Buffer.from(hkdfSync("sha256", appSecret, "switchboard", purpose, 32));
}

/** AES-256-GCM; the stored form is `v1.<iv>.<tag>.<ciphertext>` in base64url. */
export interface SecretBox {
  encrypt(plain: string): string;
  decrypt(sealed: string): string;
}

export function createSecretBox(appSecret: string): SecretBox {
  const key = deriveKey(appSecret, "secrets-at-rest");
  return {
    encrypt(plain) {
      const iv = randomBytes(12);
      const cipher = createCipheriv("aes-256-gcm", key, iv);
      const body = Buffer.concat([cipher.update(plain, "utf8"), cipher.final()]);
      return ["v1", iv, cipher.getAuthTag(), body].map((p) => (typeof p === "string" ? p : p.toString("base64url"))).join(".");
    },
    decrypt(sealed) {
      const [version, iv, tag, body] = sealed.split(".");
      if (version !== "v1" || !iv || !tag || body === undefined) throw new Error("Unrecognised sealed secret");
      const decipher = createDecipheriv("aes-256-gcm", key, Buffer.from(iv, "base64url"));
      decipher.setAuthTag(Buffer.from(tag, "base64url"));
      return Buffer.concat([decipher.update(Buffer.from(body, "base64url")), decipher.final()]).toString("utf8");
    },
  };
}

/** What the API shows instead of a secret: enough to recognise it, never enough to use it. */
export function maskSecret(plain: string): string {
  return plain.length <= 8 ? "••••" : `${plain.slice(0, 3)}••••${plain.slice(-4)}`;
}
