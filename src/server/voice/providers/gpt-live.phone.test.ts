import { describe, expect, it } from "vitest";
import { CALLER_NUMBER as FROM, dialPipeline, endedRecord, GREETING, setUpGptLivePhone, createOrderLookup, expectWholeCallRecord } from "../../../../tests/fakes/pipeline-phone.ts";
import { tone } from "../../../../tests/fakes/realtime-audio.ts";
import { until } from "../../../../tests/until.ts";
import { callLogsSchema, HANDOFF_TEXTS } from "../../../shared/calls.ts";

/**
 * A phone call on a GPT-Live assistant, end to end through real sockets: a simulated Twilio
 * caller, the real app, and a stand-in speaking GPT-Live's session protocol on the OpenAI base URL
 * (docs/protocols.md §7). OpenAI Realtime is never called.
 */

const TO = "+15550277";
const ANSWER = "Your order left our warehouse on Monday.";
const GOODBYE = "Thanks for calling, goodbye.";
const MS_PER_WORD = 200;

const phone = setUpGptLivePhone(MS_PER_WORD);

describe("a phone call on a GPT-Live assistant", () => {
  it("greets, hears the caller, runs a tool through delegation, hangs up when the model ends the call, and keeps the record", async () => {
    const tool = await createOrderLookup(phone.line, phone.upstream.origin);
    phone.live.script = {
      msPerWord: MS_PER_WORD,
      userSays: ["Where is my order 42?", "That is all, bye."],
      replies: [{ call: { name: "Lookup_Order", arguments: { order_id: "42" } }, after: ANSWER }, { say: GOODBYE, call: { name: "end_call", arguments: { reason: "done" } }, after: "" }],
    };
    const { call, assistantId } = await dialPipeline(phone.line, TO, { type: "gpt-live", model: "gpt-live-1", voice: "cinder" }, { tool_ids: [tool.id], allow_end_call: true });

    // The session is started as GPT-Live's docs say, the tools riding on the delegation.
    const conn = await phone.live.connection();
    await conn.waitFor("session.start");
    expect(conn.headers.authorization).toBe(`Bearer ${phone.line.realtime.apiKey}`);
    expect(conn.received[0]).toMatchObject({ type: "session.start", session: { model: "gpt-live-1", audio: { output: { voice: "cinder" } }, delegation: { type: "responses" } } });
    expect(String(conn.session!["instructions"])).toContain("You are Ava.");
    expect(conn.toolNames).toEqual(expect.arrayContaining(["Lookup_Order", "end_call"]));

    // The first message is heard, in the phone's format.
    const greetingMs = GREETING.split(" ").length * MS_PER_WORD;
    await call.until(() => call.heardMs >= greetingMs, "greeting heard");

    // The caller asks; the delegated function runs against the tool's endpoint, its output goes back.
    await call.speak(tone("audio/pcmu", 700), 700);
    await conn.waitFor("response.create");
    expect(phone.upstream.requests.map((r) => [r.path, r.query])).toEqual([["/orders", { order_id: "42" }]]);
    const [output] = await conn.waitFor("response.item.create");
    expect(output).toMatchObject({ item: { type: "function_call_output" } });
    const answerMs = ANSWER.split(" ").length * MS_PER_WORD;
    await call.until(() => call.heardMs >= greetingMs + answerMs, "the answer heard");

    // The caller says goodbye; the model says it too and ends the call through its end_call function.
    await call.speak(tone("audio/pcmu", 700), 700);
    const row = await endedRecord(phone.line, call.callSid);
    expect(row).toMatchObject({ assistantId, endedReason: HANDOFF_TEXTS.assistantEnded, callerNumber: FROM });
    expect(conn.closedBy).toBe("session.close");
    expect(phone.line.realtime.connections).toHaveLength(0);

    const logs = expectWholeCallRecord(row, [
      ["assistant", ANSWER],
      ["user", "That is all, bye."],
      ["assistant", GOODBYE],
    ]);
    const order = ["Where is my order 42?", ANSWER, "That is all, bye.", GOODBYE].map((text) => logs.transcript.findIndex((e) => e.content === text));
    expect(order).toEqual([...order].sort((a, b) => a - b));
  });

  it("ends the call with GPT-Live's own words when it refuses the session", async () => {
    const quota = "You exceeded your current quota, please check your plan and billing details.";
    phone.line.realtime.refuseUpgrades = { status: 429, statusText: "Too Many Requests", code: "insufficient_quota", message: quota };
    const { call } = await dialPipeline(phone.line, "+15550278", { type: "gpt-live", model: "gpt-live-1", voice: "marin" });
    const row = await endedRecord(phone.line, call.callSid).finally(() => (phone.line.realtime.refuseUpgrades = null));
    expect(row.endedReason).toContain("GPT-Live refused the connection (HTTP 429");
    expect(row.endedReason).toContain(quota);
    expect(phone.line.realtime.rejected.at(-1)).toMatchObject({ status: 429, url: "/v1/live/sessions" });
  });

  it("keeps the caller's last words when they hang up before the model answers them", async () => {
    const last = "Actually, cancel my order please.";
    phone.live.script = { msPerWord: MS_PER_WORD, userSays: ["Hello there.", last], replies: [{ say: "Hi, how can I help?" }] };
    const { call } = await dialPipeline(phone.line, "+15550280", { type: "gpt-live", model: "gpt-live-1", voice: "marin" });
    const greetingMs = GREETING.split(" ").length * MS_PER_WORD;
    await call.until(() => call.heardMs >= greetingMs, "greeting heard");
    await call.speak(tone("audio/pcmu", 700), 700);
    const conn = phone.live.connections.at(-1)!;
    await call.until(() => call.heardMs >= greetingMs + 5 * MS_PER_WORD, "the reply heard");
    // The caller's second line is transcribed; no reply is scripted, and they hang up.
    await call.speak(tone("audio/pcmu", 700), 700);
    await until("the last line transcribed", async () => conn.heard, (heard) => heard.includes(last));
    await call.hangUp();

    const row = await endedRecord(phone.line, call.callSid);
    const transcript = callLogsSchema.parse(row.logs).transcript;
    expect(transcript.filter((e) => e.type === "user").map((e) => e.content)).toEqual(["Hello there.", last]);
  });

  it("stops playing the model's answer when the caller talks over it, and marks the entry interrupted", async () => {
    const long = "Let me tell you about every plan we have, starting with the basic one, which includes calls, texts, a little data and a number of extras that most people never use at all.";
    phone.live.script = { msPerWord: MS_PER_WORD, userSays: ["Tell me about your plans.", "Stop, thanks."], replies: [{ say: long }, { say: "Of course." }] };
    const { call } = await dialPipeline(phone.line, "+15550279", { type: "gpt-live", model: "gpt-live-1", voice: "marin" });
    const greetingMs = GREETING.split(" ").length * MS_PER_WORD;
    await call.until(() => call.heardMs >= greetingMs, "greeting heard");
    await call.speak(tone("audio/pcmu", 700), 700);
    await call.until(() => call.heardMs >= greetingMs + 1000, "the answer playing", 10_000);
    const clears = call.clears;
    // Not awaited: the model answers while the caller's last frames still go out.
    const speaking = call.speak(tone("audio/pcmu", 700), 700);
    await call.until(() => call.clears > clears, "playback cleared");
    const bytesAtClear = call.receivedBytes;
    await speaking;
    const conn = phone.live.connections.at(-1)!;
    await until("the reply spoken", async () => conn.spoken, (spoken) => spoken.includes("Of course."));
    // The reply after the interruption reaches the phone (µ-law: 8 bytes a millisecond).
    await call.until(() => call.receivedBytes >= bytesAtClear + 2 * MS_PER_WORD * 8, "the reply's audio");
    await call.hangUp();

    const row = await endedRecord(phone.line, call.callSid);
    const transcript = callLogsSchema.parse(row.logs).transcript;
    // Not all of the answer was heard: far less than its length in audio.
    expect(call.heardMs).toBeLessThan(greetingMs + long.split(" ").length * MS_PER_WORD);
    expect(transcript.find((e) => e.content === long)?.interruptedAtMs).toBeDefined();
    expect(transcript.map((e) => [e.type, e.content])).toEqual(expect.arrayContaining([["user", "Stop, thanks."], ["assistant", "Of course."]]));
  });
});
