/**
 * Transfer to a person over SIP when the trunk takes no REFER: the server calls the destination
 * through the trunk, briefs whoever answers in the assistant's voice, and bridges the two calls.
 * Real phones on both sides — baresip calling in (refusing REFER, as such a trunk does) and a
 * second baresip as the person, or SIPp as a destination that is busy — with the fake OpenAI
 * server as the assistant and its speech endpoint. What they notice: the person hears the
 * briefing, then the two hear each other; keys pressed reach the other side; a hang-up on
 * either side ends both calls; nobody answering brings the assistant back; the record says how
 * the call ended.
 */
import { eq } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startBaresip, type Baresip } from "../../../../tests/fakes/baresip.ts";
import { serveSpeech, SPEECH_TONE_HZ } from "../../../../tests/fakes/briefing-speech.ts";
import type { FakeRealtime } from "../../../../tests/fakes/fake-realtime.ts";
import { startSipLine, type SipLine } from "../../../../tests/fakes/sip-app.ts";
import { startSipp } from "../../../../tests/fakes/sipp.ts";
import { refuseWith } from "../../../../tests/fakes/sipp-scenarios.ts";
import type { PhoneApp } from "../../../../tests/fakes/twilio-app.ts";
import { closeInOrder } from "../../../../tests/close.ts";
import { toneShare, toneTimes } from "../../../../tests/tone-share.ts";
import { until } from "../../../../tests/until.ts";
import { HANDOFF_TEXTS, PHONE_END_REASONS, type TranscriptEntry } from "../../../shared/calls.ts";
import { calls } from "../../db/schema.ts";

const NUMBER = "+15550177";
const BILLING = "+15550009999";
const CALLER_HZ = 440;
const AGENT_HZ = 1000;
const SUMMARY = "Ann Lee asks why her March bill is higher than usual.";

let fake: FakeRealtime;
let speech: ReturnType<typeof serveSpeech>;
let app: PhoneApp;
let line: SipLine;
let port: number;

beforeAll(async () => {
  ({ fake, app, line, port } = await startSipLine({
    apiKey: "sk-sip-bridge",
    number: NUMBER,
    trunk: { inbound_addresses: ["127.0.0.0/8"] },
    assistant: { voice: "coral", keypad_input: true, transfer_destinations: [{ label: "Billing", phone_number: BILLING, when_to_use: "Questions about a bill" }] },
    rtpPorts: { min: 45000, max: 47999 },
  }));
  speech = serveSpeech(fake);
});
afterAll(() => closeInOrder(app.app, fake));

const transferReply = { say: "Putting you through to billing.", audioMs: 300, toolCalls: [{ name: "transfer_call", arguments: { destination: "Billing", summary: SUMMARY } }] };

/** The trunk's way out is the destination's own phone (or SIPp playing it). */
const trunkTo = (sipPort: number) => line.updateTrunk({ outbound_uri: `sip:127.0.0.1:${sipPort}`, outbound_username: null, outbound_password: null });

const transcriptOf = (row: { logs: unknown }) => ((row.logs as { transcript?: TranscriptEntry[] } | null)?.transcript ?? []).map((t) => `${t.type}: ${t.content}`);

async function closedRecord(startedAfter: Date) {
  const row = await until(
    "the call's record is closed",
    async () => (await app.db.select().from(calls).where(eq(calls.phoneNumberId, line.numberId))).find((r) => r.startTime >= startedAfter),
    (row) => !!row?.endTime && row.cost !== null,
    20_000,
  );
  return row!;
}

/**
 * baresip calls the SIP number and asks for billing; the trunk's way out is a second baresip, the
 * person, which answers at once (or, `answers: false`, only rings). `run` gets both phones once
 * the person's has answered (or rings).
 */
async function withBridgedCall(run: (phones: { agent: Baresip; caller: Baresip; started: Date }) => Promise<void>, { answers = true, callerCodec = "PCMU" as "PCMU" | "PCMA" } = {}) {
  const agent = await startBaresip({ autoAnswer: answers, user: BILLING, toneHz: AGENT_HZ });
  const caller = await startBaresip({ callTransfer: false, toneHz: CALLER_HZ, codec: callerCodec });
  try {
    await trunkTo(agent.sipPort);
    const started = new Date();
    fake.script = { speechMs: 200, userSays: ["Billing please."], replies: [transferReply] };
    caller.command("dial", `sip:${NUMBER}@127.0.0.1:${port}`);
    await caller.event("CALL_ESTABLISHED");
    await agent.event(answers ? "CALL_ESTABLISHED" : "CALL_INCOMING", 20_000);
    await run({ agent, caller, started });
  } finally {
    await agent.stop();
    await caller.stop();
  }
}

/** Windows where both tones of the ringing (440 and 480 Hz) are heard. */
function ringingWindows(heard: { samples: Int16Array; sampleRate: number }): number {
  const size = Math.round(heard.sampleRate / 10);
  let count = 0;
  for (let at = 0; at + size <= heard.samples.length; at += size) {
    const window = heard.samples.subarray(at, at + size);
    if (toneShare(window, heard.sampleRate, 440) > 0.3 && toneShare(window, heard.sampleRate, 480) > 0.3) count += 1;
  }
  return count;
}

describe("a trunk that refuses REFER: the server calls the person and bridges", () => {
  it("the person hears the briefing, then the two hear each other and keys pass; the person's hang-up ends both calls; the record says how", async () => {
    await withBridgedCall(async ({ agent, caller, started }) => {
      // The session ends once the two are bridged; the calls go on.
      const row = await closedRecord(started);
      expect(row.endedReason).toBe(HANDOFF_TEXTS.transferredTo("Billing"));
      expect(transcriptOf(row)).toContainEqual(expect.stringMatching(/^system: Put through to Billing \(\+15550009999\) after the spoken briefing: this server called them and bridged the call \(the phone system refused REFER: SIP \d{3}/));
      expect(speech.requests.at(-1)).toMatchObject({ model: "gpt-4o-mini-tts", voice: "coral", input: SUMMARY, responseFormat: "pcm" });

      caller.command("sndcode", "7");
      expect((await agent.event("CALL_DTMF_START", 5000)).param).toBe("7");
      // A second of conversation, then the person hangs up.
      await new Promise((r) => setTimeout(r, 1000));
      agent.command("hangup");
      await caller.event("CALL_CLOSED", 5000);

      const agentHeard = (await agent.stop())!;
      const briefing = toneTimes(agentHeard, SPEECH_TONE_HZ);
      const callerVoice = toneTimes(agentHeard, CALLER_HZ);
      expect(briefing.length).toBeGreaterThan(5);
      expect(callerVoice.length).toBeGreaterThan(3);
      // The briefing came first, the caller after it.
      expect(callerVoice.at(-1)!).toBeGreaterThan(briefing.at(-1)!);
      expect(callerVoice.filter((at) => at < briefing[0]!)).toEqual([]);

      // The caller heard ringing while the person was briefed, then the person.
      const callerHeard = (await caller.stop())!;
      expect(ringingWindows(callerHeard)).toBeGreaterThan(5);
      expect(toneTimes(callerHeard, AGENT_HZ).length).toBeGreaterThan(3);
    });
  }, 60_000);

  it("a caller on A-law and a person on µ-law hear each other", async () => {
    await withBridgedCall(
      async ({ agent, caller, started }) => {
        expect((await closedRecord(started)).endedReason).toBe(HANDOFF_TEXTS.transferredTo("Billing"));
        await new Promise((r) => setTimeout(r, 1000));
        caller.command("hangup");
        await agent.event("CALL_CLOSED", 5000);
        expect(toneTimes((await agent.stop())!, CALLER_HZ).length).toBeGreaterThan(3);
        expect(toneTimes((await caller.stop())!, AGENT_HZ).length).toBeGreaterThan(3);
      },
      { callerCodec: "PCMA" },
    );
  }, 60_000);

  it("the caller's hang-up ends the person's call with a BYE", async () => {
    await withBridgedCall(async ({ agent, caller, started }) => {
      await closedRecord(started);
      caller.command("hangup");
      await caller.event("CALL_CLOSED");
      await agent.event("CALL_CLOSED", 5000);
    });
  }, 60_000);

  it("when the briefing cannot be spoken, the person is put through without it", async () => {
    speech.state.failWith = { status: 500, message: "The server had an error while processing your request." };
    try {
      await withBridgedCall(async ({ agent, caller, started }) => {
        expect((await closedRecord(started)).endedReason).toBe(HANDOFF_TEXTS.transferredTo("Billing"));
        await new Promise((r) => setTimeout(r, 1000));
        caller.command("hangup");
        await agent.event("CALL_CLOSED", 5000);
        const agentHeard = (await agent.stop())!;
        expect(toneTimes(agentHeard, SPEECH_TONE_HZ)).toEqual([]);
        expect(toneTimes(agentHeard, CALLER_HZ).length).toBeGreaterThan(3);
      });
    } finally {
      speech.state.failWith = null;
    }
  }, 60_000);

  it("the caller hanging up while the person's phone rings cancels that call; the record says the caller hung up", async () => {
    await withBridgedCall(
      async ({ agent, caller, started }) => {
        caller.command("hangup");
        await caller.event("CALL_CLOSED");
        await agent.event("CALL_CLOSED", 5000);
        expect(agent.events.some((e) => e.type === "CALL_ESTABLISHED")).toBe(false);
        expect((await closedRecord(started)).endedReason).toBe(PHONE_END_REASONS.callerHungUp);
      },
      { answers: false },
    );
  }, 60_000);

  it("a busy destination: the transcript says so, the assistant comes back to the caller, and the call goes on", async () => {
    const sipp = await startSipp({ target: "", scenario: refuseWith("486 Busy Here"), timeoutS: 30 });
    await trunkTo(sipp.port);
    const connections = fake.connections.length;
    const started = new Date();
    fake.script = { speechMs: 200, userSays: ["Billing please."], replies: [transferReply, "Billing is busy. Can I help otherwise?"] };
    const caller = await startBaresip({ callTransfer: false });
    try {
      caller.command("dial", `sip:${NUMBER}@127.0.0.1:${port}`);
      await caller.event("CALL_ESTABLISHED");
      const conn = await fake.connection(connections);
      const told = await until(
        "the assistant is told the transfer failed",
        async () => conn.receivedOf("conversation.item.create").map((e) => JSON.stringify(e)),
        (items) => items.some((i) => i.includes("The transfer to Billing failed")),
        20_000,
      );
      expect(told.length).toBeGreaterThan(0);
      expect((await sipp.done).code).toBe(0);
      // The caller is still with the assistant: the call ends only when they hang up.
      await until("the assistant answers again", async () => conn.sentOf("response.output_audio.done").length, (n) => n >= 2, 20_000);
      caller.command("hangup");
      await caller.event("CALL_CLOSED");
      const row = await closedRecord(started);
      expect(row.endedReason).toBe(PHONE_END_REASONS.callerHungUp);
      expect(transcriptOf(row)).toContain("system: Transfer to Billing failed: the destination was busy (SIP 486)");
    } finally {
      await caller.stop();
    }
  }, 60_000);
});
