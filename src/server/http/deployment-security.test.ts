import { describe, expect, it } from "vitest";
import { buildTestApp, signUpAndLogIn } from "../../../tests/harness.ts";
import { loadConfig } from "../config.ts";
import { redactUrl } from "./log-redaction.ts";

/** Production cookies, forwarded headers, what the request log shows. */

const SECRET = "x".repeat(40);

describe("production over https only", () => {
  it("refuses to start in production with an http PUBLIC_URL unless ALLOW_HTTP_IN_PRODUCTION=true", () => {
    expect(() => loadConfig({ NODE_ENV: "production", APP_SECRET: SECRET })).toThrow(/PUBLIC_URL: must be an https:\/\/ URL when NODE_ENV=production/);
    expect(() => loadConfig({ NODE_ENV: "production", APP_SECRET: SECRET, PUBLIC_URL: "http://intranet.local" })).toThrow(/ALLOW_HTTP_IN_PRODUCTION/);
    const optedOut = loadConfig({ NODE_ENV: "production", APP_SECRET: SECRET, PUBLIC_URL: "http://intranet.local", ALLOW_HTTP_IN_PRODUCTION: "true" });
    expect(optedOut.secureCookies).toBe(false);
    expect(loadConfig({ NODE_ENV: "production", APP_SECRET: SECRET, PUBLIC_URL: "https://sb.example.com" }).secureCookies).toBe(true);
    expect(loadConfig({}).secureCookies).toBe(false);
  });

  it("marks the session cookie Secure in production", async () => {
    const { app } = await buildTestApp({ config: { NODE_ENV: "production", APP_SECRET: SECRET, PUBLIC_URL: "https://sb.example.com" } });
    const { email, password } = await signUpAndLogIn(app);
    const login = await app.inject({ method: "POST", url: "/api/auth/sign-in/email", payload: { email, password } });
    expect(login.statusCode).toBe(200);
    const session = login.cookies.find((c) => c.name.includes("session_token"));
    expect(session?.secure).toBe(true);
    expect(session?.httpOnly).toBe(true);
    await app.close();
  });
});

describe("X-Forwarded-Host", () => {
  const attempt = async (trustProxy: string) => {
    const { app } = await buildTestApp({ config: { TRUST_PROXY: trustProxy } });
    const { email, password } = await signUpAndLogIn(app);
    const res = await app.inject({
      method: "POST",
      url: "/api/auth/sign-in/email",
      headers: { origin: "https://evil.example", "x-forwarded-host": "evil.example", "x-forwarded-proto": "https" },
      payload: { email, password },
    });
    await app.close();
    return res;
  };

  it("cannot make another site's origin trusted unless TRUST_PROXY says the proxy sets it", async () => {
    const refused = await attempt("false");
    expect(refused.statusCode).toBe(403);
    expect(refused.json().error.code).toBe("invalid_origin");
    expect((await attempt("true")).statusCode).toBe(200);
  });
});

describe("the request log", () => {
  it("shows paths without query values, so signed media URLs and session ids stay out of it", () => {
    expect(redactUrl("/media/recordings/u/c.wav?exp=1795367957&sig=AbC-dEf_123")).toBe("/media/recordings/u/c.wav?exp=[redacted]&sig=[redacted]");
    expect(redactUrl("/api/calls/live?session_id=abc")).toBe("/api/calls/live?session_id=[redacted]");
    expect(redactUrl("/api/tools")).toBe("/api/tools");
  });

  it("of a real signed recording request holds no signature", async () => {
    const lines: string[] = [];
    const { app } = await buildTestApp({ config: { LOG_LEVEL: "info" }, deps: { logStream: { write: (l: string) => void lines.push(l) } } });
    const url = app.ctx.signer.signUrl("media/customers/does-not-exist.mp4", { expiresInMs: 60_000 });
    const sig = new URL(url, "http://x").searchParams.get("sig")!;
    expect(sig.length).toBeGreaterThan(10);
    await app.inject({ method: "GET", url });
    const log = lines.join("");
    expect(log).toContain("/media/customers/does-not-exist.mp4");
    expect(log).not.toContain(sig);
    await app.close();
  });
});
