import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startFakeTwilioRest, type FakeTwilioRest } from "../../../../tests/fakes/twilio-rest.ts";
import { buildTestApp, signUpAndLogIn, type TestApp } from "../../../../tests/harness.ts";
import { credentials } from "../../db/schema.ts";
import { TWILIO_CREDENTIAL_MESSAGES } from "../../../shared/credentials.ts";

let app: TestApp;
let db: Awaited<ReturnType<typeof buildTestApp>>["db"];
let twilio: FakeTwilioRest;
beforeAll(async () => {
  twilio = await startFakeTwilioRest();
  ({ app, db } = await buildTestApp({ config: { TWILIO_API_BASE: twilio.baseUrl } }));
});
afterAll(async () => {
  await app.close();
  await twilio.close();
});

const put = (cookie: string, payload: unknown) => app.inject({ method: "PUT", url: "/api/credentials/twilio", headers: { cookie }, payload: payload as object });
const status = async (cookie: string, name: string) => (await app.inject({ url: `/api/credentials/${name}`, headers: { cookie } })).json();

describe("PUT /api/credentials/twilio", () => {
  it("stores both values encrypted, verifies them at Twilio's account endpoint, and never returns the token", async () => {
    const { cookie } = await signUpAndLogIn(app);
    const { sid, authToken } = twilio.account;
    const res = await put(cookie, { account_sid: sid, auth_token: authToken });
    expect(res.statusCode).toBe(200);
    expect(res.json()).toMatchObject({
      account_sid: { exists: true, hint: `${sid.slice(0, 3)}••••${sid.slice(-4)}` },
      auth_token: { exists: true, hint: null },
      verification: { verified: true, message: "Twilio accepted the credentials for My first Twilio account." },
    });
    expect(res.body).not.toContain(authToken);
    expect(twilio.requests.at(-1)).toMatchObject({ method: "GET", path: `/2010-04-01/Accounts/${sid}.json`, username: sid });

    const rows = await db.select().from(credentials);
    expect(rows.map((r) => r.name).sort()).toEqual(["twilio_account_sid", "twilio_auth_token"]);
    for (const row of rows) expect(row.valueEncrypted).not.toContain(row.name === "twilio_auth_token" ? authToken : sid);

    expect(await status(cookie, "twilio_auth_token")).toMatchObject({ exists: true, hint: null });
    expect(await status(cookie, "twilio_account_sid")).toMatchObject({ exists: true, hint: expect.stringMatching(/^AC.••••/) });
  });

  it("saves a pair Twilio refuses, says so plainly, and still says so after a reload", async () => {
    const { cookie } = await signUpAndLogIn(app);
    const res = await put(cookie, { account_sid: twilio.account.sid, auth_token: "wrong-token" });
    expect(res.statusCode).toBe(200);
    expect(res.json()).toMatchObject({
      account_sid: { exists: true },
      auth_token: { exists: true },
      verification: { verified: false, message: TWILIO_CREDENTIAL_MESSAGES.refused },
    });
    expect(res.body).not.toContain("Authenticate");
    const reloaded = await status(cookie, "twilio_account_sid");
    expect(reloaded.verification).toMatchObject({ verified: false, message: TWILIO_CREDENTIAL_MESSAGES.refused, checked_at: expect.any(String) });

    // A pair Twilio accepts replaces the refusal.
    await put(cookie, { account_sid: twilio.account.sid, auth_token: twilio.account.authToken });
    expect((await status(cookie, "twilio_account_sid")).verification).toMatchObject({ verified: true });
  });

  it("reports a suspended account as not verified", async () => {
    const { cookie } = await signUpAndLogIn(app);
    const suspended = twilio.addAccount({ status: "suspended" });
    const res = await put(cookie, { account_sid: suspended.sid, auth_token: suspended.authToken });
    expect(res.json().verification).toMatchObject({ verified: false, message: "Twilio says the account is suspended." });
  });

  it.each([
    [{ account_sid: "", auth_token: "x" }, TWILIO_CREDENTIAL_MESSAGES.bothRequired],
    [{ account_sid: "AC" + "0".repeat(32), auth_token: "  " }, TWILIO_CREDENTIAL_MESSAGES.bothRequired],
    [{ auth_token: "x" }, TWILIO_CREDENTIAL_MESSAGES.bothRequired],
    [{ account_sid: "AC123/../../Calls", auth_token: "x" }, TWILIO_CREDENTIAL_MESSAGES.sidFormat],
  ])("refuses %j with a 400 and stores nothing", async (payload, message) => {
    const user = await signUpAndLogIn(app);
    const res = await put(user.cookie, payload);
    expect(res.statusCode).toBe(400);
    expect(res.json().error.message).toBe(message);
    expect(await status(user.cookie, "twilio_account_sid")).toMatchObject({ exists: false });
    expect(await status(user.cookie, "twilio_auth_token")).toMatchObject({ exists: false });
  });

  it("needs a session", async () => {
    const res = await app.inject({ method: "PUT", url: "/api/credentials/twilio", payload: { account_sid: twilio.account.sid, auth_token: "x" } });
    expect(res.statusCode).toBe(401);
  });
});
