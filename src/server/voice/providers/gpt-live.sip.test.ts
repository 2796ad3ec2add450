/**
 * A SIP call on a GPT-Live assistant, end to end: baresip, a real SIP phone, calls the app's SIP
 * endpoint (RTP both ways) and plays the caller's turns (speech and quiet, a WAV); the stand-in
 * GPT-Live hears a line per burst of speech. The question runs a tool by delegation, the second
 * line talks over the answer, the third asks for billing: a REFER to baresip, which calls the
 * person (a second baresip) itself.
 */
import { beforeAll, describe, expect, it } from "vitest";
import { createOrderLookup, GREETING, setUpGptLivePhone, expectWholeCallRecord } from "../../../../tests/fakes/pipeline-phone.ts";
import { createAssistant } from "../../../../tests/fakes/realtime-app.ts";
import { addSipNumber, startSip } from "../../../../tests/fakes/sip-app.ts";
import { callerTurns, closedSipRecord, heardSpeechMs, withCallerAndPerson } from "../../../../tests/fakes/sip-engine-call.ts";
import { until } from "../../../../tests/until.ts";
import { callRecordSchema } from "../../../shared/call-records.ts";
import { HANDOFF_TEXTS } from "../../../shared/calls.ts";

const NUMBER = "+15550411";
const MS_PER_WORD = 200;
const ANSWER =
  "Your order forty two left our warehouse on Monday morning, it is with the courier now and should reach you on Thursday, and you will get a text message with a tracking link before it arrives.";
const words = (text: string) => text.split(" ").length;

const phone = setUpGptLivePhone(MS_PER_WORD);
let port: number;

beforeAll(async () => {
  port = await startSip(phone.line.app, { min: 56000, max: 57999 });
});

describe("a SIP call on a GPT-Live assistant", () => {
  it("greets, hears the caller, runs a tool, stops its RTP when interrupted, transfers by REFER, and keeps the record", async () => {
    // The caller: quiet through the greeting, the question, quiet into the answer, "Wait, stop.", then the transfer.
    const turns = callerTurns("gpt-live-sip", [2.6, 0.8, 1.8, 0.8, 2.4, 0.8, 30]);
    await withCallerAndPerson(turns, async ({ caller, person, personAddress: billing }) => {
      const tool = await createOrderLookup(phone.line, phone.upstream.origin);
      const assistant = await createAssistant(phone.line.app.app, phone.line.owner, {
        voice_engine: { type: "gpt-live", model: "gpt-live-1", voice: "cinder" },
        tool_ids: [tool.id],
        transfer_destinations: [{ label: "Billing", phone_number: billing, when_to_use: "Questions about a bill" }],
      });
      const { numberId } = await addSipNumber(phone.line.app, phone.line.owner, NUMBER, { inbound_addresses: ["127.0.0.0/8"] }, assistant.id);
      phone.live.script = {
        msPerWord: MS_PER_WORD,
        userSays: ["Where is my order 42?", "Wait, stop.", "Put me through to billing."],
        replies: [
          { call: { name: "Lookup_Order", arguments: { order_id: "42" } }, after: ANSWER },
          { say: "Sure, go ahead." },
          { say: "Putting you through.", call: { name: "transfer_call", arguments: { destination: "Billing", summary: "A question about a bill." } }, after: "" },
        ],
      };
      const connections = phone.live.connections.length;
      caller.command("dial", `sip:${NUMBER}@127.0.0.1:${port}`);
      await caller.event("CALL_ESTABLISHED");
      const conn = await phone.live.connection(connections);
      await conn.waitFor("session.start");
      expect(phone.line.realtime.connections).toHaveLength(0);

      // The question runs the tool by delegation; its output goes back; the answer is spoken.
      await until("the answer spoken", async () => conn.spoken.includes(ANSWER), Boolean, 15_000);
      expect(phone.upstream.requests.map((r) => [r.path, r.query])).toEqual([["/orders", { order_id: "42" }]]);

      // The person's phone rings through baresip's own call (the REFER), answers, and our leg ends.
      await person.event("CALL_ESTABLISHED", 30_000);
      await caller.event("CALL_CLOSED", 15_000);
      const row = await closedSipRecord(phone.line.app, numberId);
      expect(row).toMatchObject({ carrier: "sip", assistantId: assistant.id, endedReason: HANDOFF_TEXTS.transferredTo("Billing") });
      expect(row.cost).toBeGreaterThan(0);

      // What baresip heard from us: the greeting, then the answer cut short by "Wait, stop.".
      const heard = (await caller.stop())!;
      const heardMs = heardSpeechMs(heard);
      expect(heardMs).toBeGreaterThanOrEqual(words(GREETING) * MS_PER_WORD - 300);
      expect(heardMs).toBeLessThan((words(GREETING) + words(ANSWER)) * MS_PER_WORD);

      const logs = expectWholeCallRecord(row, [
        ["user", "Wait, stop."],
        ["assistant", "Sure, go ahead."],
        ["user", "Put me through to billing."],
        ["system", HANDOFF_TEXTS.referredTo("Billing", billing)],
      ]);
      expect(logs.transcript.find((e) => e.content.startsWith("Your order forty two"))?.interruptedAtMs).toBeDefined();

      // GPT-Live's usage: the session seconds its session.closed reported, unpriced (no price is published).
      expect(conn.reportedSeconds).toBeGreaterThan(0);
      const page = await phone.line.app.app.inject({ method: "GET", url: `/api/calls/${row.id}`, headers: { cookie: phone.line.owner.cookie } });
      expect(callRecordSchema.parse(page.json()).provider_cost).toEqual({
        total: null,
        lines: [{ model: "gpt-live-1", kind: "realtime", text_in: 0, text_cached: 0, audio_in: 0, audio_cached: 0, text_out: 0, audio_out: 0, seconds: conn.reportedSeconds, cost: null }],
      });
    });
  }, 90_000);
});
