import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Database } from "../../db/client.ts";
import { startFakeRealtime, type FakeRealtime } from "../../../../tests/fakes/fake-realtime.ts";
import type { Caller } from "../../../../tests/fakes/realtime-app.ts";
import { startAccountRest, startPhoneApp, TEST_AUTH_TOKEN, type PhoneApp, campaignLine } from "../../../../tests/fakes/twilio-app.ts";
import { attachFarEnd, type FarEnd, type FarEndOptions } from "../../../../tests/fakes/twilio-far-end.ts";
import type { FakeTwilioRest } from "../../../../tests/fakes/twilio-rest.ts";
import { freshDatabase } from "../../../../tests/harness.ts";
import type { Campaign } from "../../../shared/campaigns.ts";
import { until } from "../../../../tests/until.ts";

/**
 * The dialler's durability: a running campaign goes on after a restart (a new app on the same
 * database), and two apps on one database dial each contact once within the campaign's limit
 * of calls at once. The database outlives every app; the clock is the test's.
 */

const OURS = "+15550100";
let database: Database;
let fake: FakeRealtime;
let rest: FakeTwilioRest;
let farEnd: FarEnd;
let farEndOptions: FarEndOptions;
const apps: PhoneApp[] = [];
let owner: Caller;
let assistantId: string;
let numberId: string;
// Monday 23 November 2026, 12:00 UTC: inside the weekday window.
let now = new Date("2026-11-23T12:00:00Z");

const startApp = async (config: Record<string, string> = {}) => {
  const app = await startPhoneApp(fake, { TWILIO_API_BASE: rest.baseUrl, JOB_POLL_INTERVAL_MS: "500", ...config }, { database, clock: () => now });
  apps.push(app);
  return app;
};

beforeAll(async () => {
  database = await freshDatabase();
  fake = await startFakeRealtime({ apiKey: "sk-campaign-instances" });
  rest = await startAccountRest(OURS);
  const first = await startApp();
  // Nobody answers, and each call rings a while, so calls overlap.
  farEndOptions = { origin: first.origin, authToken: TEST_AUTH_TOKEN, stepMs: 100 };
  farEnd = attachFarEnd(rest, farEndOptions);
  farEnd.setDefault("no-answer");
  ({ owner, assistantId, numberId } = await campaignLine(first, fake.apiKey, OURS));
  // Generous: starting the app, its job queue and the fakes is slow on a busy machine.
}, 180_000);
afterAll(async () => {
  for (const app of apps) await app.app.close();
  await rest?.close();
  await fake?.close();
  await database?.close();
}, 60_000);

const send = (app: PhoneApp, method: "GET" | "POST", url: string, payload?: object) =>
  app.app.inject({ method, url, headers: { cookie: owner.cookie }, ...(payload ? { payload } : {}) });
const weekdays = { timezone: "UTC", windows: [{ days: [1, 2, 3, 4, 5], start: "09:00", end: "17:00" }] };
const placedTo = (phone: string) => farEnd.placed.filter((p) => p.to === phone).length;
const placed = (phones: string[]) => phones.reduce((n, p) => n + placedTo(p), 0);
const twice = (phones: string[]) => phones.filter((p) => placedTo(p) > 1);
const campaign = (app: PhoneApp, id: string) => send(app, "GET", `/api/campaigns/${id}`).then((r) => r.json() as Campaign);

async function create(app: PhoneApp, name: string, phones: string[], limits: { max_concurrent_calls: number; calls_per_minute?: number }): Promise<string> {
  const res = await send(app, "POST", "/api/campaigns", {
    name,
    assistant_id: assistantId,
    phone_number_id: numberId,
    contacts_csv: ["phone,first_name", ...phones.map((p, i) => `${p},P${i}`)].join("\n"),
    schedule: weekdays,
    ...limits,
  });
  expect(res.statusCode, res.body).toBe(201);
  return res.json().id as string;
}

// Each test waits on real ticks of the job queue and on apps starting: generous on a busy machine.
describe("the dialler across restarts and instances", { timeout: 240_000 }, () => {
  it("goes on with a running campaign after a restart, dialling the remaining contacts once each", async () => {
    const phones = Array.from({ length: 10 }, (_, i) => `+155500040${String(i).padStart(2, "0")}`);
    const first = apps[0]!;
    // On a frozen clock the pacing starts only ten seconds' worth (4 of 24 a minute): the campaign stops mid-way until the clock moves.
    const id = await create(first, "Before and after", phones, { max_concurrent_calls: 2, calls_per_minute: 24 });
    await send(first, "POST", `/api/campaigns/${id}/start`);
    const before = await until("the first minute's calls", () => campaign(first, id), (c) => c.counts.no_answer === 4 && c.counts.calling === 0, 60_000);
    expect(before.status).toBe("running");
    expect(placed(phones)).toBe(4);

    await first.app.close();
    apps.splice(apps.indexOf(first), 1);
    const second = await startApp();
    farEndOptions.origin = second.origin;
    expect((await campaign(second, id)).status).toBe("running");

    now = new Date(now.getTime() + 61_000);
    await until("the second minute's calls", () => campaign(second, id), (c) => c.counts.no_answer === 8 && c.counts.calling === 0, 60_000);
    now = new Date(now.getTime() + 61_000);
    const done = await until("completion", () => campaign(second, id), (c) => c.status === "completed", 60_000);
    expect(done.counts).toMatchObject({ pending: 0, calling: 0, no_answer: 10 });
    expect(placed(phones)).toBe(10);
    expect(twice(phones)).toEqual([]);
  });

  it("on two instances, dials each contact once and never more at once than the campaign allows", async () => {
    const one = apps[0]!;
    // Callbacks reach `one` (the far end's origin), so both sign and check over its URL.
    const two = await startApp({ PUBLIC_URL: one.origin });
    const phones = Array.from({ length: 24 }, (_, i) => `+155500050${String(i).padStart(2, "0")}`);
    const id = await create(one, "Shared", phones, { max_concurrent_calls: 3 });
    farEnd.resetPeak();
    now = new Date("2026-11-24T12:00:00Z");
    await send(two, "POST", `/api/campaigns/${id}/start`);
    const done = await until("completion", () => campaign(one, id), (c) => c.status === "completed", 120_000);
    expect(done.counts).toMatchObject({ pending: 0, calling: 0, no_answer: 24 });
    expect(placed(phones)).toBe(24);
    expect(twice(phones)).toEqual([]);
    expect(farEnd.peak).toBeLessThanOrEqual(3);
    expect(farEnd.peak).toBeGreaterThan(1);
    expect((await campaign(two, id)).counts.no_answer).toBe(24);
  });
});
