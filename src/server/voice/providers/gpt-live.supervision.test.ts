/**
 * A supervisor takes over a phone call on a GPT-Live assistant, over real sockets: a simulated
 * Twilio caller, the live board's sockets and the stand-in GPT-Live. GPT-Live decides itself when
 * to speak (it has no "don't answer" setting), so what the caller must notice is the session's
 * doing: while the supervisor has the call, only the supervisor is heard, even when the model
 * answers the caller; handed back, the call goes on with the model told what happened.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { closeInOrder } from "../../../../tests/close.ts";
import { serveGptLive, type FakeGptLive } from "../../../../tests/fakes/fake-gpt-live.ts";
import { callOnBoard, openCall, speakAsSupervisor, takeOver } from "../../../../tests/fakes/live-supervisor.ts";
import { CALLER_NUMBER, dialPipeline, endedRecord, GREETING, startPipelinePhone, type PipelinePhone } from "../../../../tests/fakes/pipeline-phone.ts";
import { tone } from "../../../../tests/fakes/realtime-audio.ts";
import { until } from "../../../../tests/until.ts";
import { callLogsSchema } from "../../../shared/calls.ts";

const MS_PER_WORD = 200;
const LONG = "Let me tell you about every plan we have, starting with the basic one, which includes calls, texts, a little data and a number of extras that most people never use at all.";
const DURING = "I can help you with that myself.";

let line: PipelinePhone;
let live: FakeGptLive;

beforeAll(async () => {
  line = await startPipelinePhone();
  live = serveGptLive(line.realtime, { msPerWord: MS_PER_WORD });
});
afterAll(() => closeInOrder(line.app.app, line.realtime));

describe("taking over a GPT-Live phone call", () => {
  it("silences the model's answer, lets only the supervisor be heard while in control, and hands back without a provider error", async () => {
    live.script = { msPerWord: MS_PER_WORD, userSays: ["Tell me about your plans.", "I want a human."], replies: [{ say: LONG }, { say: DURING }] };
    const base = line.app.origin.replace("http", "ws");
    const engine = { type: "gpt-live", model: "gpt-live-1", voice: "marin" };
    const { started: { call }, callId } = await callOnBoard(base, line.owner.cookie, CALLER_NUMBER, () => dialPipeline(line, "+15550711", engine));
    const boss = await openCall(base, callId, { cookie: line.owner.cookie });
    await boss.next("watching");
    const conn = await live.connection(live.connections.length - 1);

    const greetingMs = GREETING.split(" ").length * MS_PER_WORD;
    await call.until(() => call.heardMs >= greetingMs, "greeting heard");
    await call.speak(tone("audio/pcmu", 700), 700);
    await call.until(() => call.heardMs >= greetingMs + 1000, "the answer playing", 10_000);

    const afterClear = await takeOver(boss, call, "the model's playback cleared");

    // The caller asks for a human; the model answers all the same, and the caller does not hear it.
    await call.speak(tone("audio/pcmu", 700), 700);
    await until("the model's answer during the take-over", async () => conn.spoken.includes(DURING), Boolean);
    const expected = speakAsSupervisor(boss);
    await call.until(() => afterClear.filter((audio) => audio.equals(expected)).length >= 15, "the supervisor's voice at the caller");
    expect(afterClear.filter((audio) => !audio.equals(expected))).toEqual([]);

    // Handed back: GPT-Live is given the supervisor's part as context, and nothing it cannot take
    // (it has no response to create: it speaks when it decides), so no provider error reaches the call.
    boss.send({ type: "hand_back" });
    await boss.until(() => boss.of("transcript").some((m) => m.entry.supervisor?.action === "hand_back"), "handed back");
    await until("the context appended", async () => conn.received.some((e) => e["type"] === "session.instructions.append" && String(e["content"]).includes("handed the call back to you")), Boolean);
    expect(conn.received.filter((e) => e["type"] === "response.create")).toEqual([]);
    expect(boss.of("transcript").map((m) => m.entry.content).filter((text) => text.startsWith("Error from the provider"))).toEqual([]);

    await call.hangUp();
    const row = await endedRecord(line, call.callSid);
    const actions = callLogsSchema.parse(row.logs).transcript.flatMap((e) => (e.supervisor ? [e.supervisor.action] : []));
    expect(actions).toEqual(expect.arrayContaining(["take_over", "spoke", "hand_back"]));
  }, 40_000);
});
