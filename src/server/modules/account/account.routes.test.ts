import { eq } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { as, buildTestApp, errorOf, signUpAndLogIn, type TestApp } from "../../../../tests/harness.ts";
import { startFakeTwilioRest, TWILIO_ERRORS, type FakeAccount, type FakeTwilioRest } from "../../../../tests/fakes/twilio-rest.ts";
import { firstLink, startFakeSmtp, type FakeSmtp } from "../../../../tests/fakes/smtp-server.ts";
import { ACCOUNT_MESSAGES } from "../../../shared/account.ts";
import { createSmtpMailer } from "../../auth/mailer.ts";
import type { Db } from "../../db/client.ts";
import { assistants, calls, credentials, organization, phoneNumbers, session, tools, user } from "../../db/schema.ts";

let app: TestApp;
let db: Db;
/** Twilio, as far as the server can tell: numbers are bought and released at this fake over REST. */
let twilio: FakeTwilioRest;

beforeAll(async () => {
  twilio = await startFakeTwilioRest();
  ({ app, db } = await buildTestApp({ config: { TWILIO_API_BASE: twilio.baseUrl, PUBLIC_URL: "https://switchboard.example.com" } }));
});
afterAll(async () => {
  await app.close();
  await twilio.close();
});

type Who = { cookie: string };
const call = (who: Who | null, method: "GET" | "POST" | "PUT" | "PATCH" | "DELETE", url: string, payload?: unknown) => as(app, who).request(method, url, payload);
const logIn = (email: string, password: string) => app.inject({ method: "POST", url: "/api/auth/sign-in/email", payload: { email, password } });
const sessionUser = async (who: Who) => (await call(who, "GET", "/api/auth/get-session")).json() as { user: { name: string } } | null;

/**
 * An account with one of everything, a stored recording included; its Twilio credentials are
 * saved in Settings and its number is bought through the API, so it is held at the fake Twilio.
 */
async function populated(name: string) {
  const who = await signUpAndLogIn(app, name);
  const account: FakeAccount = twilio.addAccount();
  const saved = await call(who, "PUT", "/api/credentials/twilio", { account_sid: account.sid, auth_token: account.authToken });
  expect(saved.json().verification.verified).toBe(true);
  const [assistant] = await db.insert(assistants).values({ organizationId: who.organizationId, name: `${name}'s assistant`, model: "gpt-realtime-2.1" }).returning();
  await db.insert(tools).values({ organizationId: who.organizationId, name: `${name}'s tool`, type: "API", httpMethod: "GET", parameterFormat: "standard", endPointUrl: "https://example.com" });
  const bought = await call(who, "POST", "/api/phone-numbers", { country_code: "US", assistant_id: assistant!.id });
  expect(bought.statusCode, bought.body).toBe(201);
  expect(twilio.numbersOf(account.sid).map((n) => n.phoneNumber)).toEqual([bought.json().phone_number]);
  const [withRecording] = await db.insert(calls).values({ organizationId: who.organizationId, assistantId: assistant!.id, assistantName: name }).returning();
  const key = `recordings/${withRecording!.id}.wav`;
  await app.ctx.storage.put(key, Buffer.from("RIFF....WAVE"));
  await db.update(calls).set({ recording: key }).where(eq(calls.id, withRecording!.id));
  await db.insert(calls).values({ organizationId: who.organizationId, assistantId: assistant!.id, assistantName: name });
  await db.insert(credentials).values({ organizationId: who.organizationId, name: "openai_api_key", valueEncrypted: "sealed" });
  return { ...who, recordingKey: key, account, phoneNumber: bought.json().phone_number as string };
}

describe("GET /api/account/options", () => {
  it("is public and says whether e-mail is set up and who may sign up", async () => {
    const res = await call(null, "GET", "/api/account/options");
    expect(res.statusCode).toBe(200);
    expect(res.json()).toEqual({ email: false, signup: "open" });
  });

  it("names the sign-up mode but not a domain policy's domains", async () => {
    for (const [SIGNUP, mode] of [["invite", "invite"], ["domain:a.com,b.org", "domain"]] as const) {
      const { app: other } = await buildTestApp({ config: { SIGNUP } });
      try {
        expect((await other.inject({ method: "GET", url: "/api/account/options" })).json()).toEqual({ email: false, signup: mode });
      } finally {
        await other.close();
      }
    }
  });
});

describe("session required", () => {
  it("refuses every account route without a session", async () => {
    for (const [method, url] of [["GET", "/api/account"], ["PATCH", "/api/account/name"], ["POST", "/api/account/password"], ["DELETE", "/api/account"]] as const) {
      const res = await call(null, method, url, method === "GET" ? undefined : {});
      expect(res.statusCode, `${method} ${url}`).toBe(401);
    }
  });
});

describe("PATCH /api/account/name", () => {
  it("renames the signed-in user only", async () => {
    const alice = await signUpAndLogIn(app, "Alice Old");
    const bob = await signUpAndLogIn(app, "Bob");
    const res = await call(alice, "PATCH", "/api/account/name", { name: "  Alice New  " });
    expect(res.statusCode, res.body).toBe(200);
    expect(res.json()).toMatchObject({ user: { name: "Alice New", email: alice.email } });
    expect((await sessionUser(alice))?.user.name).toBe("Alice New");
    expect((await sessionUser(bob))?.user.name).toBe("Bob");
  });

  it("refuses a blank or missing name with 400", async () => {
    const alice = await signUpAndLogIn(app, "Alice");
    for (const payload of [{ name: "   " }, {}, { name: 42 }]) {
      const res = await call(alice, "PATCH", "/api/account/name", payload);
      expect(res.statusCode).toBe(400);
      expect(errorOf(res).message).toBe(ACCOUNT_MESSAGES.nameRequired);
    }
    expect((await sessionUser(alice))?.user.name).toBe("Alice");
  });
});

describe("POST /api/account/password", () => {
  it("changes the password, keeps this browser signed in and signs the others out", async () => {
    const alice = await signUpAndLogIn(app, "Alice");
    const otherDevice = await logIn(alice.email, alice.password);
    const otherCookie = otherDevice.cookies.map((c) => `${c.name}=${c.value}`).join("; ");
    const res = await call(alice, "POST", "/api/account/password", { currentPassword: alice.password, newPassword: "a-brand-new-secret" });
    expect(res.statusCode, res.body).toBe(204);
    const renewed = res.cookies.map((c) => `${c.name}=${c.value}`).join("; ");
    expect(renewed).toContain("session_token");
    expect(await sessionUser({ cookie: renewed })).not.toBeNull();
    expect(await sessionUser({ cookie: otherCookie })).toBeNull();
    expect((await logIn(alice.email, alice.password)).statusCode).toBe(401);
    expect((await logIn(alice.email, "a-brand-new-secret")).statusCode).toBe(200);
  });

  it("refuses a wrong current password, a short new one and a missing field with 400, changing nothing", async () => {
    const alice = await signUpAndLogIn(app, "Alice");
    const wrong = await call(alice, "POST", "/api/account/password", { currentPassword: "not-my-password", newPassword: "another-secret" });
    expect(wrong.statusCode).toBe(400);
    expect(errorOf(wrong)).toEqual({ code: "invalid_password", message: ACCOUNT_MESSAGES.wrongPassword });
    const short = await call(alice, "POST", "/api/account/password", { currentPassword: alice.password, newPassword: "abc" });
    expect(short.statusCode).toBe(400);
    expect(errorOf(short).message).toBe(ACCOUNT_MESSAGES.passwordTooShort);
    const missing = await call(alice, "POST", "/api/account/password", { newPassword: "another-secret" });
    expect(missing.statusCode).toBe(400);
    expect(errorOf(missing).message).toBe(ACCOUNT_MESSAGES.currentPasswordRequired);
    expect((await logIn(alice.email, alice.password)).statusCode).toBe(200);
  });
});

describe("DELETE /api/account", () => {
  it("counts what would be deleted", async () => {
    const carol = await populated("Carol");
    const res = await call(carol, "GET", "/api/account");
    expect(res.json()).toEqual({ assistants: 1, tools: 1, phoneNumbers: 1, calls: 2, recordings: 1 });
  });

  it("releases the numbers first, then removes every row and recording of the user, and nobody else's", async () => {
    const alice = await populated("Alice");
    const bob = await populated("Bob");
    // Twilio is asked to release while the number's row still exists: the release comes first.
    let rowsDuringRelease: number | undefined;
    twilio.duringNext("release", async () => {
      rowsDuringRelease = (await db.select().from(phoneNumbers).where(eq(phoneNumbers.organizationId, alice.organizationId))).length;
    });
    const res = await call(alice, "DELETE", "/api/account", { password: alice.password });
    expect(res.statusCode, res.body).toBe(204);

    expect(rowsDuringRelease).toBe(1);
    const releases = twilio.requests.filter((r) => r.operation === "release");
    expect(releases.map((r) => r.username)).toEqual([alice.account.sid]);
    expect(twilio.numbersOf(alice.account.sid)).toEqual([]);
    expect(twilio.numbersOf(bob.account.sid).map((n) => n.phoneNumber)).toEqual([bob.phoneNumber]);
    for (const table of [assistants, tools, phoneNumbers, calls, credentials] as const) {
      expect(await db.select().from(table).where(eq(table.organizationId, alice.organizationId))).toHaveLength(0);
      expect(await db.select().from(table).where(eq(table.organizationId, bob.organizationId))).not.toHaveLength(0);
    }
    expect(await db.select().from(session).where(eq(session.userId, alice.userId))).toHaveLength(0);
    expect(await db.select().from(session).where(eq(session.userId, bob.userId))).not.toHaveLength(0);
    expect(await db.select().from(organization).where(eq(organization.id, alice.organizationId))).toHaveLength(0);
    expect(await db.select().from(user).where(eq(user.id, alice.userId))).toHaveLength(0);
    expect(await app.ctx.storage.exists(alice.recordingKey)).toBe(false);
    expect(await app.ctx.storage.exists(bob.recordingKey)).toBe(true);

    expect(await sessionUser(alice)).toBeNull();
    expect((await logIn(alice.email, alice.password)).statusCode).toBe(401);
    expect((await call(bob, "GET", "/api/account")).json()).toMatchObject({ assistants: 1, calls: 2, recordings: 1 });
  });

  it("refuses a wrong or missing password with 400 and deletes nothing", async () => {
    const dave = await populated("Dave");
    const wrong = await call(dave, "DELETE", "/api/account", { password: "not-my-password" });
    expect(wrong.statusCode).toBe(400);
    expect(errorOf(wrong).message).toBe(ACCOUNT_MESSAGES.wrongPassword);
    const missing = await call(dave, "DELETE", "/api/account", {});
    expect(missing.statusCode).toBe(400);
    expect(errorOf(missing).message).toBe(ACCOUNT_MESSAGES.deleteConfirmRequired);
    expect(twilio.requests.filter((r) => r.operation === "release" && r.username === dave.account.sid)).toEqual([]);
    expect(twilio.numbersOf(dave.account.sid).map((n) => n.phoneNumber)).toEqual([dave.phoneNumber]);
    expect((await call(dave, "GET", "/api/account")).json()).toMatchObject({ assistants: 1, phoneNumbers: 1, calls: 2 });
    expect(await app.ctx.storage.exists(dave.recordingKey)).toBe(true);
  });

  it("stops with a 409 naming the number when Twilio refuses to release it, and removes nothing", async () => {
    const erin = await populated("Erin");
    twilio.failNext("release", TWILIO_ERRORS.authenticate);
    const res = await call(erin, "DELETE", "/api/account", { password: erin.password });
    expect(res.statusCode, res.body).toBe(409);
    expect(errorOf(res).code).toBe("numbers_not_released");
    expect(errorOf(res).message).toMatch(new RegExp(`^Your account was not deleted: Twilio did not release \\${erin.phoneNumber} \\(.+\\)\\. Delete these numbers on the Phone Numbers page and try again\\.$`));

    expect(twilio.numbersOf(erin.account.sid).map((n) => n.phoneNumber)).toEqual([erin.phoneNumber]);
    expect((await call(erin, "GET", "/api/account")).json()).toEqual({ assistants: 1, tools: 1, phoneNumbers: 1, calls: 2, recordings: 1 });
    expect(await app.ctx.storage.exists(erin.recordingKey)).toBe(true);
    expect((await logIn(erin.email, erin.password)).statusCode).toBe(200);

    // Once Twilio releases it, the same request deletes the account.
    const retry = await call(erin, "DELETE", "/api/account", { password: erin.password });
    expect(retry.statusCode, retry.body).toBe(204);
    expect(twilio.numbersOf(erin.account.sid)).toEqual([]);
    expect(await db.select().from(user).where(eq(user.id, erin.userId))).toHaveLength(0);
  });
});

describe("forgot password (with SMTP)", () => {
  let smtp: FakeSmtp;
  let mailApp: TestApp;
  beforeAll(async () => {
    smtp = await startFakeSmtp();
    ({ app: mailApp } = await buildTestApp({ config: { PUBLIC_URL: "http://switchboard.test" }, deps: { mailer: createSmtpMailer(smtp.url) } }));
  });
  afterAll(async () => {
    await mailApp.close();
    await smtp.close();
  });

  it("says e-mail is available, mails a link that leads to /reset-password, and the new password works", async () => {
    expect((await mailApp.inject({ method: "GET", url: "/api/account/options" })).json()).toEqual({ email: true, signup: "open" });
    const email = `reset-${Date.now()}@example.com`;
    const signUp = mailApp.inject({ method: "POST", url: "/api/auth/sign-up/email", payload: { name: "Rita", email, password: "old-password" } });
    const confirmation = await smtp.nextMessage();
    expect((await signUp).statusCode).toBe(200);
    // Confirm the address through the e-mailed link, as the user would.
    const confirmUrl = new URL(firstLink(confirmation));
    expect((await mailApp.inject({ method: "GET", url: confirmUrl.pathname + confirmUrl.search })).statusCode).toBeLessThan(400);

    const mailed = smtp.nextMessage();
    const ask = await mailApp.inject({ method: "POST", url: "/api/auth/request-password-reset", headers: { origin: "http://switchboard.test" }, payload: { email, redirectTo: "/reset-password" } });
    expect(ask.statusCode, ask.body).toBe(200);
    const mail = await mailed;
    expect(mail.to).toEqual([email]);
    const link = new URL(firstLink(mail));
    expect(link.origin).toBe("http://switchboard.test");

    const landing = await mailApp.inject({ method: "GET", url: link.pathname + link.search });
    expect(landing.statusCode).toBe(302);
    const target = new URL(landing.headers.location as string, "http://switchboard.test");
    expect(target.pathname).toBe("/reset-password");
    const token = target.searchParams.get("token");
    expect(token).toBeTruthy();

    const reset = await mailApp.inject({ method: "POST", url: "/api/auth/reset-password", payload: { token, newPassword: "new-password" } });
    expect(reset.statusCode, reset.body).toBe(200);
    const signIn = (password: string) => mailApp.inject({ method: "POST", url: "/api/auth/sign-in/email", payload: { email, password } });
    expect((await signIn("old-password")).statusCode).toBe(401);
    expect((await signIn("new-password")).statusCode).toBe(200);
    // The token is single-use.
    const again = await mailApp.inject({ method: "POST", url: "/api/auth/reset-password", payload: { token, newPassword: "third-password" } });
    expect(again.statusCode).toBe(400);
  });
});
