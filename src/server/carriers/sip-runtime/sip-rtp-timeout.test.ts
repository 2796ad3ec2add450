/**
 * A caller whose phone loses its network sends no BYE and no more RTP. With SIPp as that caller
 * (it answers nothing and sends no audio once the call is up), the server hangs up with a BYE after
 * RTP_TIMEOUT_SECONDS, and the record says the connection to the caller was lost.
 */
import { eq } from "drizzle-orm";
import { afterAll, beforeAll, expect, it } from "vitest";
import { PHONE_END_REASONS } from "../../../shared/calls.ts";
import type { FakeRealtime } from "../../../../tests/fakes/fake-realtime.ts";
import { startSipLine, type SipLine } from "../../../../tests/fakes/sip-app.ts";
import { runSipp } from "../../../../tests/fakes/sipp.ts";
import { cdata, ok, placeCall, scenario } from "../../../../tests/fakes/sipp-scenarios.ts";
import type { PhoneApp } from "../../../../tests/fakes/twilio-app.ts";
import { closeInOrder } from "../../../../tests/close.ts";
import { until } from "../../../../tests/until.ts";
import { calls } from "../../db/schema.ts";

const NUMBER = "+15550181";
let fake: FakeRealtime;
let app: PhoneApp;
let line: SipLine;
let target: string;

beforeAll(async () => {
  ({ fake, app, line, target } = await startSipLine({ apiKey: "sk-sip-rtp-timeout", number: NUMBER, trunk: { inbound_addresses: ["127.0.0.0/8"] }, config: { RTP_TIMEOUT_SECONDS: "1" }, rtpPorts: { min: 48000, max: 48999 } }));
});
afterAll(() => closeInOrder(app.app, fake));

/** SIPp calls, then goes silent: no RTP, no BYE; our BYE must come within 8 s (no session timer was asked for). */
const goneSilent = scenario(
  "rtp-gone",
  `${placeCall()}
  <recv request="BYE" timeout="8000"/>
  <send>${cdata(ok)}</send>`,
);

it("hangs up a call whose far end sends no RTP for RTP_TIMEOUT_SECONDS, as a lost connection", async () => {
  const run = await runSipp({ target, scenario: goneSilent, args: ["-s", NUMBER] });
  expect(run.code, run.log).toBe(0);
  const record = await until(
    "the call's record",
    async () => (await app.db.select().from(calls).where(eq(calls.phoneNumberId, line.numberId)))[0],
    (row) => !!row?.endTime,
  );
  expect(record!.endedReason).toBe(PHONE_END_REASONS.connectionLost);
  // The call leaves the live list once its close has settled, a moment after its record is finished.
  await expect.poll(() => app.app.ctx.liveCalls.size).toBe(0);
});
