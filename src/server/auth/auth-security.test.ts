import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { buildTestApp, rawRequest, signUpAndLogIn, type TestApp } from "../../../tests/harness.ts";
import { user } from "../db/schema.ts";
import { createLoginThrottle, delayAfter } from "./login-throttle.ts";
import { createMemoryThrottleStore } from "./throttle-store.ts";

const SIGN_IN_SPELLINGS = [
  "/api/auth/./sign-in/email",
  "/api/auth/%2e/sign-in/email",
  "/api/auth/%2E/sign-in/email",
  "/api/auth/x/../sign-in/email",
  "/api/auth/x/%2e%2e/sign-in/email",
  "/api/auth/sign-in/./email",
  "/api/auth/sign-in/email/",
  "/api/auth/sign-in/email/.",
];

describe("the login throttle cannot be stepped around (issue 9, findings 1 and 2)", () => {
  let app: TestApp;
  let db: Awaited<ReturnType<typeof buildTestApp>>["db"];
  beforeAll(async () => {
    // X-Forwarded-For names the client in this suite, so one socket can play several addresses.
    ({ app, db } = await buildTestApp({ config: { TRUST_PROXY: "true" } }));
    await app.listen({ host: "127.0.0.1", port: 0 });
  });
  afterAll(() => app.close());

  const signIn = async (path: string, email: string, password: string, ip = "203.0.113.7") => {
    const res = await rawRequest(app, { method: "POST", path, body: { email, password }, headers: { "x-forwarded-for": ip } });
    return { statusCode: res.status, json: () => JSON.parse(res.body), cookies: res.cookies };
  };

  it("answers every other spelling of sign-in with 404, even with the right password while the normal path is locked", async () => {
    const { email, password } = await signUpAndLogIn(app);
    for (let i = 0; i < 6; i++) await signIn("/api/auth/sign-in/email", email, "wrong-password");
    expect((await signIn("/api/auth/sign-in/email", email, password)).statusCode).toBe(429);
    for (const url of SIGN_IN_SPELLINGS) {
      const res = await signIn(url, email, password);
      expect(res.statusCode, url).toBe(404);
      expect(res.json().error.code, url).toBe("not_found");
      expect(res.cookies, url).toHaveLength(0);
    }
  });

  it("never opens a session or creates an account through another spelling of sign-up", async () => {
    for (const url of ["/api/auth/./sign-up/email", "/api/auth/%2e/sign-up/email", "/api/auth/x/../sign-up/email", "/api/auth/sign-up/./email"]) {
      const email = `spelling-${Math.random().toString(36).slice(2)}@example.com`;
      const res = await rawRequest(app, { method: "POST", path: url, body: { name: "Mallory M", email, password: "correct-horse-battery" } });
      expect(res.status, url).toBe(404);
      expect(res.cookies, url).toHaveLength(0);
      const rows = (await db.select().from(user)).filter((u) => u.email === email);
      expect(rows, url).toHaveLength(0);
    }
  });

  it("slows the guesser's address but lets the owner in from their own", async () => {
    const { email, password } = await signUpAndLogIn(app);
    const attacker = "198.51.100.66";
    const statuses: number[] = [];
    for (let i = 0; i < 10; i++) statuses.push((await signIn("/api/auth/sign-in/email", email, `guess-${i}`, attacker)).statusCode);
    expect(statuses.slice(0, 5)).toEqual([401, 401, 401, 401, 401]);
    expect(statuses.slice(5).every((s) => s === 429)).toBe(true);
    const limited = await signIn("/api/auth/sign-in/email", email, password, attacker);
    expect(limited.statusCode).toBe(429);
    expect(limited.json().error.code).toBe("rate_limited");

    const owner = await signIn("/api/auth/sign-in/email", email, password, "192.0.2.10");
    expect(owner.statusCode).toBe(200);
    expect(owner.cookies.some((c) => c.includes("session_token"))).toBe(true);
  });

  it("answers a malformed Host on /api/auth/* with a 400 in the error shape", async () => {
    for (const host of ["bad host", "[::1", "exa<mple>.com", "a@b.example"]) {
      const res = await app.inject({ method: "GET", url: "/api/auth/get-session", headers: { host } });
      expect(res.statusCode, host).toBe(400);
      expect(res.json().error).toMatchObject({ code: "invalid_host", message: "The Host header is malformed." });
    }
  });
});

describe("login throttle policy", () => {
  it("doubles the wait past the free failures, per (e-mail, address) and per address, up to the cap", async () => {
    const rule = { free: 5, baseDelayMs: 30_000 };
    expect([4, 5, 6, 7].map((n) => delayAfter(n, rule, 15 * 60_000))).toEqual([0, 30_000, 60_000, 120_000]);
    expect(delayAfter(40, rule, 15 * 60_000)).toBe(15 * 60_000);

    const throttle = createLoginThrottle({ store: createMemoryThrottleStore() });
    const t0 = 1_000_000;
    const guess = { email: "Owner@Example.com", ip: "198.51.100.1" };
    for (let i = 0; i < 5; i++) await throttle.recordFailure(guess, t0);
    expect(await throttle.retryAfterMs(guess, t0)).toBe(30_000);
    expect(await throttle.retryAfterMs({ ...guess, email: "owner@example.com" }, t0)).toBe(30_000);
    expect(await throttle.retryAfterMs({ ...guess, ip: "192.0.2.1" }, t0)).toBe(0);
    expect(await throttle.retryAfterMs(guess, t0 + 30_000)).toBe(0);
    await throttle.recordFailure(guess, t0 + 30_000);
    expect(await throttle.retryAfterMs(guess, t0 + 30_000)).toBe(60_000);

    // Twenty failures from one address over many e-mails slow that address for every e-mail.
    const sprayer = "203.0.113.99";
    for (let i = 0; i < 20; i++) await throttle.recordFailure({ email: `u${i}@example.com`, ip: sprayer }, t0);
    expect(await throttle.retryAfterMs({ email: "fresh@example.com", ip: sprayer }, t0)).toBe(30_000);
    await throttle.recordSuccess(guess);
    expect(await throttle.retryAfterMs(guess, t0 + 30_000)).toBe(0);
  });
});
