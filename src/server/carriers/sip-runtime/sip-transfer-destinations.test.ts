/**
 * Where a SIP call can be transferred, and how, with SIPp as the trunk of a call the assistant
 * placed: a PBX's queue given as a SIP address is handed to the trunk by REFER as written; when
 * the trunk refuses REFER the server calls it through the trunk only when it is on the trunk's
 * host (never an arbitrary host); a trunk set to bridge is never sent a REFER. What the trunk
 * notices (SIPp exits 0 only when every message came as its scenario says) and what the call's
 * record says.
 */
import { eq } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startFakeRealtime, type FakeRealtime } from "../../../../tests/fakes/fake-realtime.ts";
import { sipLine, startSip } from "../../../../tests/fakes/sip-app.ts";
import { startSipp } from "../../../../tests/fakes/sipp.ts";
import { answerAndAcceptRefer, bridgedWithoutRefer, refuseReferThenDestination } from "../../../../tests/fakes/sipp-scenarios.ts";
import { startPhoneApp, type PhoneApp } from "../../../../tests/fakes/twilio-app.ts";
import { closeInOrder } from "../../../../tests/close.ts";
import { until } from "../../../../tests/until.ts";
import { HANDOFF_TEXTS, PHONE_END_REASONS, type TranscriptEntry } from "../../../shared/calls.ts";
import { calls } from "../../db/schema.ts";

const NUMBER = "+15550199";
const CALLEE = "+15557650000";
const BILLING = "+15550009999";
/** A queue on another host than the trunk's: REFER may hand the call there, this server never calls it. */
const SALES = "sip:sales@pbx.example.com";
/** A queue on the trunk's own host (127.0.0.1): the server may call it through the trunk. */
const QUEUE = "sip:queue@127.0.0.1";
let fake: FakeRealtime;
let app: PhoneApp;
let line: Awaited<ReturnType<typeof sipLine>>;

beforeAll(async () => {
  fake = await startFakeRealtime({ apiKey: "sk-sip-destinations" });
  app = await startPhoneApp(fake);
  line = await sipLine(app, fake.apiKey, NUMBER, {}, {
    transfer_destinations: [
      { label: "Billing", phone_number: BILLING, when_to_use: "Questions about a bill" },
      { label: "Sales", phone_number: SALES, when_to_use: "Buying" },
      { label: "Queue", phone_number: QUEUE, when_to_use: "Anything else" },
    ],
  });
  await startSip(app, { min: 50000, max: 51999 });
});
afterAll(() => closeInOrder(app.app, fake));

const transcriptOf = (row: { logs: unknown }) => ((row.logs as { transcript?: TranscriptEntry[] } | null)?.transcript ?? []).map((t) => `${t.type}: ${t.content}`);

const transferTo = (label: string) => ({ say: "Putting you through.", audioMs: 300, toolCalls: [{ name: "transfer_call", arguments: { destination: label, summary: "A question." } }] });

/** The assistant calls CALLEE through SIPp (the trunk on `port`); resolves with the call's closed record once SIPp is done. */
async function callThrough(port: number, sippDone: Promise<{ code: number | null; log: string }>, trunk: Record<string, unknown> = {}) {
  await line.updateTrunk({ outbound_uri: `sip:127.0.0.1:${port}`, outbound_username: null, outbound_password: null, transfer_method: "refer", ...trunk });
  const res = await app.app.inject({ method: "POST", url: "/api/calls/outbound", headers: { cookie: line.owner.cookie }, payload: { assistant_id: line.assistantId, phone_number_id: line.numberId, to: CALLEE } });
  expect(res.statusCode, res.body).toBe(201);
  const run = await sippDone;
  expect(run.code, run.log).toBe(0);
  const id = res.json().id as string;
  return until(
    "the call's record is closed",
    async () => (await app.db.select().from(calls).where(eq(calls.id, id)))[0],
    (row) => !!row?.endTime && row.cost !== null,
  );
}

describe("transfer destinations that are SIP addresses", () => {
  it("hands a PBX's queue to the trunk by REFER, the address as written in Refer-To", async () => {
    fake.script = { speechMs: 200, userSays: ["Sales please."], replies: [transferTo("Sales")] };
    const sipp = await startSipp({ target: "", scenario: answerAndAcceptRefer(SALES), timeoutS: 25, args: ["-rtp_echo"] });
    const row = await callThrough(sipp.port, sipp.done);
    expect(row).toMatchObject({ carrier: "sip", endedReason: HANDOFF_TEXTS.transferredTo("Sales") });
    expect(transcriptOf(row)).toContain(`system: ${HANDOFF_TEXTS.referredTo("Sales", SALES)}`);
  }, 40_000);

  it("when the trunk refuses REFER, calls a queue on the trunk's host through the trunk; busy there, the record says so", async () => {
    fake.script = { speechMs: 200, userSays: ["The queue please."], replies: [transferTo("Queue"), "The queue is busy. Anything else?"] };
    const sipp = await startSipp({ target: "", scenario: refuseReferThenDestination("405 Method Not Allowed", "queue", "486 Busy Here", 4000), timeoutS: 25, args: ["-rtp_echo"], calls: 2 });
    const row = await callThrough(sipp.port, sipp.done);
    expect(row).toMatchObject({ endedReason: PHONE_END_REASONS.callerHungUp });
    expect(transcriptOf(row)).toContain("system: Transfer to Queue failed: the destination was busy (SIP 486)");
  }, 40_000);

  it("never calls a SIP address on another host than the trunk's: the REFER's refusal stands, and the call goes on", async () => {
    fake.script = { speechMs: 200, userSays: ["Sales please."], replies: [transferTo("Sales"), "Sales cannot be reached. Anything else?"] };
    // One call only: the assistant's. The destination's would be a second INVITE, to another host.
    const sipp = await startSipp({ target: "", scenario: refuseReferThenDestination("405 Method Not Allowed", "sales", "200 OK", 4000), timeoutS: 25, args: ["-rtp_echo"] });
    const row = await callThrough(sipp.port, sipp.done);
    expect(row).toMatchObject({ endedReason: PHONE_END_REASONS.callerHungUp });
    expect(transcriptOf(row)).toContainEqual(expect.stringMatching(/^system: Transfer to Sales failed: the phone system refused the transfer \(SIP 405[^)]*\); sip:sales@pbx\.example\.com is not on this call's trunk/));
  }, 40_000);
});

describe("a trunk set to bridge transfers", () => {
  it("is never sent a REFER: the server calls the destination through it", async () => {
    fake.script = { speechMs: 200, userSays: ["Billing please."], replies: [transferTo("Billing"), "Billing is busy. Anything else?"] };
    const sipp = await startSipp({ target: "", scenario: bridgedWithoutRefer(BILLING, "486 Busy Here", 4000), timeoutS: 25, args: ["-rtp_echo"], calls: 2 });
    const row = await callThrough(sipp.port, sipp.done, { transfer_method: "bridge" });
    expect(row).toMatchObject({ endedReason: PHONE_END_REASONS.callerHungUp });
    expect(transcriptOf(row)).toContain("system: Transfer to Billing failed: the destination was busy (SIP 486)");
  }, 40_000);
});
