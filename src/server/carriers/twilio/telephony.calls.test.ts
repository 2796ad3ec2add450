import { eq } from "drizzle-orm";
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { createTool } from "../../../../tests/fakes/realtime-app.ts";
import { interruptedOrderScript, orderLookupTool, startToolUpstream, type ToolUpstream } from "../../../../tests/fakes/tool-upstream.ts";
import { insertPhoneNumber, setUpTwilioLine } from "../../../../tests/fakes/twilio-app.ts";
import type { DialOptions } from "../../../../tests/fakes/twilio-caller.ts";
import { mulawSpeech } from "../../../../tests/fakes/twilio-speech.ts";
import { callLogsSchema, PHONE_UNAVAILABLE_MESSAGE } from "../../../shared/calls.ts";
import { calls } from "../../db/schema.ts";
import { HEARD_MARGIN_MS } from "../../voice/playback.ts";
import { MARK_EVERY_MS } from "../../voice/transports/twilio.ts";

/**
 * Phone calls end to end through real sockets: a simulated Twilio (signed webhooks, a media
 * stream with µ-law frames and marks) calling the real app, the call engine on the fake
 * OpenAI Realtime server, tools on a real local upstream, the record in the database.
 */

const TO = "+15550100";
const FROM = "+15559876";
let upstream: ToolUpstream;
beforeAll(async () => {
  upstream = await startToolUpstream();
});
afterAll(() => upstream.close());
const line = setUpTwilioLine({
  apiKey: "sk-phone-test",
  number: TO,
  assistant: async (app, owner) => ({ tool_ids: [(await createTool(app.app, owner, orderLookupTool(upstream.origin))).id] }),
});
beforeEach(() => {
  line.fake.script = {};
});

const dial = (options: Partial<DialOptions> = {}) => line.dial(FROM, options);

async function recordsOf(callSid: string) {
  return line.app.db.select().from(calls).where(eq(calls.providerCallSid, callSid));
}

async function finishedRecord(callSid: string, timeoutMs = 5000) {
  for (const started = Date.now(); Date.now() - started < timeoutMs; await new Promise((r) => setTimeout(r, 20))) {
    const [row] = await recordsOf(callSid);
    if (row?.endTime && row.cost !== null) return row;
  }
  throw new Error(`call ${callSid} was not finalised`);
}

describe("a phone call", () => {
  it("answers, greets first, runs a tool, is interrupted during the tool answer (clear, cancel, truncate at what was heard), and leaves a Real call record", async () => {
    line.fake.script = interruptedOrderScript("Okay.");
    const index = line.fake.connections.length;
    const call = await dial();
    expect(call.webhookStatus).toBe(200);
    expect(call.twiml).toContain("<Connect><Stream url=");
    const stream = call.stream()!;
    // The stream URL is PUBLIC_URL's, as ws(s); the token travels only as a <Parameter>.
    expect(stream.url).toBe(`${line.app.origin.replace("http", "ws")}/telephony/twilio/media`);
    expect(Object.keys(stream.parameters)).toEqual(["token"]);

    await call.openStream();
    const conn = await line.fake.connection(index);
    const update = await conn.waitFor("session.update");
    expect(update["session"]).toMatchObject({ audio: { input: { format: { type: "audio/pcmu" } }, output: { format: { type: "audio/pcmu" } } } });

    // The first message, heard in full (400 ms of µ-law, untouched).
    await call.until(() => call.receivedBytes >= 400 * 8 && call.heardMs >= 400, "greeting heard");
    const greeting = conn.sentOf("response.output_audio.delta")[0]!;
    expect(conn.receivedOf("response.create")[0]).toMatchObject({ response: { instructions: expect.stringContaining("Hello, this is Ava.") } });

    // The caller asks (real speech, 20 ms frames): the filler, then the tool, then its answer.
    await call.speak(mulawSpeech("Where is my order forty two?"), 1000);
    await conn.until(() => conn.receivedOf("conversation.item.create").length > 0, 8000, "tool output");
    expect(upstream.requests.map((r) => [r.path, r.query])).toEqual([["/orders", { order_id: "42" }]]);
    const assistantItems = () => conn.items.filter((i) => i.role === "assistant").map((i) => i.id);
    await conn.until(() => assistantItems().length === 3, 5000, "answer item");
    const [greetingItem, fillerItem, answerItem] = assistantItems();
    expect(greetingItem).toBe(greeting["item_id"]);
    // Let the caller hear the filler and about a second of the answer, then interrupt.
    await call.until(() => call.heardMs >= 400 + 800 + 700, "answer playing", 10_000);
    // (Every speech start clears Twilio's queue, even with nothing left to play: the first turn did too.)
    const clearsBefore = call.clears;
    expect(clearsBefore).toBe(1);
    const heardBeforeSpeaking = call.heardMs - 400 - 800;
    await call.speak(mulawSpeech("Wait, stop."), 1000);
    await call.until(() => call.clears > clearsBefore, "clear");
    const truncate = await conn.waitFor("conversation.item.truncate");
    await conn.waitFor("response.cancel");
    // The item cut is the one being heard (the answer, not the filler heard in full), at what was heard
    // of it: no earlier than when the caller spoke (less a mark's spacing), no later than the
    // clear's arrival plus the heard margin (a loaded machine delays the clear, not the cut).
    const heardAtClear = call.heardAtClear.at(-1)! - 400 - 800;
    expect(truncate["item_id"]).toBe(answerItem);
    expect(truncate["item_id"]).not.toBe(fillerItem);
    expect(truncate["audio_end_ms"]).toBeGreaterThanOrEqual(heardBeforeSpeaking - MARK_EVERY_MS);
    expect(truncate["audio_end_ms"]).toBeLessThanOrEqual(heardAtClear + HEARD_MARGIN_MS + 1);
    expect(conn.receivedOf("conversation.item.truncate")).toHaveLength(1);
    await conn.waitForSent("conversation.item.truncated");
    expect(conn.errorCodes()).toEqual([]);

    // The reply to the interruption, then the caller hangs up.
    await conn.until(() => conn.sentOf("response.done").length >= 4, 5000, "reply to the interruption");
    await call.until(() => call.heardMs >= call.heardAtClear.at(-1)! + 400, "reply heard");
    await call.hangUp();

    const row = await finishedRecord(call.callSid);
    expect(row).toMatchObject({
      organizationId: line.owner.organizationId,
      assistantId: line.assistantId,
      callerNumber: FROM,
      calledNumber: TO,
      phoneNumberId: line.numberId,
      providerCallSid: call.callSid,
      endedReason: "Caller hung up",
      cost: 0.05,
    });
    const logs = callLogsSchema.parse(row.logs);
    expect(logs.isTest).toBe(false);
    expect(logs.transcript.map((e) => [e.type, e.content])).toEqual(
      expect.arrayContaining([
        ["assistant", "Hello, this is Ava. How can I help?"],
        ["user", "Where is my order 42?"],
        ["tool-request", "Calling tool Lookup Order"],
        ["user", "Wait, stop."],
      ]),
    );
    const interrupted = logs.transcript.find((e) => e.interruptedAtMs !== undefined);
    expect(interrupted?.interruptedAtMs).toBe(truncate["audio_end_ms"]);
    // The recording: an 8 kHz stereo WAV (µ-law decoded), caller left, assistant right.
    expect(row.recording).toBe(`recordings/${row.id}.wav`);
    const wav = await line.app.app.ctx.storage.get(row.recording!);
    expect(wav!.body.readUInt16LE(22)).toBe(2);
    expect(wav!.body.readUInt32LE(24)).toBe(8000);
    expect(wav!.body.length).toBeGreaterThan(44 + 8000 * 4 * 2);
  });

  it("buffers caller audio sent before the provider session is ready: no frame lost", async () => {
    line.fake.script = { userSays: [] };
    const index = line.fake.connections.length;
    const call = await dial();
    await call.openStream();
    // Frames straight after `start`, while the provider socket is still opening.
    await call.speak(mulawSpeech("Hello? Is anybody there?"), 600);
    const conn = await line.fake.connection(index);
    await conn.until(() => appendedBytes() >= 600 * 8, 5000, "all caller audio");
    function appendedBytes() {
      return conn.receivedOf("input_audio_buffer.append").reduce((n, e) => n + Buffer.from(e["audio"] as string, "base64").length, 0);
    }
    expect(appendedBytes()).toBe(600 * 8);
    // Nothing appended before the session was configured for µ-law.
    const types = conn.timeline.filter((t) => t.dir === "in").map((t) => t.type);
    expect(types.indexOf("session.update")).toBeLessThan(types.indexOf("input_audio_buffer.append"));
    await call.hangUp();
    expect((await finishedRecord(call.callSid)).endedReason).toBe("Caller hung up");
  });
});

describe("when the provider drops the session", () => {
  const GREETING = "Hello, this is Ava. How can I help?";
  const QUOTA = "You exceeded your current quota, please check your plan and billing details.";
  afterEach(() => {
    line.fake.refuseUpgrades = null;
  });

  it("the call carries on in a new provider session (µ-law, the conversation so far, no second greeting); the line stays open", async () => {
    line.fake.script = { speechMs: 1000, chunkMs: 20, userSays: ["Are you still there?"], replies: ["Yes, I am still here."] };
    const index = line.fake.connections.length;
    const call = await dial();
    await call.openStream();
    const first = await line.fake.connection(index);
    await first.until(() => first.sentOf("response.done").length === 1, 5000, "greeting generated");
    await call.until(() => call.heardMs >= 400, "greeting heard");
    first.drop(1011, "upstream failure");

    const second = await line.fake.connection(index + 1);
    const [update1, update2] = [await first.waitFor("session.update"), await second.waitFor("session.update")];
    expect(update2["session"]).toEqual(update1["session"]);
    expect(update2["session"]).toMatchObject({ audio: { input: { format: { type: "audio/pcmu" } }, output: { format: { type: "audio/pcmu" } } } });
    await second.until(() => second.receivedOf("conversation.item.create").length === 1, 5000, "context items");
    expect(second.receivedOf("conversation.item.create")[0]).toMatchObject({ item: { role: "assistant", content: [{ text: GREETING }] } });
    expect(second.receivedOf("response.create")).toEqual([]);

    // The caller talks on and hears the answer of the new session.
    const heardBefore = call.heardMs;
    await call.speak(mulawSpeech("Are you still there?"), 1000);
    await second.until(() => second.sentOf("response.done").length === 1, 5000, "answer generated");
    await call.until(() => call.heardMs >= heardBefore + 400, "answer heard");
    expect(call.closed).toBeNull();
    expect(second.receivedOf("response.create").filter((e) => (e["response"] as { instructions?: string } | undefined)?.instructions)).toEqual([]);
    await call.hangUp();

    const rows = await recordsOf(call.callSid);
    expect(rows).toHaveLength(1);
    const row = await finishedRecord(call.callSid);
    expect(row.endedReason).toBe("Caller hung up");
    const logs = callLogsSchema.parse(row.logs);
    expect(logs.transcript.map((e) => [e.type, e.content])).toEqual([
      ["assistant", GREETING],
      ["user", "Are you still there?"],
      ["assistant", "Yes, I am still here."],
    ]);
  });

  it("no new session can be opened: Provider error with its reason; the caller's line is closed", async () => {
    line.fake.script = { userSays: [] };
    const index = line.fake.connections.length;
    const call = await dial();
    await call.openStream();
    const conn = await line.fake.connection(index);
    await call.until(() => call.receivedBytes >= 400 * 8, "greeting");
    line.fake.refuseUpgrades = { status: 429, statusText: "Too Many Requests", code: "insufficient_quota", message: QUOTA };
    const refusedBefore = line.fake.rejected.length;
    conn.drop(1011, "upstream failure");
    await call.until(() => call.closed !== null, "line closed");
    // It tried: one new connection, refused by the provider.
    expect(line.fake.rejected.slice(refusedBefore)).toMatchObject([{ status: 429, reason: QUOTA }]);
    expect(line.fake.connections).toHaveLength(index + 1);
    const row = await finishedRecord(call.callSid);
    expect(row.endedReason).toBe(`Provider error: Unexpected server response: 429: ${QUOTA}`);
    expect(callLogsSchema.parse(row.logs).isTest).toBe(false);
  });
});

describe("refused calls", () => {
  it("a forged or unsigned webhook gets 403 and records nothing", async () => {
    const forged = await dial({ signature: "bm90IGEgc2lnbmF0dXJl" });
    expect(forged.webhookStatus).toBe(403);
    expect(JSON.parse(forged.twiml)).toEqual({ error: { code: "forbidden", message: "Invalid Twilio signature" } });
    const wrongToken = await dial({ authToken: "someone-elses-token" });
    expect(wrongToken.webhookStatus).toBe(403);
    const unsigned = await dial({ signature: null });
    expect(unsigned.webhookStatus).toBe(403);
    for (const call of [forged, wrongToken, unsigned]) expect(await recordsOf(call.callSid)).toEqual([]);
  });

  it("an unknown number, or one without an assistant, hears an apology and the call hangs up", async () => {
    const unknown = await dial({ to: "+15550199" });
    expect(unknown.webhookStatus).toBe(200);
    expect(unknown.twiml).toBe(`<?xml version="1.0" encoding="UTF-8"?><Response><Say>${PHONE_UNAVAILABLE_MESSAGE}</Say><Hangup/></Response>`);
    await insertPhoneNumber(line.app, line.owner, "+15550123", null);
    const unassigned = await dial({ to: "+15550123" });
    expect(unassigned.twiml).toContain("<Hangup/>");
    expect(unassigned.twiml).not.toContain("<Stream");
    expect(await recordsOf(unassigned.callSid)).toEqual([]);
  });

  it("a stream with a bad token, or a token used before, is closed and records nothing", async () => {
    const bad = await dial();
    await bad.openStream({ parameters: { token: "not-a-token" } });
    await bad.until(() => bad.closed !== null, "refusal");
    expect(bad.closed).toEqual({ code: 1008, reason: "Invalid stream token" });

    line.fake.script = { userSays: [] };
    const first = await dial();
    const token = first.stream()!.parameters["token"]!;
    await first.openStream();
    await first.until(() => first.receivedBytes > 0, "first call's greeting");
    const replay = await dial();
    await replay.openStream({ parameters: { token } });
    await replay.until(() => replay.closed !== null, "refusal");
    expect(replay.closed).toEqual({ code: 1008, reason: "Invalid stream token" });
    await first.hangUp();
    expect(await recordsOf(bad.callSid)).toEqual([]);
    expect(await recordsOf(replay.callSid)).toEqual([]);
  });

  it("a stream whose upgrade carries a forged signature is closed", async () => {
    const call = await dial();
    await call.openStream({ upgradeSignature: "Zm9yZ2Vk" });
    await call.until(() => call.closed !== null, "refusal");
    expect(call.closed).toEqual({ code: 1008, reason: "Invalid signature" });
    expect(await recordsOf(call.callSid)).toEqual([]);
  });
});

describe("status callback", () => {
  it("finalises a record the stream left without figures with Twilio's duration, once; forged callbacks get 403", async () => {
    const call = await dial();
    const start = new Date("2026-11-22T10:00:00.000Z");
    await line.app.db.insert(calls).values({
      organizationId: line.owner.organizationId,
      assistantId: line.assistantId,
      startTime: start,
      logs: { isTest: false, transcript: [], toolsUsed: [] },
      callerNumber: FROM,
      calledNumber: TO,
      phoneNumberId: line.numberId,
      providerCallSid: call.callSid,
    });
    expect(await call.statusCallback({ CallDuration: "75" }, "Zm9yZ2Vk")).toBe(403);
    expect((await recordsOf(call.callSid))[0]!.endTime).toBeNull();

    expect(await call.statusCallback({ CallDuration: "75" })).toBe(204);
    const [row] = await recordsOf(call.callSid);
    expect(row!.endTime!.getTime() - start.getTime()).toBe(75_000);
    expect(row).toMatchObject({ cost: 0.07, endedReason: "Call completed (reported by Twilio)" });

    // A duplicate (Twilio retries) changes nothing.
    expect(await call.statusCallback({ CallDuration: "300" })).toBe(204);
    expect((await recordsOf(call.callSid))[0]).toMatchObject({ cost: 0.07, endTime: row!.endTime });
  });
});

// Last in the file: draining is one-way for the app under test.
describe("a draining instance (SIGTERM)", () => {
  it("sends a new call back to the public address to be answered elsewhere, and records nothing", async () => {
    line.app.app.ctx.drain.begin();
    const call = await dial();
    expect(call.webhookStatus).toBe(200);
    expect(call.twiml).toBe(
      `<?xml version="1.0" encoding="UTF-8"?><Response><Pause length="1"/><Redirect method="POST">${line.app.origin}/telephony/twilio/voice</Redirect></Response>`,
    );
    expect(await recordsOf(call.callSid)).toEqual([]);
  });
});
