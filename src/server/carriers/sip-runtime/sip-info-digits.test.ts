/**
 * Keypad digits sent by SIP INFO inside a call reach the assistant as RFC 4733 digits do: SIPp
 * calls a SIP number (from a trunk's address), presses 4 as application/dtmf-relay and 2 as
 * application/dtmf, and the assistant is told "The caller pressed 42". Each INFO gets 200; an INFO
 * of another kind gets 415, and the call goes on.
 */
import { afterAll, beforeAll, expect, it } from "vitest";
import type { FakeRealtime } from "../../../../tests/fakes/fake-realtime.ts";
import { startSipLine } from "../../../../tests/fakes/sip-app.ts";
import { startSipp } from "../../../../tests/fakes/sipp.ts";
import { keysByInfo } from "../../../../tests/fakes/sipp-info.ts";
import type { PhoneApp } from "../../../../tests/fakes/twilio-app.ts";
import { closeInOrder } from "../../../../tests/close.ts";

const NUMBER = "+15550166";
let fake: FakeRealtime;
let app: PhoneApp;
let target: string;

beforeAll(async () => {
  ({ fake, app, target } = await startSipLine({ apiKey: "sk-sip-info", number: NUMBER, trunk: { inbound_addresses: ["127.0.0.1"] }, assistant: { keypad_input: true }, rtpPorts: { min: 33000, max: 33999 } }));
});
afterAll(() => closeInOrder(app.app, fake));

it("passes digits sent by SIP INFO (dtmf-relay and dtmf) to the assistant, answering each INFO", async () => {
  fake.script = {};
  const connections = fake.connections.length;
  const sipp = await startSipp({ target, scenario: keysByInfo(2500), args: ["-s", NUMBER], timeoutS: 15 });
  const conn = await fake.connection(connections);
  const pressed = await conn.waitFor("conversation.item.create", 0, 8000);
  expect(JSON.stringify(pressed)).toContain("The caller pressed 42");
  const run = await sipp.done;
  expect(run.code, run.log).toBe(0);
});
