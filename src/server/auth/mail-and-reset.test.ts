import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { firstLink, startFakeSmtp, type FakeSmtp } from "../../../tests/fakes/smtp-server.ts";
import { buildTestApp, errorOf, type TestApp } from "../../../tests/harness.ts";
import { createSmtpMailer } from "./mailer.ts";

/**
 * The e-mail side of accounts on a server with SMTP: reset tokens never reach the log, a reset
 * or a password change voids every older reset link, and the endpoints that send mail are
 * limited per address and per client address, the same whether or not the address has an account.
 */
const ORIGIN = "http://switchboard.test";
let smtp: FakeSmtp;
let app: TestApp;
const logLines: string[] = [];

beforeAll(async () => {
  smtp = await startFakeSmtp();
  ({ app } = await buildTestApp({
    config: { PUBLIC_URL: ORIGIN, LOG_LEVEL: "info" },
    deps: { mailer: createSmtpMailer(smtp.url), logStream: { write: (line: string) => void logLines.push(line) } },
  }));
});
afterAll(async () => {
  await app.close();
  await smtp.close();
});

let clients = 0;
/** Each test its own client address, so the per-client limit of one does not spill into another. */
const newClient = () => `10.0.${Math.floor(++clients / 250)}.${clients % 250}`;

const post = (url: string, payload: object, remoteAddress = "127.0.0.1", cookie?: string) =>
  app.inject({ method: "POST", url, payload, remoteAddress, headers: { origin: ORIGIN, ...(cookie ? { cookie } : {}) } });

/** A confirmed account with a password, as a user makes one. */
async function account(password = "old-password") {
  const email = `reset-${Date.now()}-${Math.random().toString(36).slice(2)}@example.com`;
  const confirmation = smtp.nextMessage();
  expect((await post("/api/auth/sign-up/email", { name: "Rita", email, password })).statusCode).toBe(200);
  const confirmUrl = new URL(firstLink(await confirmation));
  expect((await app.inject({ method: "GET", url: confirmUrl.pathname + confirmUrl.search })).statusCode).toBeLessThan(400);
  return { email, password };
}

/** Asks for a reset link and follows it to the token the reset page receives. */
async function resetToken(email: string, remoteAddress = newClient()): Promise<{ token: string; linkPath: string }> {
  const mailed = smtp.nextMessage();
  const ask = await post("/api/auth/request-password-reset", { email, redirectTo: "/reset-password" }, remoteAddress);
  expect(ask.statusCode, ask.body).toBe(200);
  const link = new URL(firstLink(await mailed));
  const landing = await app.inject({ method: "GET", url: link.pathname + link.search });
  expect(landing.statusCode).toBe(302);
  const token = new URL(landing.headers.location as string, ORIGIN).searchParams.get("token");
  expect(token).toBeTruthy();
  return { token: token!, linkPath: link.pathname };
}

const reset = (token: string, newPassword: string) => post("/api/auth/reset-password", { token, newPassword });
const signIn = (email: string, password: string) => post("/api/auth/sign-in/email", { email, password });

describe("reset tokens in the log", () => {
  it("no log line carries the reset token, whatever path it travels in", async () => {
    const { email } = await account();
    const { token, linkPath } = await resetToken(email);
    expect(linkPath).toContain(token);
    // Other spellings of the link and paths that do not exist are logged too.
    await app.inject({ method: "GET", url: `/api/auth//reset-password/${token}` });
    await app.inject({ method: "GET", url: `/api/auth/reset-password/${token}/extra` });
    await app.inject({ method: "GET", url: `/somewhere/${token}` });
    expect((await reset(token, "new-password")).statusCode).toBe(200);
    await new Promise((resolve) => setTimeout(resolve, 50));
    expect(logLines.length).toBeGreaterThan(0);
    expect(logLines.filter((line) => line.includes(token))).toEqual([]);
    expect(logLines.some((line) => line.includes("/api/auth/reset-password/[redacted]"))).toBe(true);
  });
});

describe("older reset links", () => {
  it("a successful reset voids every other outstanding link of the user", async () => {
    const { email } = await account();
    const older = await resetToken(email);
    const newer = await resetToken(email);
    expect((await reset(newer.token, "newer-password")).statusCode).toBe(200);
    const replay = await reset(older.token, "attacker-password");
    expect(replay.statusCode).toBe(400);
    expect(errorOf(replay).code).toBe("invalid_token");
    expect((await signIn(email, "attacker-password")).statusCode).toBe(401);
    expect((await signIn(email, "newer-password")).statusCode).toBe(200);
  });

  it("a password change in Settings voids outstanding links", async () => {
    const { email, password } = await account();
    const pending = await resetToken(email);
    const session = await signIn(email, password);
    const cookie = session.cookies.map((c) => `${c.name}=${c.value}`).join("; ");
    const changed = await app.inject({ method: "POST", url: "/api/account/password", headers: { cookie }, payload: { currentPassword: password, newPassword: "changed-password" } });
    expect(changed.statusCode, changed.body).toBe(204);
    expect((await reset(pending.token, "attacker-password")).statusCode).toBe(400);
    expect((await signIn(email, "changed-password")).statusCode).toBe(200);
  });
});

describe("e-mail sending limits", () => {
  it("sends at most 3 reset e-mails per address in 15 minutes, then answers 429 with Retry-After; an unknown address answers the same", async () => {
    const { email } = await account();
    const unknown = `nobody-${Date.now()}@example.com`;
    for (const address of [email, unknown]) {
      const before = smtp.messages.length;
      const answers = [];
      // From several client addresses, as a distributed attacker would.
      for (let i = 0; i < 6; i += 1) answers.push(await post("/api/auth/request-password-reset", { email: address, redirectTo: "/reset-password" }, newClient()));
      expect(answers.map((a) => a.statusCode)).toEqual([200, 200, 200, 429, 429, 429]);
      const refused = answers[3]!;
      expect(errorOf(refused)).toEqual({ code: "rate_limited", message: "Too many e-mail requests. Please try again in 15 minutes." });
      expect(Number(refused.headers["retry-after"])).toBeGreaterThan(14 * 60);
      await new Promise((resolve) => setTimeout(resolve, 100));
      expect(smtp.messages.length - before).toBe(address === email ? 3 : 0);
    }
  });

  it("limits confirmation resends per address and requests per client address", async () => {
    const client = newClient();
    const resend = (email: string) => post("/api/auth/send-verification-email", { email, callbackURL: "/login" }, client);
    const target = `unconfirmed-${Date.now()}@example.com`;
    const statuses = [];
    for (let i = 0; i < 5; i += 1) statuses.push((await resend(target)).statusCode);
    expect(statuses.slice(3)).toEqual([429, 429]);
    // One client asking for many different addresses is stopped too (10 requests in the window).
    const many = [];
    for (let i = 0; i < 8; i += 1) many.push((await resend(`spray-${i}-${Date.now()}@example.com`)).statusCode);
    expect(many.filter((s) => s === 429).length).toBe(3);
  });
});
