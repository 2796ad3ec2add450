import { eq } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { signTwilio } from "../../../../tests/fakes/twilio-caller.ts";
import { startFakeTwilioRest, type FakeTwilioRest } from "../../../../tests/fakes/twilio-rest.ts";
import { buildTestApp, signUpAndLogIn, type TestApp } from "../../../../tests/harness.ts";
import { calls, phoneNumbers } from "../../db/schema.ts";
import { createCredentialsService } from "../../modules/credentials/credentials.service.ts";
import { twilioCredentialCheck } from "./twilio-carrier.ts";

/**
 * A phone call's real cost: the AI provider's usage (stored at the end) plus Twilio's price,
 * fetched from the Calls API by a job after the completed status callback, while Twilio has
 * not rated the call yet (price null) retried.
 */
const PUBLIC_URL = "https://switchboard.example";
const TO = "+15550100";
const FROM = "+15559876";
let app: TestApp;
let db: Awaited<ReturnType<typeof buildTestApp>>["db"];
let twilio: FakeTwilioRest;
let owner: Awaited<ReturnType<typeof signUpAndLogIn>>;
let numberId: string;

beforeAll(async () => {
  twilio = await startFakeTwilioRest();
  ({ app, db } = await buildTestApp({
    config: { TWILIO_API_BASE: twilio.baseUrl, PUBLIC_URL },
    deps: { callPrice: { firstDelayMs: 0, retryDelaysMs: [1000, 1000, 1000] } },
  }));
  owner = await signUpAndLogIn(app);
  const credentials = createCredentialsService({ ...app.ctx, checkTwilio: twilioCredentialCheck(app.ctx.config.twilioApiBase) });
  await credentials.saveTwilio(owner.organizationId, { account_sid: twilio.account.sid, auth_token: twilio.account.authToken });
  const [number] = await db
    .insert(phoneNumbers)
    .values({ organizationId: owner.organizationId, phoneNumber: TO, countryCode: "US", status: "active", providerSid: `PN${"2".repeat(32)}` })
    .returning({ id: phoneNumbers.id });
  numberId = number!.id;
});
afterAll(async () => {
  await app.close();
  await twilio.close();
});

async function statusCallback(callSid: string, fields: Record<string, string>) {
  const params = { AccountSid: twilio.account.sid, CallSid: callSid, From: FROM, To: TO, CallStatus: "completed", ...fields };
  const res = await app.inject({
    method: "POST",
    url: "/telephony/twilio/status",
    headers: { "content-type": "application/x-www-form-urlencoded", "x-twilio-signature": signTwilio(twilio.account.authToken, `${PUBLIC_URL}/telephony/twilio/status`, params) },
    payload: new URLSearchParams(params).toString(),
  });
  return res.statusCode;
}

async function until<T>(read: () => Promise<T>, ok: (v: T) => boolean, timeoutMs = 15_000): Promise<T> {
  const started = Date.now();
  for (;;) {
    const v = await read();
    if (ok(v) || Date.now() - started > timeoutMs) return v;
    await new Promise((r) => setTimeout(r, 100));
  }
}

const fetchesOf = (sid: string) => twilio.requests.filter((r) => r.operation === "callFetch" && r.path.endsWith(`/Calls/${sid}.json`)).length;

describe("a phone call's cost", () => {
  it("is the provider's usage plus Twilio's price, fetched after the call once Twilio has rated it; test calls keep the tariff", async () => {
    const twilioCall = twilio.addCall(twilio.account.sid, { from: FROM, to: TO, status: "completed", price: null });
    const start = new Date(Date.now() - 120_000);
    const [row] = await db
      .insert(calls)
      .values({
        organizationId: owner.organizationId,
        startTime: start,
        endTime: new Date(start.getTime() + 75_000),
        endedReason: "Caller hung up",
        // The stored tariff of a phone call is not what it shows.
        cost: 0.07,
        logs: { isTest: false, transcript: [], toolsUsed: [] },
        callerNumber: FROM,
        calledNumber: TO,
        phoneNumberId: numberId,
        providerCallSid: twilioCall.sid,
        providerCost: { total: 0.0123, lines: [] },
      })
      .returning({ id: calls.id });
    const callId = row!.id;
    const get = async () => (await app.inject({ url: `/api/calls/${callId}`, headers: { cookie: owner.cookie } })).json();

    // Before Twilio's price: the provider's part alone, and the page can say the price is pending.
    expect(await get()).toMatchObject({ cost: 0.0123, cost_basis: "provider", telephony_cost: null });

    expect(await statusCallback(twilioCall.sid, { CallDuration: "75" })).toBe(204);
    // Twilio has not rated it yet: asked, and asked again later.
    await until(async () => fetchesOf(twilioCall.sid), (n) => n >= 2);
    expect(fetchesOf(twilioCall.sid)).toBeGreaterThanOrEqual(2);
    expect((await get()).telephony_cost).toBeNull();

    twilio.setCallPrice(twilioCall.sid, "-0.00850");
    const priced = await until(get, (r) => r.telephony_cost !== null);
    expect(priced).toMatchObject({ telephony_cost: 0.0085, cost_basis: "provider" });
    expect(priced.cost).toBeCloseTo(0.0208, 6);

    // A second completed callback (Twilio retries) asks nothing more once the price is stored.
    const asked = fetchesOf(twilioCall.sid);
    expect(await statusCallback(twilioCall.sid, { CallDuration: "75" })).toBe(204);
    await new Promise((r) => setTimeout(r, 1500));
    expect(fetchesOf(twilioCall.sid)).toBe(asked);
    expect((await db.select({ t: calls.telephonyCost }).from(calls).where(eq(calls.id, callId)))[0]!.t).toBe(0.0085);

    // The list and the stats use the same figure; a test call still shows its tariff.
    await db.insert(calls).values({
      organizationId: owner.organizationId,
      startTime: start,
      endTime: new Date(start.getTime() + 75_000),
      endedReason: "User ended call",
      cost: 0.07,
      logs: { isTest: true, transcript: [], toolsUsed: [] },
      providerCost: { total: 0.02, lines: [] },
    });
    const list = (await app.inject({ url: "/api/calls", headers: { cookie: owner.cookie } })).json().data as { cost: number; cost_basis: string; type: string }[];
    expect(list.find((c) => c.type === "Real")).toMatchObject({ cost_basis: "provider" });
    expect(list.find((c) => c.type === "Test")).toMatchObject({ cost: 0.07, cost_basis: "tariff" });
    const stats = (await app.inject({ url: "/api/calls/stats", headers: { cookie: owner.cookie } })).json();
    expect(stats.cost).toBe(0.09);
  });
});
