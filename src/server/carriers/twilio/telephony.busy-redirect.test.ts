import { expect, it } from "vitest";
import { setUpTwilioPair } from "../../../../tests/fakes/twilio-app.ts";
import { PHONE_BUSY_MESSAGE } from "../../../shared/calls.ts";

/**
 * Two instances on one database, one line each. A call reaching the full one is redirected to
 * the one with room (its INSTANCE_URL, learnt from its heartbeat) and streams there; once both
 * are full a caller hears the busy message — a redirected call is never sent on again.
 */
const LEASE = { INSTANCE_LEASE_MS: "1500", MAX_CALLS: "1" };
// B sits behind a balancer's PUBLIC_URL and has an address of its own for Twilio.
const pair = setUpTwilioPair({ apiKey: "sk-busy-redirect", number: "+15550100", configA: LEASE, configB: (origin) => ({ ...LEASE, PUBLIC_URL: "https://calls.example.test", INSTANCE_URL: origin }) });
const busy = `<?xml version="1.0" encoding="UTF-8"?><Response><Say>${PHONE_BUSY_MESSAGE}</Say><Hangup/></Response>`;

it("sends a call the full instance cannot take to the one with room, and says the busy message when both are full", async () => {
  const first = await pair.dialA();
  await first.openStream();
  await first.until(() => first.firstAudioAt !== null, "the greeting");

  // A is full; B's heartbeat says it has room: A answers with a redirect to B's own address.
  let second = await pair.dialA();
  await expect.poll(async () => (second = await pair.dialA()).twiml, { timeout: 15_000 }).toContain(`<Redirect method="POST">${pair.b.origin}/telephony/twilio/voice?busy_redirect=1</Redirect>`);
  await second.followRedirect();
  expect(second.webhookStatus).toBe(200);
  // Signed for B's INSTANCE_URL, accepted there; the stream goes straight to B, where the place is held.
  expect(second.stream()?.url).toBe(`${pair.b.origin.replace(/^http/, "ws")}/telephony/twilio/media`);
  await second.openStream();
  await second.until(() => second.firstAudioAt !== null, "the greeting on B");

  // Both full: whichever answers, the caller ends with the busy message, never a second redirect.
  const third = await pair.dialA();
  if (third.twiml.includes("<Redirect")) await third.followRedirect();
  expect(third.twiml).toBe(busy);

  await first.hangUp();
  await second.hangUp();
});
