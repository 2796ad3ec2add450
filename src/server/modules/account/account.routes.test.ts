import { eq } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { buildTestApp, signUpAndLogIn, type TestApp } from "../../../../tests/harness.ts";
import { firstLink, startFakeSmtp, type FakeSmtp } from "../../../../tests/fakes/smtp-server.ts";
import { ACCOUNT_MESSAGES } from "../../../shared/account.ts";
import { createSmtpMailer } from "../../auth/mailer.ts";
import type { Db } from "../../db/client.ts";
import { assistants, calls, credentials, phoneNumbers, session, tools, user } from "../../db/schema.ts";

let app: TestApp;
let db: Db;
/** What the release seam was asked to do, in order, with what was still in the database then. */
const released: Array<{ userId: string; numbersLeft: number }> = [];
let failRelease = false;

beforeAll(async () => {
  ({ app, db } = await buildTestApp({
    deps: {
      releaseUserPhoneNumbers: async (userId) => {
        const left = await db.select().from(phoneNumbers).where(eq(phoneNumbers.userId, userId));
        released.push({ userId, numbersLeft: left.length });
        if (failRelease) throw new Error("Twilio is down");
      },
    },
  }));
});
afterAll(() => app.close());

type Who = { cookie: string };
const call = (who: Who | null, method: "GET" | "POST" | "PATCH" | "DELETE", url: string, payload?: unknown) =>
  app.inject({ method, url, headers: who ? { cookie: who.cookie } : {}, ...(payload === undefined ? {} : { payload: payload as object }) });
const errorOf = (res: { json: () => unknown }) => (res.json() as { error: { code: string; message: string } }).error;
const logIn = (email: string, password: string) => app.inject({ method: "POST", url: "/api/auth/sign-in/email", payload: { email, password } });
const sessionUser = async (who: Who) => (await call(who, "GET", "/api/auth/get-session")).json() as { user: { name: string } } | null;

/** An account with one of everything, a stored recording included. */
async function populated(name: string) {
  const who = await signUpAndLogIn(app, name);
  const [assistant] = await db.insert(assistants).values({ userId: who.userId, name: `${name}'s assistant`, model: "gpt-realtime-2.1" }).returning();
  await db.insert(tools).values({ userId: who.userId, name: `${name}'s tool`, type: "API", httpMethod: "GET", parameterFormat: "standard", endPointUrl: "https://example.com" });
  await db.insert(phoneNumbers).values({ userId: who.userId, phoneNumber: "+15550100", countryCode: "US", status: "active", assistantId: assistant!.id });
  const [withRecording] = await db.insert(calls).values({ userId: who.userId, assistantId: assistant!.id, assistantName: name }).returning();
  const key = `recordings/${withRecording!.id}.wav`;
  await app.ctx.storage.put(key, Buffer.from("RIFF....WAVE"));
  await db.update(calls).set({ recording: key }).where(eq(calls.id, withRecording!.id));
  await db.insert(calls).values({ userId: who.userId, assistantId: assistant!.id, assistantName: name });
  await db.insert(credentials).values({ userId: who.userId, name: "openai_api_key", valueEncrypted: "sealed" });
  return { ...who, recordingKey: key };
}

describe("GET /api/account/options", () => {
  it("is public and says whether e-mail is set up", async () => {
    const res = await call(null, "GET", "/api/account/options");
    expect(res.statusCode).toBe(200);
    expect(res.json()).toEqual({ email: false });
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
    released.length = 0;
    const res = await call(alice, "DELETE", "/api/account", { password: alice.password });
    expect(res.statusCode, res.body).toBe(204);

    expect(released).toEqual([{ userId: alice.userId, numbersLeft: 1 }]);
    for (const table of [assistants, tools, phoneNumbers, calls, credentials, session] as const) {
      expect(await db.select().from(table).where(eq(table.userId, alice.userId))).toHaveLength(0);
      expect(await db.select().from(table).where(eq(table.userId, bob.userId))).not.toHaveLength(0);
    }
    expect(await db.select().from(user).where(eq(user.id, alice.userId))).toHaveLength(0);
    expect(await app.ctx.storage.exists(alice.recordingKey)).toBe(false);
    expect(await app.ctx.storage.exists(bob.recordingKey)).toBe(true);

    expect(await sessionUser(alice)).toBeNull();
    expect((await logIn(alice.email, alice.password)).statusCode).toBe(401);
    expect((await call(bob, "GET", "/api/account")).json()).toMatchObject({ assistants: 1, calls: 2, recordings: 1 });
  });

  it("refuses a wrong or missing password with 400 and deletes nothing", async () => {
    const dave = await populated("Dave");
    released.length = 0;
    const wrong = await call(dave, "DELETE", "/api/account", { password: "not-my-password" });
    expect(wrong.statusCode).toBe(400);
    expect(errorOf(wrong).message).toBe(ACCOUNT_MESSAGES.wrongPassword);
    const missing = await call(dave, "DELETE", "/api/account", {});
    expect(missing.statusCode).toBe(400);
    expect(errorOf(missing).message).toBe(ACCOUNT_MESSAGES.deleteConfirmRequired);
    expect(released).toEqual([]);
    expect((await call(dave, "GET", "/api/account")).json()).toMatchObject({ assistants: 1, phoneNumbers: 1, calls: 2 });
    expect(await app.ctx.storage.exists(dave.recordingKey)).toBe(true);
  });

  it("keeps everything when the numbers cannot be released", async () => {
    const erin = await populated("Erin");
    failRelease = true;
    try {
      const res = await call(erin, "DELETE", "/api/account", { password: erin.password });
      expect(res.statusCode).toBe(500);
      expect(errorOf(res).message).not.toContain("Twilio");
    } finally {
      failRelease = false;
    }
    expect((await call(erin, "GET", "/api/account")).json()).toMatchObject({ assistants: 1, phoneNumbers: 1, calls: 2 });
    expect(await app.ctx.storage.exists(erin.recordingKey)).toBe(true);
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
    expect((await mailApp.inject({ method: "GET", url: "/api/account/options" })).json()).toEqual({ email: true });
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
