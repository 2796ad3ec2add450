/**
 * Answering machines on calls placed over a SIP trunk: POST /api/calls/outbound through the app's
 * SIP endpoint to baresip, which answers and plays what a callee's phone would — an answering
 * machine's greeting and beep, or a person's "Hello?" — from a WAV. What the user notices: the
 * machine gets the assistant's voicemail message after the beep (or a hang-up), the record ends
 * "Voicemail" and says who answered; a person talks with the assistant as usual.
 */
import { eq } from "drizzle-orm";
import { afterAll, beforeAll, expect, it } from "vitest";
import { calleeAudio, machineGreetingSeconds } from "../../../../tests/fakes/answering-machine-audio.ts";
import { startBaresip, type Baresip } from "../../../../tests/fakes/baresip.ts";
import { serveSpeech, SPEECH_TONE_HZ } from "../../../../tests/fakes/briefing-speech.ts";
import type { FakeRealtime } from "../../../../tests/fakes/fake-realtime.ts";
import { createAssistant } from "../../../../tests/fakes/realtime-app.ts";
import { startSipLine, type SipLine } from "../../../../tests/fakes/sip-app.ts";
import type { PhoneApp } from "../../../../tests/fakes/twilio-app.ts";
import { closeInOrder } from "../../../../tests/close.ts";
import { toneTimes } from "../../../../tests/tone-share.ts";
import { until } from "../../../../tests/until.ts";
import { PHONE_END_REASONS } from "../../../shared/calls.ts";
import { OUTBOUND_ENDED } from "../../../shared/outbound.ts";
import { calls } from "../../db/schema.ts";

const NUMBER = "+15550166";
const CALLEE = "+15557650123";
let fake: FakeRealtime;
let speech: ReturnType<typeof serveSpeech>;
let app: PhoneApp;
let line: SipLine;
let leavesMessage: string;
let hangsUp: string;

beforeAll(async () => {
  ({ fake, app, line } = await startSipLine({ apiKey: "sk-sip-voicemail", number: NUMBER, rtpPorts: { min: 43000, max: 43999 } }));
  speech = serveSpeech(fake);
  leavesMessage = (await createAssistant(app.app, line.owner, { name: "Reminders", voice: "sage", voicemail: { action: "leave_message", message: "Hi {{first_name}}, your order is ready. Call us back." } })).id;
  hangsUp = (await createAssistant(app.app, line.owner, { name: "Survey", voicemail: { action: "hang_up" } })).id;
});
afterAll(() => closeInOrder(app.app, fake));

/**
 * Calls baresip (playing `kind`'s audio) with `assistantId`, and gives `run` the phone once it has
 * answered, with the call's record id.
 */
async function callCallee(kind: "machine" | "person", assistantId: string, run: (callee: Baresip, id: string) => Promise<void>) {
  const callee = await startBaresip({ autoAnswer: true, user: CALLEE, audioFile: calleeAudio(kind) });
  try {
    await line.updateTrunk({ outbound_uri: `sip:127.0.0.1:${callee.sipPort}` });
    const res = await app.app.inject({ method: "POST", url: "/api/calls/outbound", headers: { cookie: line.owner.cookie }, payload: { assistant_id: assistantId, phone_number_id: line.numberId, to: CALLEE, variables: { first_name: "Ann" } } });
    expect(res.statusCode, res.body).toBe(201);
    await callee.event("CALL_ESTABLISHED", 10_000);
    await run(callee, res.json().id as string);
  } finally {
    await callee.stop();
  }
}

const recordOf = async (id: string) => (await app.db.select().from(calls).where(eq(calls.id, id)))[0];

async function closedRecord(id: string) {
  const row = await until("the call's record is closed", () => recordOf(id), (r) => !!r?.endTime && r.cost !== null, 40_000);
  return row!;
}

it("a machine gets the assistant's message after the beep, in the assistant's voice, then our hang-up; the record ends Voicemail", async () => {
  // The assistant answers the greeting at length, as a model taking it for a person would.
  fake.script = { speechMs: 1000, userSays: ["Hi, you have reached Ann Lee."], replies: [{ say: "Hello Ann! I am calling about your order.", audioMs: 10_000 }] };
  const requests = speech.requests.length;
  await callCallee("machine", leavesMessage, async (machine, id) => {
    // The message is spoken, then we hang up: the machine sees our BYE.
    await machine.event("CALL_CLOSED", 30_000);
    expect(speech.requests.slice(requests)).toEqual([expect.objectContaining({ voice: "sage", input: "Hi Ann, your order is ready. Call us back." })]);
    expect(await closedRecord(id)).toMatchObject({ carrier: "sip", endedReason: OUTBOUND_ENDED.voicemail, answeredBy: "machine_end_beep" });
    // What the machine recorded holds the message (the fake voice speaks a 660 Hz tone), after
    // its greeting and beep; the assistant (a 440 Hz tone, 10 s of it asked for) fell silent
    // before the message, not talking over it. (When it fell silent depends on the machine's load.)
    const recorded = (await machine.stop())!;
    const message = toneTimes(recorded, SPEECH_TONE_HZ);
    expect(message.length).toBeGreaterThan(10);
    expect(message[0]!).toBeGreaterThan(machineGreetingSeconds());
    expect(toneTimes(recorded, 440).filter((t) => t >= message[0]!)).toEqual([]);
  });
}, 60_000);

it("with Hang up, a machine gets our BYE once its greeting is over, and no message", async () => {
  fake.script = {};
  const requests = speech.requests.length;
  await callCallee("machine", hangsUp, async (machine, id) => {
    await machine.event("CALL_CLOSED", 30_000);
    expect(await closedRecord(id)).toMatchObject({ endedReason: OUTBOUND_ENDED.voicemail, answeredBy: "machine_end_beep" });
    expect(speech.requests.length).toBe(requests);
  });
}, 60_000);

it("a machine that hangs up during its greeting still ends the record as Voicemail", async () => {
  fake.script = {};
  await callCallee("machine", leavesMessage, async (machine, id) => {
    await until("a machine is heard", async () => (await recordOf(id))?.answeredBy, (a) => a === "machine_start");
    machine.command("hangup");
    await machine.event("CALL_CLOSED");
    expect(await closedRecord(id)).toMatchObject({ endedReason: OUTBOUND_ENDED.voicemail, answeredBy: "machine_start" });
  });
}, 60_000);

it("a person who says hello talks with the assistant; the record says a human answered and ends as the call does", async () => {
  fake.script = {};
  const connections = fake.connections.length;
  await callCallee("person", leavesMessage, async (person, id) => {
    await until("a human is recorded", async () => (await recordOf(id))?.answeredBy, (a) => a === "human");
    const conn = await fake.connection(connections);
    await until("the assistant has spoken", async () => conn.sentOf("response.output_audio.done").length, (n) => n > 0);
    person.command("hangup");
    await person.event("CALL_CLOSED");
    expect(await closedRecord(id)).toMatchObject({ endedReason: PHONE_END_REASONS.callerHungUp, answeredBy: "human" });
  });
}, 60_000);
