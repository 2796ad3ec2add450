import { describe, expect, it } from "vitest";
import { phoneLine, startPhoneApp, TEST_AUTH_TOKEN, setUpTwilioLine } from "../../../../tests/fakes/twilio-app.ts";
import { TwilioCaller } from "../../../../tests/fakes/twilio-caller.ts";

/**
 * A phone call is set up while Twilio connects its stream: the voice webhook loads it and opens
 * and configures its provider session, and the stream's call greets on that session at once.
 */

const TO = "+15550111";
const line = setUpTwilioLine({ apiKey: "sk-early-test", number: TO, assistant: { instructions: "You answer the phone for Acme." } });
const dial = () => line.dial("+15559876");

describe("a phone call set up at its voice webhook", () => {
  it("has its provider session open and configured before its stream starts, and greets on it", async () => {
    const index = line.fake.connections.length;
    const call = await dial();
    // No stream yet: the session is already there, configured for this call's µ-law and instructions.
    const conn = await line.fake.connection(index);
    expect((await conn.waitFor("session.update"))["session"]).toMatchObject({
      instructions: "You answer the phone for Acme.",
      audio: { input: { format: { type: "audio/pcmu" } }, output: { format: { type: "audio/pcmu" } } },
    });
    await conn.waitForSent("session.updated");
    expect(conn.receivedOf("response.create")).toHaveLength(0);

    await call.openStream();
    await call.until(() => call.heardMs >= 400, "greeting heard");
    // The call took that session: no second connection, no second configuration.
    expect(line.fake.connections).toHaveLength(index + 1);
    expect(conn.receivedOf("session.update")).toHaveLength(1);
    expect(conn.receivedOf("response.create")[0]).toMatchObject({ response: { instructions: expect.stringContaining("Hello, this is Ava.") } });
    await call.hangUp();
    await conn.until(() => conn.closed !== null, 5000, "session closed with the call");
  });

  it("closes the session when the stream is refused", async () => {
    const index = line.fake.connections.length;
    const call = await dial();
    const conn = await line.fake.connection(index);
    await conn.waitForSent("session.updated");
    await call.openStream({ upgradeSignature: "forged" });
    await call.until(() => call.closed !== null, "stream refused");
    expect(call.closed?.reason).toBe("Invalid signature");
    await conn.until(() => conn.closed !== null, 5000, "early session closed");
    expect(conn.receivedOf("response.create")).toHaveLength(0);
  });

  it("closes the session of a stream that never came when the app closes", async () => {
    const other = await startPhoneApp(line.fake);
    await phoneLine(other, line.fake.apiKey, TO);
    const index = line.fake.connections.length;
    await TwilioCaller.dial({ origin: other.origin, authToken: TEST_AUTH_TOKEN, to: TO, from: "+15559876" });
    const conn = await line.fake.connection(index);
    await conn.waitForSent("session.updated");
    await other.app.close();
    await conn.until(() => conn.closed !== null, 5000, "early session closed");
  });
});
