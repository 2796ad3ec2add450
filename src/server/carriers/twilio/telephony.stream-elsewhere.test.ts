import { expect, it } from "vitest";
import { setUpTwilioPair } from "../../../../tests/fakes/twilio-app.ts";
import { PLACE_HOLD_MS } from "../../modules/calls/live-calls.ts";

/**
 * Workers behind one port (`npm start` with WORKERS): the webhook reaches one worker, which holds
 * the call's place, and the stream's connection may reach another, which carries the call. The
 * first gives the place back at once, rather than counting it for PLACE_HOLD_MS and turning
 * callers away with room to spare.
 */
const PUBLIC_URL = "https://calls.example.test";
const pair = setUpTwilioPair({ apiKey: "sk-stream-elsewhere", number: "+15550100", configA: { MAX_CALLS: "1", PUBLIC_URL } });
const dialA = () => pair.dialA({ publicUrl: PUBLIC_URL });

it("a place held for a stream that reached another worker is given back at once: the next caller is answered, not turned away", async () => {
  const first = await dialA();
  expect(pair.a.app.ctx.liveCalls.taken).toBe(1);
  await first.openStream({ via: pair.b.origin });
  await first.until(() => first.firstAudioAt !== null, "the greeting on B");
  expect(pair.b.app.ctx.liveCalls.size).toBe(1);
  // Well before the hold would lapse by itself.
  await expect.poll(() => pair.a.app.ctx.liveCalls.taken, { timeout: PLACE_HOLD_MS / 3 }).toBe(0);

  const second = await dialA();
  expect(second.stream()).not.toBeNull();
  await first.hangUp();
});
