import { randomBytes } from "node:crypto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { buildTestApp, freshDatabase, rawRequest, signUpAndLogIn, type TestApp } from "../../../tests/harness.ts";
import type { Database } from "../db/client.ts";
import { user } from "../db/schema.ts";
import type { CounterStore } from "../shared-state/index.ts";
import { createPgCounterStore } from "../shared-state/pg-counter-store.ts";
import { createRedisCounterStore } from "../shared-state/redis-counter-store.ts";
import { LOGIN_UNAVAILABLE_MESSAGE } from "./auth.routes.ts";
import { createLoginThrottle, delayAfter, type LoginThrottle } from "./login-throttle.ts";

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

describe("the login throttle cannot be stepped around", () => {
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

const REDIS_URL = "redis://127.0.0.1:6379";
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
// Unique per run: Redis outlives the test, and its keys must not meet a previous run's.
const octets = () => randomBytes(2).join(".");
const tag = () => randomBytes(4).toString("hex");
// The real policy's shape with delays short enough to wait out in real time.
const FAST = { pair: { free: 2, baseDelayMs: 300 }, address: { free: 8, baseDelayMs: 1000 }, maxDelayMs: 1200, memoryMs: 30_000 };

it("owes no wait before the free failures, then doubles it up to the cap", () => {
  const rule = { free: 5, baseDelayMs: 30_000 };
  expect([4, 5, 6, 7].map((n) => delayAfter(n, rule, 15 * 60_000))).toEqual([0, 30_000, 60_000, 120_000]);
  expect(delayAfter(40, rule, 15 * 60_000)).toBe(15 * 60_000);
});

describe.each([
  ["PostgreSQL", (db: Database) => createPgCounterStore(db)],
  ["Redis", () => createRedisCounterStore(REDIS_URL)],
] as const)("login throttle policy, counted in %s", (_name, makeStore) => {
  let database: Database;
  let stores: CounterStore[];
  // Two throttles on two connections to one store stand for two instances.
  let one: LoginThrottle;
  let two: LoginThrottle;
  beforeAll(async () => {
    database = await freshDatabase();
    stores = [makeStore(database), makeStore(database)];
    [one, two] = stores.map((store) => createLoginThrottle(store, FAST)) as [LoginThrottle, LoginThrottle];
  });
  afterAll(async () => {
    await Promise.all(stores.map((s) => s.close()));
    await database.close();
  });

  it("slows a pair past its free failures, doubling the wait up to the cap, whichever instance saw them", async () => {
    const guess = { email: `Owner-${tag()}@Example.com`, ip: `198.51.${octets()}` };
    await one.recordFailure(guess);
    expect(await two.retryAfterMs(guess)).toBe(0);
    await two.recordFailure(guess);
    const first = await one.retryAfterMs(guess);
    expect(first).toBeGreaterThan(0);
    expect(first).toBeLessThanOrEqual(300);
    // The e-mail's case does not matter; another address is not slowed at all.
    expect(await two.retryAfterMs({ ...guess, email: guess.email.toLowerCase() })).toBeGreaterThan(0);
    expect(await one.retryAfterMs({ ...guess, ip: `192.0.${octets()}` })).toBe(0);

    await sleep(first + 50);
    expect(await two.retryAfterMs(guess)).toBe(0);
    await two.recordFailure(guess);
    const second = await one.retryAfterMs(guess);
    expect(second).toBeGreaterThan(300);
    expect(second).toBeLessThanOrEqual(600);

    for (let i = 0; i < 3; i++) await (i % 2 ? one : two).recordFailure(guess);
    const capped = await two.retryAfterMs(guess);
    expect(capped).toBeGreaterThan(600);
    expect(capped).toBeLessThanOrEqual(FAST.maxDelayMs);

    // The owner getting in clears the pair (the address, at 6 of its 8 free failures, owes nothing).
    await one.recordSuccess(guess);
    expect(await two.retryAfterMs(guess)).toBe(0);
  });

  it("slows an address trying many e-mails for every e-mail, and no other address", async () => {
    const sprayer = `203.0.${octets()}`;
    for (let i = 0; i < FAST.address.free; i++) await (i % 2 ? one : two).recordFailure({ email: `u${i}-${tag()}@example.com`, ip: sprayer });
    const wait = await one.retryAfterMs({ email: `fresh-${tag()}@example.com`, ip: sprayer });
    expect(wait).toBeGreaterThan(0);
    expect(wait).toBeLessThanOrEqual(1000);
    expect(await two.retryAfterMs({ email: `fresh-${tag()}@example.com`, ip: `192.0.${octets()}` })).toBe(0);
    // A success on that address does not clear its count: a guesser may own an account too.
    const own = { email: `own-${tag()}@example.com`, ip: sprayer };
    await two.recordSuccess(own);
    expect(await one.retryAfterMs(own)).toBeGreaterThan(0);
  });
});

it("refuses sign-in with a 503 while the counters cannot be reached, rather than counting no guess", async () => {
  // Nothing listens on port 1: the store's every command fails, as in a Redis outage.
  const { app } = await buildTestApp({ config: { REDIS_URL: "redis://127.0.0.1:1" } });
  try {
    const res = await app.inject({ method: "POST", url: "/api/auth/sign-in/email", payload: { email: "owner@example.com", password: "guess" } });
    expect(res.statusCode).toBe(503);
    expect(res.json().error).toEqual({ code: "login_unavailable", message: LOGIN_UNAVAILABLE_MESSAGE });
    expect(res.headers["retry-after"]).toBe("60");
    expect(res.cookies).toHaveLength(0);
  } finally {
    await app.close();
  }
});
