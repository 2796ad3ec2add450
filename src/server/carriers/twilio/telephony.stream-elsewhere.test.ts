import { afterAll, beforeAll, expect, it } from "vitest";
import { startFakeRealtime, type FakeRealtime } from "../../../../tests/fakes/fake-realtime.ts";
import { phoneLine, startPhoneAppPair, TEST_AUTH_TOKEN, type PhoneApp } from "../../../../tests/fakes/twilio-app.ts";
import { TwilioCaller } from "../../../../tests/fakes/twilio-caller.ts";
import { closeInOrder } from "../../../../tests/close.ts";
import { PLACE_HOLD_MS } from "../../modules/calls/live-calls.ts";
import type { Database } from "../../db/client.ts";

/**
 * Workers behind one port (`npm start` with WORKERS): the webhook reaches one worker, which holds
 * the call's place, and the stream's connection may reach another, which carries the call. The
 * first gives the place back at once, rather than counting it for PLACE_HOLD_MS and turning
 * callers away with room to spare.
 */
const TO = "+15550100";
const PUBLIC_URL = "https://calls.example.test";
let fake: FakeRealtime;
let database: Database;
let a: PhoneApp;
let b: PhoneApp;

beforeAll(async () => {
  fake = await startFakeRealtime({ apiKey: "sk-stream-elsewhere" });
  ({ database, a, b } = await startPhoneAppPair(fake, { MAX_CALLS: "1", PUBLIC_URL }));
  await phoneLine(a, fake.apiKey, TO);
});
afterAll(() => closeInOrder(a.app, b.app, database, fake));

const dialA = () => TwilioCaller.dial({ origin: a.origin, publicUrl: PUBLIC_URL, authToken: TEST_AUTH_TOKEN, to: TO, from: "+15559876" });

it("a place held for a stream that reached another worker is given back at once: the next caller is answered, not turned away", async () => {
  const first = await dialA();
  expect(a.app.ctx.liveCalls.taken).toBe(1);
  await first.openStream({ via: b.origin });
  await first.until(() => first.firstAudioAt !== null, "the greeting on B");
  expect(b.app.ctx.liveCalls.size).toBe(1);
  // Well before the hold would lapse by itself.
  await expect.poll(() => a.app.ctx.liveCalls.taken, { timeout: PLACE_HOLD_MS / 3 }).toBe(0);

  const second = await dialA();
  expect(second.stream()).not.toBeNull();
  await first.hangUp();
});
