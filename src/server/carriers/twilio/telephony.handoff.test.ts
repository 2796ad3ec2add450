import { eq } from "drizzle-orm";
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { startFakeRealtime, type FakeRealtime } from "../../../../tests/fakes/fake-realtime.ts";
import { closeInOrder } from "../../../../tests/close.ts";
import { phoneLine, startPhoneApp, TEST_ACCOUNT_SID, TEST_AUTH_TOKEN, type PhoneApp } from "../../../../tests/fakes/twilio-app.ts";
import { TwilioCaller } from "../../../../tests/fakes/twilio-caller.ts";
import { startFakeTwilioRest, type FakeCall, type FakeTwilioRest } from "../../../../tests/fakes/twilio-rest.ts";
import { mulawSpeech } from "../../../../tests/fakes/twilio-speech.ts";
import { callLogsSchema, HANDOFF_TEXTS } from "../../../shared/calls.ts";
import { calls } from "../../db/schema.ts";

/**
 * Hand-off on phone calls, end to end through real sockets: the simulated Twilio
 * caller (signed webhooks, media stream, marks, dtmf), the fake Twilio REST API receiving the
 * call update, the fake OpenAI Realtime server, the record in the database.
 */

const TO = "+15550111";
const FROM = "+15559877";
const billing = { label: "Billing team", phone_number: "+442071234567", when_to_use: "When the caller disputes a charge" };
const salesQueue = { label: "Sales queue", phone_number: "sips:sales@pbx.example.com", when_to_use: "When the caller wants to buy" };
const summary = "Caller disputes a charge on invoice 42.";
let fake: FakeRealtime;
let rest: FakeTwilioRest;
let app: PhoneApp;
const updates: FakeCall[] = [];

beforeAll(async () => {
  fake = await startFakeRealtime({ apiKey: "sk-handoff-test" });
  rest = await startFakeTwilioRest();
  rest.addAccount({ sid: TEST_ACCOUNT_SID, authToken: TEST_AUTH_TOKEN });
  rest.onTwimlUpdate((c) => updates.push({ ...c }));
  app = await startPhoneApp(fake, { TWILIO_API_BASE: rest.baseUrl });
  await phoneLine(app, fake.apiKey, TO, { first_message: null, transfer_destinations: [billing, salesQueue] });
});
afterAll(() => closeInOrder(app.app, rest, fake));
beforeEach(() => {
  fake.script = {};
  updates.length = 0;
});

async function connectedCall() {
  const index = fake.connections.length;
  const call = await TwilioCaller.dial({ origin: app.origin, authToken: TEST_AUTH_TOKEN, to: TO, from: FROM });
  rest.addCall(TEST_ACCOUNT_SID, { sid: call.callSid, from: FROM, to: TO });
  await call.openStream();
  const conn = await fake.connection(index);
  // Live: the caller's audio reaches the provider only once the call is.
  await call.speak(Buffer.alloc(160, 0xff));
  await conn.waitFor("input_audio_buffer.append");
  return { call, conn };
}

async function records(callSid: string, count = 1, timeoutMs = 8000) {
  for (const started = Date.now(); Date.now() - started < timeoutMs; await new Promise((r) => setTimeout(r, 25))) {
    const rows = await app.db.select().from(calls).where(eq(calls.providerCallSid, callSid)).orderBy(calls.startTime);
    if (rows.length >= count && rows.slice(0, count).every((r) => r.endTime && r.cost !== null)) return rows;
  }
  throw new Error(`call ${callSid}: ${count} finished record(s) expected`);
}

const transferReply = { say: "I'll put you through to our billing team now.", audioMs: 700, toolCalls: [{ name: "transfer_call", arguments: { destination: "Billing team", summary } }] };

describe("transfer_call on a phone call", () => {
  it("after the hand-off sentence was heard, dials the destination with a whisper of the summary; the record ends 'Transferred to Billing team'", async () => {
    fake.script = { speechMs: 800, userSays: ["I want to dispute a charge."], replies: [transferReply] };
    const { call, conn } = await connectedCall();
    await call.speak(mulawSpeech("I want to dispute a charge."), 1000);
    await call.until(() => call.closed !== null, "stream ended by the transfer", 10_000);
    // Not before the sentence had played (marks echoed).
    expect(call.heardMs).toBeGreaterThanOrEqual(700);
    expect(updates).toHaveLength(1);
    const twiml = updates[0]!.twiml!;
    expect(updates[0]!.sid).toBe(call.callSid);
    expect(twiml).toMatch(/<Dial [^>]*action="[^"]*\/telephony\/twilio\/dial-result\?t=/);
    expect(twiml).toMatch(/<Number [^>]*url="[^"]*\/telephony\/twilio\/whisper\?t=[^"]*"[^>]*>\+442071234567<\/Number>/);
    // The caller's turn was answered by server VAD; nothing was asked for after the function output.
    expect(conn.receivedOf("response.create")).toHaveLength(0);

    const [row] = await records(call.callSid);
    expect(row!.endedReason).toBe("Transferred to Billing team");
    const logs = callLogsSchema.parse(row!.logs);
    expect(logs.transcript.filter((e) => e.toolData?.builtIn).map((e) => [e.type, e.content])).toEqual([
      ["tool-request", "Calling built-in function transfer_call"],
      ["tool-response", "Built-in function transfer_call completed"],
    ]);

    // Twilio rings the number; the person answers and hears the summary first; the dial ends.
    const dial = await call.followDial(twiml, "completed");
    expect(dial.number).toBe("+442071234567");
    expect(dial.whisperTwiml).toContain(`<Say>${summary}</Say>`);
    expect(dial.actionStatus).toBe(200);
    expect(call.twiml).toContain("<Hangup/>");
    expect((await records(call.callSid))[0]!.endedReason).toBe("Transferred to Billing team");
  });

  it("dials a PBX's queue given as a SIP address with <Sip> (sips: as TLS), the person hearing the summary first", async () => {
    const toQueue = { ...transferReply, toolCalls: [{ name: "transfer_call", arguments: { destination: "Sales queue", summary } }] };
    fake.script = { speechMs: 800, userSays: ["I want to buy."], replies: [toQueue] };
    const { call } = await connectedCall();
    await call.speak(mulawSpeech("I want to buy."), 1000);
    await call.until(() => call.closed !== null, "stream ended by the transfer", 10_000);
    const twiml = updates[0]!.twiml!;
    expect(twiml).toMatch(/<Sip [^>]*url="[^"]*\/telephony\/twilio\/whisper\?t=[^"]*"[^>]*>sip:sales@pbx\.example\.com;transport=tls<\/Sip>/);
    const dial = await call.followDial(twiml, "completed");
    expect(dial.whisperTwiml).toContain(`<Say>${summary}</Say>`);
    expect((await records(call.callSid))[0]!.endedReason).toBe("Transferred to Sales queue");
  });

  it("no answer: the caller hears a short message and is back with the assistant on a new stream; the record says so", async () => {
    fake.script = { speechMs: 800, userSays: ["Billing please."], replies: [transferReply, "I'm back. How else can I help?"] };
    const { call } = await connectedCall();
    await call.speak(mulawSpeech("Billing please."), 1000);
    await call.until(() => updates.length === 1, "call update", 10_000);
    await records(call.callSid);
    // The caller returned to the assistant: set up again from the dial result's answer.
    const index = fake.connections.length;
    const dial = await call.followDial(updates[0]!.twiml!, "no-answer");
    expect(dial.whisperTwiml).toBeNull();
    expect(call.twiml).toContain(`<Say>${HANDOFF_TEXTS.notAnswered}</Say>`);
    expect(call.twiml).toContain("<Connect><Stream url=");
    const [first] = await records(call.callSid);
    expect(first!.endedReason).toBe("Transfer to Billing team not answered (no-answer); returned to the assistant");

    // The new stream is a call with the assistant again.
    await call.openStream();
    await (await fake.connection(index)).waitFor("session.update");
    await call.hangUp();
    const rows = await records(call.callSid, 2);
    expect(rows[1]!.endedReason).toBe("Caller hung up");
  });

  it("Twilio stopping the stream before answering the update is still the transfer, not a hang-up", async () => {
    fake.script = { speechMs: 800, userSays: ["Billing please."], replies: [transferReply] };
    const { call } = await connectedCall();
    rest.duringNext("callUpdate", () => call.stopStream());
    await call.speak(mulawSpeech("Billing please."), 1000);
    await call.until(() => updates.length === 1, "call update", 10_000);
    const [row] = await records(call.callSid);
    expect(row!.endedReason).toBe("Transferred to Billing team");
  });

  it("Twilio refusing the update: an error line, the assistant is told and goes on with the caller", async () => {
    fake.script = { speechMs: 800, userSays: ["Billing please."], replies: [transferReply, "Sorry, I could not transfer you. Can I help otherwise?"] };
    rest.failNext("callUpdate", { status: 404, code: 20404, message: "The requested resource was not found" });
    const { call, conn } = await connectedCall();
    await call.speak(mulawSpeech("Billing please."), 1000);
    await conn.until(() => conn.receivedOf("response.create").length === 1, 10_000, "the assistant asked to answer");
    const told = conn.receivedOf("conversation.item.create").map((e) => e["item"] as { role?: string; content?: Array<{ text?: string }> });
    expect(told.find((i) => i.role === "system")?.content?.[0]?.text).toContain("The transfer to Billing team failed");
    expect(call.closed).toBeNull();
    await call.hangUp();
    const [row] = await records(call.callSid);
    expect(row!.endedReason).toBe("Caller hung up");
    const logs = callLogsSchema.parse(row!.logs);
    expect(logs.transcript.find((e) => e.type === "system" && e.isError)?.content).toMatch(/^Transfer to Billing team failed: /);
  });

  it("a dial-result or whisper request without our token, or replayed, is refused", async () => {
    fake.script = { speechMs: 800, userSays: ["Billing please."], replies: [transferReply] };
    const { call } = await connectedCall();
    await call.speak(mulawSpeech("Billing please."), 1000);
    await call.until(() => updates.length === 1, "call update", 10_000);
    const twiml = updates[0]!.twiml!;
    await expect(call.followDial(twiml, "completed")).resolves.toMatchObject({ whisperTwiml: expect.stringContaining(summary), actionStatus: 200 });
    // The same requests again (a replay) and a made-up token.
    await expect(call.followDial(twiml, "completed")).resolves.toMatchObject({ whisperTwiml: null, actionStatus: 403 });
    await expect(call.followDial(twiml.replace(/dial-result\?t=[^"]+/, "dial-result?t=forged.token"), "busy")).resolves.toMatchObject({ actionStatus: 403 });
  });
});

describe("end_call on a phone call", () => {
  it("hangs up only once the goodbye was heard (marks), with 'Assistant ended call'", async () => {
    fake.script = { speechMs: 800, userSays: ["That's all, thanks."], replies: [{ say: "Goodbye!", audioMs: 900, toolCalls: [{ name: "end_call", arguments: {} }] }] };
    const { call } = await connectedCall();
    await call.speak(mulawSpeech("That's all, thanks."), 1000);
    await call.until(() => call.closed !== null, "hang-up", 10_000);
    expect(call.heardMs).toBeGreaterThanOrEqual(900);
    expect(call.echoed.length).toBeGreaterThan(0);
    const [row] = await records(call.callSid);
    expect(row!.endedReason).toBe("Assistant ended call");
  });
});

describe("keypad", () => {
  it("sends digits pressed quickly as one user message to the model and the transcript", async () => {
    fake.script = { replies: ["Thanks, account twelve found."] };
    const { call, conn } = await connectedCall();
    call.pressKey("1");
    call.pressKey("2");
    await conn.until(() => conn.receivedOf("response.create").length === 1, 8000, "response to the digits");
    const texts = conn.receivedOf("conversation.item.create").map((e) => (e["item"] as { content?: Array<{ text?: string }> }).content?.[0]?.text);
    expect(texts).toEqual(["The caller pressed 12"]);
    await call.until(() => call.heardMs > 0, "answer heard");
    await call.hangUp();
    const [row] = await records(call.callSid);
    const logs = callLogsSchema.parse(row!.logs);
    expect(logs.transcript.filter((e) => e.type === "user").map((e) => e.content)).toEqual(["The caller pressed 12"]);
  });

  it("keeps keys pressed while the call is still connecting and sends them to the model once it is live", async () => {
    fake.script = { replies: ["Thanks, option four."] };
    const index = fake.connections.length;
    const call = await TwilioCaller.dial({ origin: app.origin, authToken: TEST_AUTH_TOKEN, to: TO, from: FROM });
    rest.addCall(TEST_ACCOUNT_SID, { sid: call.callSid, from: FROM, to: TO });
    await call.openStream();
    // Right behind the stream's start: its checks are still running.
    call.pressKey("4");
    call.pressKey("2");
    const conn = await fake.connection(index);
    await conn.until(() => conn.receivedOf("conversation.item.create").length === 1, 8000, "the digits");
    const texts = conn.receivedOf("conversation.item.create").map((e) => (e["item"] as { content?: Array<{ text?: string }> }).content?.[0]?.text);
    expect(texts).toEqual(["The caller pressed 42"]);
    await call.hangUp();
  });
});
