/**
 * A call a transfer bridged on this server is a call the instance carries: it takes one of the
 * MAX_CALLS lines until it ends. baresip calls in (refusing REFER, as a trunk without transfer
 * does) and is put through to a second baresip, the person; while the two talk, SIPp as another
 * caller is refused at once with 503 and Retry-After, as when every line is taken; once they hang
 * up, the line is free again. The live board shows the call bridged, to whom, until then.
 */
import { eq } from "drizzle-orm";
import { afterAll, beforeAll, expect, it } from "vitest";
import { startBaresip } from "../../../../tests/fakes/baresip.ts";
import { serveSpeech } from "../../../../tests/fakes/briefing-speech.ts";
import { startFakeRealtime, type FakeRealtime } from "../../../../tests/fakes/fake-realtime.ts";
import { openBoard } from "../../../../tests/fakes/live-supervisor.ts";
import { sipLine, startSip } from "../../../../tests/fakes/sip-app.ts";
import { runSipp } from "../../../../tests/fakes/sipp.ts";
import { refusedWith } from "../../../../tests/fakes/sipp-scenarios.ts";
import { startPhoneApp, type PhoneApp } from "../../../../tests/fakes/twilio-app.ts";
import { closeInOrder } from "../../../../tests/close.ts";
import { until } from "../../../../tests/until.ts";
import { HANDOFF_TEXTS } from "../../../shared/calls.ts";
import { calls } from "../../db/schema.ts";

const NUMBER = "+15550166";
const BILLING = "+15550008888";
let fake: FakeRealtime;
let app: PhoneApp;
let line: Awaited<ReturnType<typeof sipLine>>;
let port: number;

beforeAll(async () => {
  fake = await startFakeRealtime({ apiKey: "sk-sip-bridged-capacity" });
  serveSpeech(fake);
  // One line: the bridged call alone fills the server.
  app = await startPhoneApp(fake, { MAX_CALLS: "1" });
  line = await sipLine(app, fake.apiKey, NUMBER, { inbound_addresses: ["127.0.0.0/8"] }, {
    transfer_destinations: [{ label: "Billing", phone_number: BILLING, when_to_use: "Questions about a bill" }],
  });
  port = await startSip(app, { min: 52000, max: 53999 });
});
afterAll(() => closeInOrder(app.app, fake));

it("a bridged call takes a line: another caller gets 503 with Retry-After until the two hang up; the board shows it bridged meanwhile", async () => {
  const agent = await startBaresip({ autoAnswer: true, user: BILLING });
  const caller = await startBaresip({ callTransfer: false });
  const board = await openBoard(app.origin.replace(/^http/, "ws"), { cookie: line.owner.cookie });
  try {
    await line.updateTrunk({ outbound_uri: `sip:127.0.0.1:${agent.sipPort}`, outbound_username: null, outbound_password: null });
    const started = new Date();
    fake.script = { speechMs: 200, userSays: ["Billing please."], replies: [{ say: "Putting you through.", audioMs: 300, toolCalls: [{ name: "transfer_call", arguments: { destination: "Billing", summary: "A bill." } }] }] };
    caller.command("dial", `sip:${NUMBER}@127.0.0.1:${port}`);
    await caller.event("CALL_ESTABLISHED");
    await agent.event("CALL_ESTABLISHED", 20_000);
    // The assistant's session has ended (its record closed): the two are bridged, and talk on.
    await until(
      "the call's record is closed as transferred",
      async () => (await app.db.select().from(calls).where(eq(calls.phoneNumberId, line.numberId))).find((r) => r.startTime >= started),
      (row) => row?.endedReason === HANDOFF_TEXTS.transferredTo("Billing"),
      20_000,
    );

    // The board, which showed the assistant's call, shows it bridged: to whom, with what was last said.
    await board.until(() => board.of("call_updated").some((m) => m.call.bridgedTo !== null), "the call shown bridged", 20_000);
    const bridged = board.of("call_updated").find((m) => m.call.bridgedTo !== null)!.call;
    expect(bridged).toMatchObject({ kind: "phone", calledNumber: NUMBER, bridgedTo: `Billing (${BILLING})`, takenOverBy: null });
    const assistantLine = board.of("call_updated").find((m) => m.call.bridgedTo === null)!.call;
    expect(bridged.callId).toBe(assistantLine.callId);
    // A board opened now has it in its snapshot.
    const late = await openBoard(app.origin.replace(/^http/, "ws"), { cookie: line.owner.cookie });
    expect((await late.next("calls")).calls).toEqual([expect.objectContaining({ callId: bridged.callId, bridgedTo: `Billing (${BILLING})` })]);
    late.close();

    const refused = await runSipp({ target: `127.0.0.1:${port}`, scenario: refusedWith("503", "Retry-After"), args: ["-s", NUMBER] });
    expect(refused.code, refused.log).toBe(0);

    agent.command("hangup");
    await caller.event("CALL_CLOSED", 5000);
    // Off the board once both have hung up: its removal is the last word on it.
    await board.until(() => board.messages.at(-1)?.type === "call_removed", "the bridged call removed", 10_000);
    expect(board.of("call_removed").at(-1)!.callId).toBe(bridged.callId);
  } finally {
    board.close();
    await agent.stop();
    await caller.stop();
  }
  // The bridge has ended: its line is free for the next caller.
  await until("a free line", async () => app.app.ctx.liveCalls.hasRoom, (free) => free);
}, 60_000);
