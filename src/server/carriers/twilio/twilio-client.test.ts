import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startFakeTwilioRest, TWILIO_ERRORS, type FakeTwilioRest } from "../../../../tests/fakes/twilio-rest.ts";
import { createTwilioRest, numberWebhooks, TwilioError } from "./twilio-client.ts";

let twilio: FakeTwilioRest;
beforeAll(async () => {
  twilio = await startFakeTwilioRest();
});
afterAll(() => twilio.close());

const rest = () => createTwilioRest({ accountSid: twilio.account.sid, authToken: twilio.account.authToken }, twilio.baseUrl);

describe("the Twilio REST client against a Twilio-compatible endpoint", () => {
  it("fetches the account with Basic auth to the account's own path", async () => {
    const account = await rest().fetchAccount();
    expect(account).toEqual({ sid: twilio.account.sid, friendlyName: "My first Twilio account", status: "active", type: "Full" });
    const seen = twilio.requests.at(-1)!;
    expect(seen).toMatchObject({ method: "GET", path: `/2010-04-01/Accounts/${twilio.account.sid}.json`, username: twilio.account.sid });
  });

  it("surfaces Twilio's own message and code for wrong credentials", async () => {
    const wrong = createTwilioRest({ accountSid: twilio.account.sid, authToken: "not-the-token" }, twilio.baseUrl);
    const err = await wrong.fetchAccount().catch((e: unknown) => e);
    expect(err).toBeInstanceOf(TwilioError);
    expect(err).toMatchObject({ status: 401, code: 20003, message: "Authenticate", isAuthFailure: true });
  });

  it("searches voice-capable local numbers, buys one with both webhooks, updates and releases it", async () => {
    const client = rest();
    twilio.setAvailable("GB", ["+442071838750", "+442071838751"]);
    const found = await client.searchLocalVoiceNumbers("GB", 1);
    expect(found).toEqual([expect.objectContaining({ phoneNumber: "+442071838750", isoCountry: "GB" })]);
    expect(twilio.requests.at(-1)!.query).toMatchObject({ VoiceEnabled: "true", PageSize: "1" });

    const bought = await client.purchaseNumber(found[0]!.phoneNumber, numberWebhooks("https://sb.example.com", "Switchboard: Desk"));
    expect(bought).toMatchObject({ phoneNumber: "+442071838750", voiceUrl: "https://sb.example.com/telephony/twilio/voice", statusCallback: "https://sb.example.com/telephony/twilio/status" });
    expect(twilio.requests.at(-1)!.form).toEqual({
      PhoneNumber: "+442071838750",
      VoiceUrl: "https://sb.example.com/telephony/twilio/voice",
      VoiceMethod: "POST",
      StatusCallback: "https://sb.example.com/telephony/twilio/status",
      StatusCallbackMethod: "POST",
      FriendlyName: "Switchboard: Desk",
    });

    const updated = await client.updateNumber(bought.sid, numberWebhooks("https://new.example.com", "Switchboard: Sales"));
    expect(updated).toMatchObject({ voiceUrl: "https://new.example.com/telephony/twilio/voice", friendlyName: "Switchboard: Sales" });

    await client.releaseNumber(bought.sid);
    expect(twilio.numbersOf(twilio.account.sid)).toEqual([]);
    const again = await client.releaseNumber(bought.sid).catch((e: unknown) => e);
    expect(again).toMatchObject({ status: 404, code: 20404, isNotFound: true });
  });

  it("replaces a live call's TwiML", async () => {
    const call = twilio.addCall(twilio.account.sid, { from: "+15550001111", to: "+14155550100" });
    await rest().updateCallTwiml(call.sid, "<Response><Dial>+15550002222</Dial></Response>");
    expect(twilio.call(call.sid)!.twiml).toBe("<Response><Dial>+15550002222</Dial></Response>");
  });

  it("passes on an injected refusal with Twilio's words", async () => {
    twilio.failNext("purchase", TWILIO_ERRORS.trialLimit);
    const err = await rest().purchaseNumber("+14155550103", numberWebhooks("https://x.example")).catch((e: unknown) => e);
    expect(err).toMatchObject({ status: 400, code: 21404, message: TWILIO_ERRORS.trialLimit.message });
  });

  it("keeps a path prefix of TWILIO_API_BASE (a proxy) and says when Twilio cannot be reached", async () => {
    const paths: string[] = [];
    const proxy = createServer((req, res) => {
      paths.push(req.url ?? "");
      res.writeHead(200, { "content-type": "application/json" }).end(JSON.stringify({ sid: twilio.account.sid, friendly_name: "Proxied", status: "active", type: "Full" }));
    });
    await new Promise<void>((r) => proxy.listen(0, "127.0.0.1", r));
    const port = (proxy.address() as AddressInfo).port;
    const viaProxy = createTwilioRest({ accountSid: twilio.account.sid, authToken: "t" }, `http://127.0.0.1:${port}/twilio/`);
    expect(await viaProxy.fetchAccount()).toMatchObject({ friendlyName: "Proxied" });
    expect(paths).toEqual([`/twilio/2010-04-01/Accounts/${twilio.account.sid}.json`]);
    await new Promise<void>((r) => proxy.close(() => r()));

    const gone = createTwilioRest({ accountSid: twilio.account.sid, authToken: "t" }, `http://127.0.0.1:${port}`);
    const err = await gone.fetchAccount().catch((e: unknown) => e);
    expect(err).toMatchObject({ status: 0, message: expect.stringMatching(/^Twilio could not be reached/) });
  });
});
