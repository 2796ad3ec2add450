import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Mailer } from "./mailer.ts";
import { buildTestApp, signUpAndLogIn, type TestApp } from "../../../tests/harness.ts";

describe("accounts and sessions", () => {
  let app: TestApp;
  beforeAll(async () => {
    ({ app } = await buildTestApp());
  });
  afterAll(() => app.close());

  it("signs up with the full name, logs in and reads the session from the HttpOnly cookie", async () => {
    const { cookie, email } = await signUpAndLogIn(app, "Grace Hopper");
    const login = await app.inject({ method: "POST", url: "/api/auth/sign-in/email", payload: { email, password: "correct-horse-battery" } });
    const sessionCookie = login.cookies.find((c) => c.name.includes("session_token"));
    expect(sessionCookie?.httpOnly).toBe(true);
    const session = await app.inject({ method: "GET", url: "/api/auth/get-session", headers: { cookie } });
    expect(session.json().user).toMatchObject({ name: "Grace Hopper", email });
  });

  it("refuses a duplicate e-mail and a short password with the server's reason", async () => {
    const { email } = await signUpAndLogIn(app);
    const dup = await app.inject({ method: "POST", url: "/api/auth/sign-up/email", payload: { name: "X Y", email, password: "another-password" } });
    expect(dup.statusCode).toBe(422);
    expect(dup.json().error.message).toMatch(/already exists/i);
    const weak = await app.inject({ method: "POST", url: "/api/auth/sign-up/email", payload: { name: "X Y", email: "weak@example.com", password: "12345" } });
    expect(weak.statusCode).toBe(400);
    expect(weak.json().error.message).toMatch(/password too short/i);
  });

  it("rejects a wrong password and rate-limits repeated failures with a clear message", async () => {
    const { email, password } = await signUpAndLogIn(app);
    const attempt = (pw: string) => app.inject({ method: "POST", url: "/api/auth/sign-in/email", payload: { email, password: pw } });
    for (let i = 0; i < 5; i++) expect((await attempt("wrong-password")).statusCode).toBe(401);
    const limited = await attempt(password);
    expect(limited.statusCode).toBe(429);
    expect(limited.json().error.message).toMatch(/Too many failed login attempts\. Please try again in \d+ (seconds?|minutes?)\./);
    expect(Number(limited.headers["retry-after"])).toBeGreaterThan(0);
  });

  it("answers 401 on every other /api route without a session, and 404 for unknown ones with or without one", async () => {
    expect((await app.inject({ method: "GET", url: "/api/nope" })).statusCode).toBe(404);
    for (const url of ["/api/assistants", "/api/tools", "/api/calls"]) {
      const res = await app.inject({ method: "GET", url });
      expect(res.statusCode, url).toBe(401);
      expect(res.json().error.code).toBe("unauthorized");
    }
    const { cookie } = await signUpAndLogIn(app);
    expect((await app.inject({ method: "GET", url: "/api/nope", headers: { cookie } })).statusCode).toBe(404);
  });

  it("logs out on the server: the old cookie no longer opens a session", async () => {
    const { cookie } = await signUpAndLogIn(app);
    // A browser sends its Origin with every POST; the library refuses a cookie-bearing POST without one.
    const out = await app.inject({ method: "POST", url: "/api/auth/sign-out", headers: { cookie, origin: app.ctx.config.publicUrl }, payload: {} });
    expect(out.statusCode).toBe(200);
    const session = await app.inject({ method: "GET", url: "/api/auth/get-session", headers: { cookie } });
    expect(session.json()).toBeNull();
  });
});

describe("e-mail confirmation when SMTP is configured", () => {
  const sent: { to: string; text: string }[] = [];
  const mailer: Mailer = { send: async (m) => void sent.push(m) };
  let app: TestApp;
  beforeAll(async () => {
    ({ app } = await buildTestApp({ deps: { mailer } }));
  });
  afterAll(() => app.close());

  it("sends a confirmation link and refuses login until it is followed", async () => {
    const email = "confirm-me@example.com";
    const password = "correct-horse-battery";
    const signUp = await app.inject({ method: "POST", url: "/api/auth/sign-up/email", payload: { name: "Alan Turing", email, password } });
    expect(signUp.statusCode).toBe(200);
    const mail = sent.find((m) => m.to === email);
    expect(mail).toBeDefined();
    const early = await app.inject({ method: "POST", url: "/api/auth/sign-in/email", payload: { email, password } });
    expect(early.statusCode).toBe(403);
    expect(early.json().error.message).toMatch(/email not verified/i);
    const link = new URL(mail!.text.match(/https?:\/\/\S+/)![0]);
    const verify = await app.inject({ method: "GET", url: link.pathname + link.search });
    expect(verify.statusCode).toBeLessThan(400);
    const login = await app.inject({ method: "POST", url: "/api/auth/sign-in/email", payload: { email, password } });
    expect(login.statusCode).toBe(200);
  });
});

describe("sign-up signs the new user in", () => {
  it("answers with a session that opens the app at once, in a team of their own", async () => {
    const { app } = await buildTestApp();
    const res = await app.inject({ method: "POST", url: "/api/auth/sign-up/email", payload: { name: "Ada L", email: "ada@example.com", password: "secret-123" } });
    expect(res.statusCode).toBe(200);
    const cookie = res.cookies.filter((c) => c.name.includes("session_token") && c.value).map((c) => `${c.name}=${c.value}`);
    expect(cookie).toHaveLength(1);
    const team = await app.inject({ method: "GET", url: "/api/organization", headers: { cookie: cookie[0]! } });
    expect(team.statusCode).toBe(200);
    expect(team.json()).toMatchObject({ organization: { name: "Ada L's team" }, role: "owner" });
    await app.close();
  });
});
