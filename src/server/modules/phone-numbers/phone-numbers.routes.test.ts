import { eq } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startFakeTwilioRest, TWILIO_ERRORS, type FakeAccount, type FakeTwilioRest } from "../../../../tests/fakes/twilio-rest.ts";
import { as, buildTestApp, errorOf, signUpAndLogIn, type TestApp, expectBody } from "../../../../tests/harness.ts";
import { PHONE_NUMBER_MESSAGES, type PhoneNumber } from "../../../shared/phone-numbers.ts";
import type { Db } from "../../db/client.ts";
import { assistants, phoneNumbers } from "../../db/schema.ts";
import { createTwilioCarrier } from "../../carriers/twilio/twilio-carrier.ts";
import { createCredentialsService } from "../credentials/credentials.service.ts";
import { createPhoneNumbersService } from "./phone-numbers.service.ts";

const PUBLIC_URL = "https://switchboard.example.com";
let app: TestApp;
let db: Db;
let ctx: TestApp["ctx"];
let twilio: FakeTwilioRest;

beforeAll(async () => {
  twilio = await startFakeTwilioRest();
  ({ app, db } = await buildTestApp({ config: { TWILIO_API_BASE: twilio.baseUrl, PUBLIC_URL } }));
  ctx = app.ctx;
});
afterAll(async () => {
  await app.close();
  await twilio.close();
});

type Who = { cookie: string; organizationId: string; account: FakeAccount };
const list = async (who: { cookie: string }): Promise<PhoneNumber[]> => (await as(app, who).get("/api/phone-numbers")).json().data;

/** A signed-in user with their own Twilio account saved in Settings. */
async function customer(options: { withTwilio?: boolean } = {}): Promise<Who> {
  const user = await signUpAndLogIn(app);
  const account = twilio.addAccount();
  if (options.withTwilio !== false) {
    const saved = await app.inject({ method: "PUT", url: "/api/credentials/twilio", headers: { cookie: user.cookie }, payload: { account_sid: account.sid, auth_token: account.authToken } });
    expect(saved.json().verification.verified).toBe(true);
  }
  return { ...user, account };
}

async function assistant(organizationId: string, name: string) {
  const [row] = await db.insert(assistants).values({ organizationId, name, model: "gpt-realtime" }).returning();
  return row!;
}

async function buy(who: Who, assistantId: string, country = "US"): Promise<PhoneNumber> {
  return expectBody(await as(app, who).post("/api/phone-numbers", { country_code: country, assistant_id: assistantId }), 201);
}

describe("authentication", () => {
  it("refuses every route without a session", async () => {
    const id = "00000000-0000-4000-8000-000000000000";
    for (const [method, url] of [["GET", "/api/phone-numbers"], ["POST", "/api/phone-numbers"], ["PATCH", `/api/phone-numbers/${id}`], ["DELETE", `/api/phone-numbers/${id}`]] as const) {
      const res = await as(app, null).request(method, url, method === "POST" || method === "PATCH" ? { country_code: "US", assistant_id: id } : undefined);
      expect(res.statusCode, `${method} ${url}`).toBe(401);
    }
  });
});

describe("POST /api/phone-numbers", () => {
  it("buys a local voice number at Twilio with both webhooks and stores it active, linked to the assistant", async () => {
    const who = await customer();
    const desk = await assistant(who.organizationId, "Front desk");
    twilio.setAvailable("CA", ["+16045550199", "+16045550198"]);
    const number = await buy(who, desk.id, "CA");
    expect(number).toEqual({
      id: expect.any(String),
      phone_number: "+16045550199",
      country_code: "CA",
      status: "active",
      provider: "twilio",
      sip_trunk_id: null,
      sip_trunk_name: null,
      assistant_id: desk.id,
      assistant_name: "Front desk",
      assistant_version: null,
      created_at: expect.any(String),
    });

    const search = twilio.requests.find((r) => r.operation === "search" && r.username === who.account.sid)!;
    expect(search.path).toBe(`/2010-04-01/Accounts/${who.account.sid}/AvailablePhoneNumbers/CA/Local.json`);
    expect(search.query).toMatchObject({ VoiceEnabled: "true" });
    const [held] = twilio.numbersOf(who.account.sid);
    expect(held).toMatchObject({
      phoneNumber: "+16045550199",
      voiceUrl: `${PUBLIC_URL}/telephony/twilio/voice`,
      voiceMethod: "POST",
      statusCallback: `${PUBLIC_URL}/telephony/twilio/status`,
      statusCallbackMethod: "POST",
      friendlyName: "Switchboard: Front desk",
    });
    const [row] = await db.select().from(phoneNumbers).where(eq(phoneNumbers.id, number.id));
    expect(row).toMatchObject({ organizationId: who.organizationId, providerSid: held!.sid, phoneNumber: "+16045550199" });
  });

  it("without Twilio credentials answers a clear 400 pointing to Settings and asks Twilio nothing", async () => {
    const who = await customer({ withTwilio: false });
    const desk = await assistant(who.organizationId, "Desk");
    const before = twilio.requests.length;
    const res = await as(app, who).post("/api/phone-numbers", { country_code: "US", assistant_id: desk.id });
    expect(res.statusCode).toBe(400);
    expect(errorOf(res)).toEqual({ code: "twilio_credentials_missing", message: PHONE_NUMBER_MESSAGES.twilioCredentialsMissing });
    expect(errorOf(res).message).toContain("Settings");
    expect(twilio.requests.length).toBe(before);
    expect(await list(who)).toEqual([]);
  });

  it("with credentials Twilio refuses, says so in Twilio's words and stores nothing", async () => {
    const who = await customer();
    await app.inject({ method: "PUT", url: "/api/credentials/twilio", headers: { cookie: who.cookie }, payload: { account_sid: who.account.sid, auth_token: "stale-token" } });
    const desk = await assistant(who.organizationId, "Desk");
    const res = await as(app, who).post("/api/phone-numbers", { country_code: "US", assistant_id: desk.id });
    expect(res.statusCode).toBe(400);
    expect(errorOf(res)).toEqual({
      code: "twilio_auth_failed",
      message: "Twilio did not accept your credentials (Authenticate). Check the Account SID and Auth Token in Settings.",
    });
    expect(await list(who)).toEqual([]);
  });

  it("says when Twilio has no numbers in the country", async () => {
    const who = await customer();
    const desk = await assistant(who.organizationId, "Desk");
    twilio.setAvailable("DE", []);
    const res = await as(app, who).post("/api/phone-numbers", { country_code: "DE", assistant_id: desk.id });
    expect(res.statusCode).toBe(400);
    expect(errorOf(res)).toEqual({ code: "no_numbers_available", message: "Twilio has no local voice numbers available in Germany right now." });
    expect(twilio.numbersOf(who.account.sid)).toEqual([]);
    expect(await list(who)).toEqual([]);
  });

  it.each([
    ["insufficient funds", TWILIO_ERRORS.insufficientFunds],
    ["a trial account's limit", TWILIO_ERRORS.trialLimit],
  ])("passes on Twilio's refusal (%s) as its own message, storing nothing", async (_, refusal) => {
    const who = await customer();
    const desk = await assistant(who.organizationId, "Desk");
    twilio.failNext("purchase", refusal);
    const res = await as(app, who).post("/api/phone-numbers", { country_code: "FR", assistant_id: desk.id });
    expect(res.statusCode).toBe(400);
    expect(errorOf(res)).toEqual({ code: "twilio_error", message: refusal.message });
    expect(twilio.numbersOf(who.account.sid)).toEqual([]);
    expect(await list(who)).toEqual([]);
  });

  it("buys the next offered number when the first was taken in the meantime", async () => {
    const who = await customer();
    const desk = await assistant(who.organizationId, "Desk");
    twilio.setAvailable("AU", ["+61255509990", "+61255509991"]);
    twilio.failNext("purchase", TWILIO_ERRORS.numberUnavailable("+61255509990"));
    expect((await buy(who, desk.id, "AU")).phone_number).toBe("+61255509991");
  });

  it("gives the number back to Twilio when it cannot be stored (its assistant was deleted meanwhile)", async () => {
    const who = await customer();
    const doomed = await assistant(who.organizationId, "Deleted in another tab");
    twilio.duringNext("purchase", async () => {
      await db.delete(assistants).where(eq(assistants.id, doomed.id));
    });
    const res = await as(app, who).post("/api/phone-numbers", { country_code: "US", assistant_id: doomed.id });
    expect(res.statusCode).toBe(400);
    expect(errorOf(res)).toEqual({ code: "unknown_assistant", message: PHONE_NUMBER_MESSAGES.unknownAssistant });
    expect(twilio.requests.filter((r) => r.username === who.account.sid).map((r) => r.operation)).toEqual(["account", "search", "purchase", "release"]);
    expect(twilio.numbersOf(who.account.sid)).toEqual([]);
    expect(await list(who)).toEqual([]);
  });

  it("refuses another user's assistant, an unknown one and bad input before asking Twilio", async () => {
    const who = await customer();
    const other = await customer();
    const theirs = await assistant(other.organizationId, "Not yours");
    const before = twilio.requests.length;
    for (const [payload, message] of [
      [{ country_code: "US", assistant_id: theirs.id }, PHONE_NUMBER_MESSAGES.unknownAssistant],
      [{ country_code: "US", assistant_id: "6f1c1e0a-3b0e-4c56-9d4c-2d7a1f0b9e11" }, PHONE_NUMBER_MESSAGES.unknownAssistant],
      [{ country_code: "US" }, PHONE_NUMBER_MESSAGES.assistantRequired],
      [{ country_code: "US", assistant_id: "" }, PHONE_NUMBER_MESSAGES.assistantRequired],
      [{ assistant_id: theirs.id }, PHONE_NUMBER_MESSAGES.countryRequired],
      [{ country_code: "JP", assistant_id: theirs.id }, PHONE_NUMBER_MESSAGES.countryRequired],
    ] as const) {
      const res = await as(app, who).post("/api/phone-numbers", payload);
      expect(res.statusCode, JSON.stringify(payload)).toBe(400);
      expect(errorOf(res).message).toBe(message);
    }
    expect(twilio.requests.length).toBe(before);
    expect(await list(who)).toEqual([]);
  });
});

describe("GET /api/phone-numbers", () => {
  it("lists only the caller's numbers, newest first, with the assistant's name", async () => {
    const who = await customer();
    const other = await customer();
    const sales = await assistant(who.organizationId, "Sales");
    await db.insert(phoneNumbers).values([
      { organizationId: who.organizationId, phoneNumber: "+15550000001", countryCode: "US", status: "inactive", assistantId: sales.id, createdAt: new Date("2025-01-01T00:00:00Z") },
      { organizationId: who.organizationId, phoneNumber: "+15550000003", countryCode: "US", status: "pending", assistantId: null, createdAt: new Date("2025-03-01T00:00:00Z") },
      { organizationId: who.organizationId, phoneNumber: "+15550000002", countryCode: "GB", status: "active", assistantId: sales.id, createdAt: new Date("2025-02-01T00:00:00Z") },
      { organizationId: other.organizationId, phoneNumber: "+15550000009", countryCode: "US", status: "active" },
    ]);
    const rows = await list(who);
    expect(rows.map((r) => [r.phone_number, r.status, r.assistant_name])).toEqual([
      ["+15550000003", "pending", null],
      ["+15550000002", "active", "Sales"],
      ["+15550000001", "inactive", "Sales"],
    ]);
    expect(rows[0]!.created_at).toBe("2025-03-01T00:00:00.000Z");
  });
});

describe("PATCH /api/phone-numbers/:id", () => {
  it("re-links the assistant and re-points the number's webhooks at this server", async () => {
    const who = await customer();
    const [first, second] = [await assistant(who.organizationId, "First"), await assistant(who.organizationId, "Second")];
    const number = await buy(who, first.id);
    const [held] = twilio.numbersOf(who.account.sid);
    held!.voiceUrl = "https://old-address.example.com/telephony/twilio/voice";

    const res = await as(app, who).patch(`/api/phone-numbers/${number.id}`, { assistant_id: second.id, country_code: number.country_code });
    expect(res.statusCode, res.body).toBe(200);
    expect(res.json()).toEqual({ ...number, assistant_id: second.id, assistant_name: "Second" });
    expect(await list(who)).toEqual([res.json()]);
    expect(twilio.numbersOf(who.account.sid)[0]).toMatchObject({ voiceUrl: `${PUBLIC_URL}/telephony/twilio/voice`, friendlyName: "Switchboard: Second" });
  });

  it("refuses a change of country, another user's assistant, and Twilio's refusal, changing nothing", async () => {
    const who = await customer();
    const other = await customer();
    const mine = await assistant(who.organizationId, "Mine");
    const theirs = await assistant(other.organizationId, "Theirs");
    const number = await buy(who, mine.id);

    const country = await as(app, who).patch(`/api/phone-numbers/${number.id}`, { assistant_id: mine.id, country_code: "GB" });
    expect(country.statusCode).toBe(400);
    expect(errorOf(country)).toEqual({ code: "country_locked", message: PHONE_NUMBER_MESSAGES.countryLocked });

    const foreign = await as(app, who).patch(`/api/phone-numbers/${number.id}`, { assistant_id: theirs.id });
    expect(foreign.statusCode).toBe(400);
    expect(errorOf(foreign).message).toBe(PHONE_NUMBER_MESSAGES.unknownAssistant);

    const second = await assistant(who.organizationId, "Second");
    twilio.failNext("update", { status: 400, code: 21402, message: "VoiceUrl is not valid" });
    const refused = await as(app, who).patch(`/api/phone-numbers/${number.id}`, { assistant_id: second.id });
    expect(refused.statusCode).toBe(400);
    expect(errorOf(refused).message).toBe("VoiceUrl is not valid");

    expect(await list(who)).toEqual([number]);
  });

  it("answers 404 for another user's number and changes nothing", async () => {
    const who = await customer();
    const owner = await customer();
    const ownersAssistant = await assistant(owner.organizationId, "Owner's");
    const mine = await assistant(who.organizationId, "Mine");
    const theirs = await buy(owner, ownersAssistant.id);
    for (const id of [theirs.id, "00000000-0000-4000-8000-000000000000", "nonsense"]) {
      const res = await as(app, who).patch(`/api/phone-numbers/${id}`, { assistant_id: mine.id });
      expect(res.statusCode, id).toBe(404);
      expect(errorOf(res)).toEqual({ code: "not_found", message: "Phone number not found" });
    }
    expect(await list(owner)).toEqual([theirs]);
  });
});

describe("DELETE /api/phone-numbers/:id", () => {
  it("releases the number at Twilio, then removes the row", async () => {
    const who = await customer();
    const desk = await assistant(who.organizationId, "Desk");
    const number = await buy(who, desk.id);
    const sid = twilio.numbersOf(who.account.sid)[0]!.sid;
    const res = await as(app, who).delete(`/api/phone-numbers/${number.id}`);
    expect(res.statusCode).toBe(204);
    expect(twilio.requests.at(-1)).toMatchObject({ method: "DELETE", path: `/2010-04-01/Accounts/${who.account.sid}/IncomingPhoneNumbers/${sid}.json` });
    expect(twilio.numbersOf(who.account.sid)).toEqual([]);
    expect(await list(who)).toEqual([]);
  });

  it("keeps the row and says why when Twilio refuses the release", async () => {
    const who = await customer();
    const desk = await assistant(who.organizationId, "Desk");
    const number = await buy(who, desk.id);
    twilio.failNext("release", { status: 400, code: 21613, message: "This phone number is still in use by an active call." });
    const res = await as(app, who).delete(`/api/phone-numbers/${number.id}`);
    expect(res.statusCode).toBe(400);
    expect(errorOf(res).message).toBe("This phone number is still in use by an active call.");
    expect(await list(who)).toEqual([number]);
    expect(twilio.numbersOf(who.account.sid)).toHaveLength(1);
  });

  it("removes a number Twilio no longer has", async () => {
    const who = await customer();
    const desk = await assistant(who.organizationId, "Desk");
    const number = await buy(who, desk.id);
    twilio.failNext("release", TWILIO_ERRORS.notFound("/gone"));
    expect((await as(app, who).delete(`/api/phone-numbers/${number.id}`)).statusCode).toBe(204);
    expect(await list(who)).toEqual([]);
  });

  it("keeps a Twilio number and points to Settings when the credentials were removed", async () => {
    const who = await customer();
    const number = await buy(who, (await assistant(who.organizationId, "Desk")).id);
    await as(app, who).delete("/api/credentials/twilio_auth_token");
    const res = await as(app, who).delete(`/api/phone-numbers/${number.id}`);
    expect(res.statusCode).toBe(400);
    expect(errorOf(res)).toEqual({ code: "twilio_credentials_missing", message: PHONE_NUMBER_MESSAGES.twilioCredentialsMissing });
    expect(await list(who)).toEqual([number]);
    expect(twilio.numbersOf(who.account.sid)).toHaveLength(1);
  });

  it("answers 404 for another user's number and leaves it at Twilio", async () => {
    const who = await customer();
    const owner = await customer();
    const theirs = await buy(owner, (await assistant(owner.organizationId, "Owner's")).id);
    const res = await as(app, who).delete(`/api/phone-numbers/${theirs.id}`);
    expect(res.statusCode).toBe(404);
    expect(await list(owner)).toEqual([theirs]);
    expect(twilio.numbersOf(owner.account.sid)).toHaveLength(1);
  });
});

describe("releaseAll (account deletion)", () => {
  const releaseAll = (organizationId: string) => createPhoneNumbersService({ ...ctx, carriers: { twilio: createTwilioCarrier({ config: ctx.config, credentials: createCredentialsService(ctx) }) }, versions: { exists: async () => false }, sipTrunks: { find: async () => null } }).releaseAll(organizationId);

  it("releases and deletes every number of the user, keeping and reporting one Twilio will not release", async () => {
    const who = await customer();
    const desk = await assistant(who.organizationId, "Desk");
    twilio.setAvailable("GB", ["+442071830001", "+442071830002"]);
    const [a, b] = [await buy(who, desk.id, "GB"), await buy(who, desk.id, "GB")];
    const bystander = await customer();
    const kept = await buy(bystander, (await assistant(bystander.organizationId, "B")).id);

    twilio.failNext("release", { status: 400, code: 21613, message: "In use" });
    const result = await releaseAll(who.organizationId);
    // Newest first: b was bought last, so it met the injected failure.
    expect(result).toEqual({ released: [a.phone_number], failed: [{ phone_number: b.phone_number, message: "In use" }] });
    expect((await list(who)).map((n) => n.id)).toEqual([b.id]);
    expect(await list(bystander)).toEqual([kept]);

    expect(await releaseAll(who.organizationId)).toEqual({ released: [b.phone_number], failed: [] });
    expect(twilio.numbersOf(who.account.sid)).toEqual([]);
  });
});
