import { mkdtempSync, readFileSync, statSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { loadConfig } from "./config.ts";
import { ensureAppSecret } from "./secrets/app-secret.ts";
import { createSecretBox } from "./secrets/crypto.ts";

describe("configuration", () => {
  it("has working defaults", () => {
    const c = loadConfig({});
    expect(c).toMatchObject({ port: 3000, host: "127.0.0.1", dataDir: "./data", publicUrl: "http://localhost:3000", defaultRealtimeModel: "gpt-realtime-2.1" });
    expect(c.databaseUrl).toBeUndefined();
  });

  it("stops with a message naming the wrong variable", () => {
    expect(() => loadConfig({ PORT: "eighty" })).toThrow(/PORT/);
    expect(() => loadConfig({ DATABASE_URL: "mysql://x" })).toThrow(/DATABASE_URL: must be a postgres/);
    expect(() => loadConfig({ OPENAI_BASE_URL: "ftp://x" })).toThrow(/OPENAI_BASE_URL/);
    expect(() => loadConfig({ APP_SECRET: "short" })).toThrow(/APP_SECRET: must be at least 32/);
  });

  it("requires APP_SECRET in production", () => {
    expect(() => loadConfig({ NODE_ENV: "production" })).toThrow(/APP_SECRET: is required when NODE_ENV=production/);
    expect(loadConfig({ NODE_ENV: "production", APP_SECRET: "x".repeat(40), PUBLIC_URL: "https://sb.example.com" }).appSecret).toBe("x".repeat(40));
  });

  it("trusts X-Forwarded-For only when told to", () => {
    expect(loadConfig({}).trustProxy).toBe(false);
    expect(loadConfig({ TRUST_PROXY: "true" }).trustProxy).toBe(true);
    expect(loadConfig({ TRUST_PROXY: "10.0.0.0/8, 127.0.0.1" }).trustProxy).toBe("10.0.0.0/8, 127.0.0.1");
    expect(() => loadConfig({ TRUST_PROXY: "yes please" })).toThrow(/TRUST_PROXY/);
  });

  it("takes S3 storage only when all five S3 settings are given, and names the missing ones", () => {
    const s3 = { S3_ENDPOINT: "http://127.0.0.1:9000/", S3_BUCKET: "recordings", S3_REGION: "eu-west-1", S3_ACCESS_KEY_ID: "id", S3_SECRET_ACCESS_KEY: "secret" };
    expect(loadConfig({}).s3).toBeUndefined();
    expect(loadConfig(s3).s3).toEqual({ endpoint: "http://127.0.0.1:9000", bucket: "recordings", region: "eu-west-1", accessKeyId: "id", secretAccessKey: "secret", forcePathStyle: true });
    expect(() => loadConfig({ S3_ENDPOINT: "http://127.0.0.1:9000", S3_BUCKET: "recordings" })).toThrow(
      /S3_REGION: is required when any S3_ setting is set\n\s+S3_ACCESS_KEY_ID: is required/,
    );
    expect(() => loadConfig({ ...s3, S3_BUCKET: "Not A Bucket" })).toThrow(/S3_BUCKET: must be a valid bucket name/);
  });

  it("reads the several-instances settings", () => {
    expect(loadConfig({})).toMatchObject({ redisUrl: undefined, instanceId: undefined, instanceLeaseMs: 30_000, drainTimeoutMs: 60_000 });
    expect(loadConfig({ REDIS_URL: "redis://127.0.0.1:6379", INSTANCE_ID: "web-1", INSTANCE_LEASE_MS: "2000", DRAIN_TIMEOUT_MS: "0" })).toMatchObject({
      redisUrl: "redis://127.0.0.1:6379",
      instanceId: "web-1",
      instanceLeaseMs: 2000,
      drainTimeoutMs: 0,
    });
    expect(() => loadConfig({ REDIS_URL: "http://x" })).toThrow(/REDIS_URL: must be a redis/);
    expect(() => loadConfig({ INSTANCE_ID: "web 1" })).toThrow(/INSTANCE_ID/);
    expect(() => loadConfig({ INSTANCE_LEASE_MS: "10" })).toThrow(/INSTANCE_LEASE_MS: must be at least 500/);
  });

  it("parses the tool allow-list", () => {
    expect(loadConfig({ TOOL_ALLOWED_HOSTS: " api.internal , 127.0.0.1:4000 ," }).toolAllowedHosts).toEqual(["api.internal", "127.0.0.1:4000"]);
  });

  it("takes SIP over TLS with a certificate and its key, on 5061 unless told otherwise, and names the missing half", () => {
    expect(loadConfig({}).sip.tls).toBeUndefined();
    expect(loadConfig({ SIP_TLS_CERT: "/etc/sip/cert.pem", SIP_TLS_KEY: "/etc/sip/key.pem" }).sip.tls).toEqual({ certFile: "/etc/sip/cert.pem", keyFile: "/etc/sip/key.pem", port: 5061, caFile: undefined, srtp: "optional" });
    expect(loadConfig({ SIP_TLS_CERT: "c.pem", SIP_TLS_KEY: "k.pem", SIP_TLS_PORT: "5071", SIP_TLS_CA: "pbx.pem", SIP_SRTP: "required" }).sip.tls).toMatchObject({ port: 5071, caFile: "pbx.pem", srtp: "required" });
    expect(() => loadConfig({ SIP_TLS_CERT: "c.pem" })).toThrow(/SIP_TLS_KEY: is required with SIP_TLS_CERT/);
    expect(() => loadConfig({ SIP_TLS_KEY: "k.pem" })).toThrow(/SIP_TLS_CERT: is required with SIP_TLS_KEY/);
    expect(() => loadConfig({ SIP_SRTP: "always" })).toThrow(/SIP_SRTP: must be optional or required/);
  });
});

describe("app secret", () => {
  it("is generated once into DATA_DIR, private, and reused after a restart", () => {
    const dir = mkdtempSync(join(tmpdir(), "sb-secret-"));
    const first = ensureAppSecret(dir, undefined);
    expect(first.generated).toBe(true);
    expect(statSync(join(dir, "app-secret")).mode & 0o777).toBe(0o600);
    const again = ensureAppSecret(dir, undefined);
    expect(again).toEqual({ secret: first.secret, generated: false });
    expect(readFileSync(join(dir, "app-secret"), "utf8").trim()).toBe(first.secret);
    expect(ensureAppSecret(dir, "given-secret-given-secret-given-secret").secret).toBe("given-secret-given-secret-given-secret");
  });

  it("encrypts secrets at rest so that only the same APP_SECRET opens them", () => {
    const box = createSecretBox("a".repeat(40));
    const sealed = box.encrypt("sk-live-123");
    expect(sealed).not.toContain("sk-live-123");
    expect(box.decrypt(sealed)).toBe("sk-live-123");
    expect(() => createSecretBox("b".repeat(40)).decrypt(sealed)).toThrow();
  });
});
