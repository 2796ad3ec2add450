import { afterAll, beforeAll, expect, it } from "vitest";
import { startFakeRealtime, type FakeRealtime } from "../../../tests/fakes/fake-realtime.ts";
import { createAssistant, requestTestSession, type Caller } from "../../../tests/fakes/realtime-app.ts";
import { insertPhoneNumber, phoneOwner, startPhoneApp, TEST_AUTH_TOKEN, type PhoneApp } from "../../../tests/fakes/twilio-app.ts";
import { TwilioCaller } from "../../../tests/fakes/twilio-caller.ts";
import { AT_CAPACITY_MESSAGE, PHONE_BUSY_MESSAGE } from "../../shared/calls.ts";

/**
 * MAX_CALLS on a real app: the voice webhook holds a place for each call it tells Twilio to
 * stream, so that stream always finds room; beyond it callers hear a polite refusal at once,
 * a browser test call gets a retryable 503, and /api/health says how full the instance is.
 */
const TO = "+15550100";
let fake: FakeRealtime;
let app: PhoneApp;
let owner: Caller;
let assistantId: string;

beforeAll(async () => {
  fake = await startFakeRealtime({ apiKey: "sk-capacity-test" });
  app = await startPhoneApp(fake, { MAX_CALLS: "2" });
  owner = await phoneOwner(app, fake.apiKey);
  assistantId = (await createAssistant(app.app, owner)).id;
  await insertPhoneNumber(app, owner, TO, assistantId);
});
afterAll(async () => {
  await app.app.close();
  await fake.close();
});

const dial = () => TwilioCaller.dial({ origin: app.origin, authToken: TEST_AUTH_TOKEN, to: TO, from: "+15559876" });
const health = async () => (await app.app.inject({ url: "/api/health" })).json() as { calls: number; max_calls: number; has_room: boolean };

it("holds a place for every call told to stream, refuses politely beyond MAX_CALLS, and reports calls and capacity", async () => {
  expect(await health()).toMatchObject({ calls: 0, max_calls: 2, has_room: true });
  const first = await dial();
  await first.openStream();
  await first.until(() => first.firstAudioAt !== null, "the greeting");
  // The second is told to stream but has not opened it yet: its place is held all the same.
  const second = await dial();
  expect(second.stream()).not.toBeNull();
  expect(await health()).toMatchObject({ calls: 2, max_calls: 2, has_room: false });

  const third = await dial();
  expect(third.webhookStatus).toBe(200);
  expect(third.twiml).toBe(`<?xml version="1.0" encoding="UTF-8"?><Response><Say>${PHONE_BUSY_MESSAGE}</Say><Hangup/></Response>`);
  const refused = await requestTestSession(app.app, owner, { assistantId });
  expect(refused.statusCode).toBe(503);
  expect(refused.headers["retry-after"]).toBe("2");
  expect(refused.json()).toEqual({ error: { code: "at_capacity", message: AT_CAPACITY_MESSAGE } });

  // The held place is the second call's: its stream opens and is answered.
  await second.openStream();
  await second.until(() => second.firstAudioAt !== null, "the greeting");
  expect(await health()).toMatchObject({ calls: 2, has_room: false });

  await first.hangUp();
  await expect.poll(async () => (await health()).calls).toBe(1);
  expect(await health()).toMatchObject({ has_room: true });
  expect((await requestTestSession(app.app, owner, { assistantId })).statusCode).toBe(200);
  await second.hangUp();
});
