import { expect, it } from "vitest";
import { requestTestSession } from "../../../../tests/fakes/realtime-app.ts";
import { setUpTwilioLine } from "../../../../tests/fakes/twilio-app.ts";
import { AT_CAPACITY_MESSAGE, BUSY_MESSAGE_MAX_LENGTH, PHONE_BUSY_MESSAGE } from "../../../shared/calls.ts";

/**
 * MAX_CALLS on a real app: the voice webhook holds a place for each call it tells Twilio to
 * stream, so that stream always finds room; beyond it callers hear a polite refusal at once,
 * a browser test call gets a retryable 503, and /api/health says how full the instance is.
 */
const line = setUpTwilioLine({ apiKey: "sk-capacity-test", number: "+15550100", config: { MAX_CALLS: "2" } });

const dial = () => line.dial("+15559876");
const health = async () => (await line.app.app.inject({ url: "/api/health" })).json() as { calls: number; max_calls: number; has_room: boolean };

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
  const refused = await requestTestSession(line.app.app, line.owner, { assistantId: line.assistantId });
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
  expect((await requestTestSession(line.app.app, line.owner, { assistantId: line.assistantId })).statusCode).toBe(200);
  await second.hangUp();
});

const busyTwiml = (message: string) => `<?xml version="1.0" encoding="UTF-8"?><Response><Say>${message}</Say><Hangup/></Response>`;
const settings = (method: "GET" | "PUT", payload?: { busy_message: string }) =>
  line.app.app.inject({ method, url: "/api/settings/busy-message", headers: { cookie: line.owner.cookie }, ...(payload === undefined ? {} : { payload }) });

it("says the account's own busy message beyond MAX_CALLS, and the default again once it is emptied", async () => {
  await expect.poll(async () => (await health()).calls).toBe(0);
  expect((await settings("GET")).json()).toEqual({ busy_message: PHONE_BUSY_MESSAGE });
  const own = "Thanks for calling Ada & Co. Every line is taken, please call back soon.";
  const saved = await settings("PUT", { busy_message: `  ${own} ` });
  expect(saved.statusCode, saved.body).toBe(200);
  expect(saved.json()).toEqual({ busy_message: own });
  expect((await settings("GET")).json()).toEqual({ busy_message: own });

  const first = await dial();
  await first.openStream();
  const second = await dial();
  expect(second.stream()).not.toBeNull();
  // A full instance answers before it waits on the database; the account's words are what callers hear.
  await expect.poll(async () => (await dial()).twiml).toBe(busyTwiml("Thanks for calling Ada &amp; Co. Every line is taken, please call back soon."));

  expect((await settings("PUT", { busy_message: "" })).json()).toEqual({ busy_message: PHONE_BUSY_MESSAGE });
  expect((await dial()).twiml).toBe(busyTwiml(PHONE_BUSY_MESSAGE));
  await first.hangUp();
  await second.openStream();
  await second.hangUp();
  await expect.poll(async () => (await health()).calls).toBe(0);
});

it("refuses a busy message Twilio could not say, in the user's words, and keeps the saved one", async () => {
  await settings("PUT", { busy_message: "Lines busy." });
  const tooLong = await settings("PUT", { busy_message: "x".repeat(BUSY_MESSAGE_MAX_LENGTH + 1) });
  expect(tooLong.statusCode).toBe(400);
  expect(tooLong.body).toContain(`Busy message must be at most ${BUSY_MESSAGE_MAX_LENGTH} characters`);
  const twoLines = await settings("PUT", { busy_message: "Busy.\nBye." });
  expect(twoLines.statusCode).toBe(400);
  expect(twoLines.body).toContain("Busy message must be one line of plain text");
  expect((await settings("GET")).json()).toEqual({ busy_message: "Lines busy." });
  await settings("PUT", { busy_message: "" });
});
