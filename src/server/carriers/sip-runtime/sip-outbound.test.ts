/**
 * Calls the assistant places over a SIP trunk, end to end through real sockets: POST
 * /api/calls/outbound (and a campaign) with a SIP number, the app's SIP endpoint, and as the far
 * end baresip (a real phone that answers) or SIPp playing the trunk (challenging with 401/407,
 * refusing, accepting or refusing a REFER). What a user sees: the call's record (carrier, SIP
 * Call-ID, how it ended), the campaign contact's outcome, the callee hearing the greeting, and
 * the hand-off to a person.
 */
import { eq } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startBaresip } from "../../../../tests/fakes/baresip.ts";
import type { FakeRealtime } from "../../../../tests/fakes/fake-realtime.ts";
import { startSipLine, type SipLine } from "../../../../tests/fakes/sip-app.ts";
import { startSipp, type SippOptions } from "../../../../tests/fakes/sipp.ts";
import { answerAndAcceptRefer, challengeAnswerHangUp, refuseReferThenDestination, refuseWith } from "../../../../tests/fakes/sipp-scenarios.ts";
import type { PhoneApp } from "../../../../tests/fakes/twilio-app.ts";
import { closeInOrder } from "../../../../tests/close.ts";
import { firstSoundShare } from "../../../../tests/tone-share.ts";
import { until } from "../../../../tests/until.ts";
import type { Campaign, CampaignContactPage } from "../../../shared/campaigns.ts";
import { HANDOFF_TEXTS, PHONE_END_REASONS, type TranscriptEntry } from "../../../shared/calls.ts";
import { OUTBOUND_ENDED } from "../../../shared/outbound.ts";
import { calls } from "../../db/schema.ts";

const NUMBER = "+15550188";
const CALLEE = "+15557654321";
const BILLING = "+15550009999";
let fake: FakeRealtime;
let app: PhoneApp;
let line: SipLine;

beforeAll(async () => {
  ({ fake, app, line } = await startSipLine({
    apiKey: "sk-sip-outbound",
    number: NUMBER,
    config: { JOB_POLL_INTERVAL_MS: "500" },
    assistant: { transfer_destinations: [{ label: "Billing", phone_number: BILLING, when_to_use: "Questions about a bill" }] },
    rtpPorts: { min: 48000, max: 49999 },
  }));
});
afterAll(() => closeInOrder(app.app, fake));

/** The record's transcript, as the Calls page shows it. */
const transcriptOf = (row: { logs: unknown }) => ((row.logs as { transcript?: TranscriptEntry[] } | null)?.transcript ?? []).map((t) => `${t.type}: ${t.content}`);

const api = (method: "GET" | "POST", url: string, payload?: object) => app.app.inject({ method, url, headers: { cookie: line.owner.cookie }, ...(payload ? { payload } : {}) });
const dial = (to = CALLEE) => api("POST", "/api/calls/outbound", { assistant_id: line.assistantId, phone_number_id: line.numberId, to });

async function record(id: string) {
  return until(
    "the call's record is closed",
    async () => (await app.db.select().from(calls).where(eq(calls.id, id)))[0],
    (row) => !!row?.endTime && row.cost !== null,
  );
}

/** The trunk is SIPp on `port`, asking for the trunk's credentials. */
const trunkAt = (port: number, extra: Record<string, unknown> = {}) =>
  line.updateTrunk({ outbound_uri: `sip:127.0.0.1:${port}`, outbound_username: "trunkuser", outbound_password: "s3cret", ...extra });

/** Calls out through a trunk that is SIPp playing `options.scenario`; once SIPp's run has passed, the call's closed record. */
async function callThroughSipp(options: Omit<SippOptions, "target">) {
  const sipp = await startSipp({ target: "", ...options });
  await trunkAt(sipp.port);
  const res = await dial();
  expect(res.statusCode, res.body).toBe(201);
  const run = await sipp.done;
  expect(run.code, run.log).toBe(0);
  return record(res.json().id);
}

describe("placing calls over the trunk", () => {
  it("calls baresip through the trunk: it answers and hears the greeting; its hang-up ends the call, recorded as a SIP call", async () => {
    const phone = await startBaresip({ autoAnswer: true, user: CALLEE });
    try {
      await line.updateTrunk({ outbound_uri: `sip:127.0.0.1:${phone.sipPort}`, outbound_username: null, outbound_password: null });
      const connections = fake.connections.length;
      const res = await dial();
      expect(res.statusCode, res.body).toBe(201);
      expect(res.json()).toMatchObject({ status: "queued", carrier: "sip", twilio_call_sid: null });
      const established = await phone.event("CALL_ESTABLISHED", 10_000);
      expect(established.peeruri).toContain(NUMBER);
      // The assistant hears baresip's 440 Hz sine.
      const conn = await fake.connection(connections);
      await conn.waitFor("input_audio_buffer.append", 30);
      await until("the greeting is out", async () => conn.sentOf("response.output_audio.done").length, (n) => n > 0);
      phone.command("hangup");
      await phone.event("CALL_CLOSED");
      const decoded = (await phone.stop())!;
      expect(firstSoundShare(decoded, 440)).toBeGreaterThan(0.8);

      const row = await record(res.json().id);
      expect(row).toMatchObject({ direction: "outbound", carrier: "sip", callerNumber: NUMBER, calledNumber: CALLEE, assistantId: line.assistantId, endedReason: PHONE_END_REASONS.callerHungUp, providerCallSid: null });
      expect(row.sipCallId).toBeTruthy();
      expect(transcriptOf(row).some((t) => t.startsWith("assistant: "))).toBe(true);
    } finally {
      await phone.stop();
    }
  });

  for (const status of ["401", "407"] as const) {
    it(`answers the trunk's ${status} challenge with the trunk's credentials; the callee's hang-up ends the call`, async () => {
      const row = await callThroughSipp({ scenario: challengeAnswerHangUp(status, 1500), timeoutS: 15 });
      expect(row).toMatchObject({ carrier: "sip", endedReason: PHONE_END_REASONS.callerHungUp });
      expect(row.sipCallId).toBeTruthy();
    });
  }

  it("with wrong credentials the trunk refuses (403): the call failed, with no talk time", async () => {
    const sipp = await startSipp({ target: "", scenario: challengeAnswerHangUp("401", 100) });
    await trunkAt(sipp.port, { outbound_password: "guessed" });
    const res = await dial();
    expect(res.statusCode, res.body).toBe(201);
    expect((await sipp.done).code).toBe(0);
    const row = await record(res.json().id);
    expect(row).toMatchObject({ carrier: "sip", providerStatus: "failed", endedReason: OUTBOUND_ENDED.failed("the call was rejected (SIP 403)"), cost: 0 });
    expect(row.endTime!.getTime() - row.startTime.getTime()).toBeLessThan(60_000);
    expect(transcriptOf(row)).toEqual([]);
  });

  for (const [answer, status, reason] of [
    ["486 Busy Here", "busy", OUTBOUND_ENDED.busy],
    ["480 Temporarily Unavailable", "no-answer", OUTBOUND_ENDED.noAnswer],
    ["603 Decline", "failed", OUTBOUND_ENDED.failed("the call was rejected (SIP 603)")],
    ["404 Not Found", "failed", OUTBOUND_ENDED.failed("the number could not be reached (SIP 404)")],
  ] as const) {
    it(`records a call the trunk answers ${answer} as "${reason}"`, async () => {
      expect(await callThroughSipp({ scenario: refuseWith(answer) })).toMatchObject({ carrier: "sip", providerStatus: status, endedReason: reason, cost: 0 });
    });
  }

  it("refuses a number on the do-not-call list before anything is dialled", async () => {
    await api("POST", "/api/dnc", { phone: "+15557650000" });
    const res = await dial("+15557650000");
    expect(res.statusCode).toBe(409);
    expect(res.json().error.code).toBe("do_not_call");
  });

  it("a campaign from a SIP number records the busy callee as its contact's outcome", async () => {
    // SIPp waits as long as the test waits for the campaign: a dialler slowed by load still finds it there.
    const sipp = await startSipp({ target: "", scenario: refuseWith("486 Busy Here"), timeoutS: 60 });
    await trunkAt(sipp.port);
    const res = await api("POST", "/api/campaigns", {
      name: "SIP reminders",
      assistant_id: line.assistantId,
      phone_number_id: line.numberId,
      contacts_csv: `phone\n${CALLEE}`,
      max_concurrent_calls: 1,
      schedule: { timezone: "UTC", windows: [{ days: [1, 2, 3, 4, 5, 6, 7], start: "00:00", end: "23:59" }] },
      retry: { max_attempts: 1, delay_seconds: 60, on: [] },
    });
    expect(res.statusCode, res.body).toBe(201);
    const id = res.json().id as string;
    expect((await api("POST", `/api/campaigns/${id}/start`)).statusCode).toBe(200);
    await until("the campaign completes", async () => (await api("GET", `/api/campaigns/${id}`)).json() as Campaign, (c) => c.status === "completed", 60_000);
    expect((await sipp.done).code).toBe(0);
    const contacts = (await api("GET", `/api/campaigns/${id}/contacts`)).json() as CampaignContactPage;
    expect(contacts.data[0]).toMatchObject({ phone: CALLEE, last_outcome: "busy" });
    const [row] = await app.db.select().from(calls).where(eq(calls.id, contacts.data[0]!.call_id!));
    expect(row).toMatchObject({ carrier: "sip", campaignId: id, endedReason: OUTBOUND_ENDED.busy });
  }, 90_000);
});

describe("transfer to a person: REFER, or a call to the destination bridged", () => {
  const transferReply = { say: "Putting you through to billing.", audioMs: 300, toolCalls: [{ name: "transfer_call", arguments: { destination: "Billing", summary: "A question about a bill." } }] };

  it("asks the trunk to transfer the callee to the destination; accepted and connected, the call ends transferred", async () => {
    fake.script = { speechMs: 200, userSays: ["Billing please."], replies: [transferReply] };
    const row = await callThroughSipp({ scenario: answerAndAcceptRefer(`sip:${BILLING}@127.0.0.1`), timeoutS: 25, args: ["-rtp_echo"] });
    expect(row).toMatchObject({ carrier: "sip", endedReason: HANDOFF_TEXTS.transferredTo("Billing") });
    expect(transcriptOf(row)).toContain(`system: ${HANDOFF_TEXTS.referredTo("Billing", BILLING)}`);
  }, 40_000);

  it("when the trunk refuses the REFER, the server calls the destination through the trunk itself; busy there, the record says so and the assistant goes on with the callee", async () => {
    fake.script = { speechMs: 200, userSays: ["Billing please."], replies: [transferReply, "Sorry, billing is busy. Can I help otherwise?"] };
    const row = await callThroughSipp({ scenario: refuseReferThenDestination("405 Method Not Allowed", BILLING, "486 Busy Here", 4000), timeoutS: 25, args: ["-rtp_echo"], calls: 2 });
    expect(row).toMatchObject({ carrier: "sip", endedReason: PHONE_END_REASONS.callerHungUp });
    expect(transcriptOf(row)).toContain("system: Transfer to Billing failed: the destination was busy (SIP 486)");
  }, 40_000);
});
