import { describe, expect, it } from "vitest";
import { createAssistant, setUpLiveApp } from "../../../../tests/fakes/realtime-app.ts";
import { signUpAndLogIn } from "../../../../tests/harness.ts";
import { eq } from "drizzle-orm";
import { calls, credentials, phoneNumbers } from "../../db/schema.ts";

const file = setUpLiveApp("sk-getting-started-1");

const progress = async (cookie: string) => {
  const res = await file.live.app.inject({ url: "/api/getting-started", headers: { cookie } });
  expect(res.statusCode, res.body).toBe(200);
  return res.json() as { steps: { id: string; done: boolean }[]; complete: boolean };
};
const done = (p: { steps: { id: string; done: boolean }[] }) => p.steps.filter((s) => s.done).map((s) => s.id);

describe("GET /api/getting-started", () => {
  it("ticks each step from the organisation's own data, in order, until complete; another organisation's data counts for nothing", async () => {
    const { app, db } = file.live;
    const who = await signUpAndLogIn(app);
    const other = await signUpAndLogIn(app);
    const fresh = await progress(who.cookie);
    expect(fresh.steps.map((s) => s.id)).toEqual(["openai_key", "assistant", "test_call", "twilio", "phone_number", "real_call"]);
    expect(done(fresh)).toEqual([]);
    expect(fresh.complete).toBe(false);

    // A key OpenAI refused is stored (Settings says why) but the step is not done.
    await app.inject({ method: "PUT", url: "/api/credentials/openai_api_key", headers: { cookie: who.cookie }, payload: { value: "sk-refused-0123456789abcdef" } });
    expect(done(await progress(who.cookie))).toEqual([]);
    await app.inject({ method: "PUT", url: "/api/credentials/openai_api_key", headers: { cookie: who.cookie }, payload: { value: file.fake.apiKey } });
    const assistant = await createAssistant(app, who);
    await db.insert(calls).values({ organizationId: who.organizationId, assistantId: assistant.id, logs: { isTest: true, transcript: [] } });
    expect(done(await progress(who.cookie))).toEqual(["openai_key", "assistant", "test_call"]);

    // Half a Twilio pair is not connected.
    await db.insert(credentials).values({ organizationId: who.organizationId, name: "twilio_account_sid", valueEncrypted: "sealed", verified: true });
    expect(done(await progress(who.cookie))).not.toContain("twilio");
    // A pair Twilio refused is not connected either.
    await db.insert(credentials).values({ organizationId: who.organizationId, name: "twilio_auth_token", valueEncrypted: "sealed", verified: false });
    expect(done(await progress(who.cookie))).not.toContain("twilio");
    await db.update(credentials).set({ verified: true }).where(eq(credentials.name, "twilio_auth_token"));
    await db.insert(phoneNumbers).values({ organizationId: who.organizationId, phoneNumber: "+15550100", countryCode: "US", status: "active", providerSid: `PN${"3".repeat(32)}` });
    expect((await progress(who.cookie)).complete).toBe(false);
    await db.insert(calls).values({ organizationId: who.organizationId, assistantId: assistant.id, logs: { isTest: false, transcript: [] } });
    const all = await progress(who.cookie);
    expect(all.steps.every((s) => s.done)).toBe(true);
    expect(all.complete).toBe(true);

    expect(done(await progress(other.cookie))).toEqual([]);
  });

  it("needs a session", async () => {
    const { app } = file.live;
    expect((await app.inject({ url: "/api/getting-started" })).statusCode).toBe(401);
  });
});
