/**
 * A supervisor takes over a phone call on a pipeline assistant, over real sockets: a simulated
 * Twilio caller, the live board's sockets, and stand-ins for Deepgram, Chat Completions and
 * ElevenLabs. What the caller and the supervisor notice: the assistant falls silent at once, the
 * supervisor's voice reaches the caller and the caller's the supervisor, the caller is still
 * transcribed but the model is not asked; handed back, the assistant answers again.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { closeInOrder } from "../../../../tests/close.ts";
import { startPipelineFakes, type PipelineFakes } from "../../../../tests/fakes/pipeline-fakes.ts";
import { callOnBoard, openCall, speakAsSupervisor, takeOver } from "../../../../tests/fakes/live-supervisor.ts";
import { CALLER_NUMBER, dialPipeline, endedRecord, GREETING, pipelineEngine, startPipelinePhone, type PipelinePhone } from "../../../../tests/fakes/pipeline-phone.ts";
import { tone } from "../../../../tests/fakes/realtime-audio.ts";
import { until } from "../../../../tests/until.ts";
import { callLogsSchema } from "../../../shared/calls.ts";
import { LIVE_TEXTS } from "../../../shared/live.ts";

const LONG = [
  "Let me tell you about every plan we have.",
  "The basic one includes calls and texts.",
  "The middle one adds a little data.",
  "The top one has everything and a number of extras.",
];
const WELCOME = "Welcome back to the assistant.";

let line: PipelinePhone;
let fakes: PipelineFakes;

beforeAll(async () => {
  fakes = await startPipelineFakes("sup-key");
  fakes.voice.options.msPerWord = 200;
  line = await startPipelinePhone();
});
afterAll(() => closeInOrder(line.app.app, fakes, line.realtime));

describe("taking over a pipeline phone call", () => {
  it("silences the assistant, routes the audio both ways without asking the model, and hands back to an assistant that answers again", async () => {
    fakes.deepgram.script = { userSays: ["Tell me about your plans.", "I want a human."], speechMs: 300, finalAfterMs: 200 };
    fakes.chat.script = { replies: [LONG.join(" "), WELCOME] };
    const base = line.app.origin.replace("http", "ws");
    const engine = await pipelineEngine(line, fakes, "supervised");
    const { started: { call }, callId } = await callOnBoard(base, line.owner.cookie, CALLER_NUMBER, () => dialPipeline(line, "+15550611", engine));
    const boss = await openCall(base, callId, { cookie: line.owner.cookie });
    await boss.next("watching");

    // The greeting, the question, and the long answer playing.
    await call.until(() => call.heardMs >= GREETING.split(" ").length * 200, "greeting heard");
    await call.speak(tone("audio/pcmu", 700), 700);
    await call.until(() => call.heardMs >= GREETING.split(" ").length * 200 + 1000, "the answer playing", 10_000);

    const afterClear = await takeOver(boss, call, "the assistant's playback cleared");

    // The supervisor's voice reaches the caller, and nothing else does.
    const expected = speakAsSupervisor(boss);
    await call.until(() => afterClear.length >= 15, "the supervisor's voice at the caller");
    expect(afterClear.every((audio) => audio.equals(expected))).toBe(true);

    // The caller speaks: heard by the supervisor, transcribed, and the model is not asked.
    const asked = fakes.chat.requests.length;
    await call.speak(tone("audio/pcmu", 700), 700);
    await boss.until(() => boss.of("transcript").some((m) => m.entry.type === "user" && m.entry.content === "I want a human."), "the caller transcribed");
    await boss.until(() => boss.frames.length > 0, "the caller's audio at the supervisor");
    expect(fakes.chat.requests.length).toBe(asked);

    // Handed back, the assistant answers, knowing what happened meanwhile.
    boss.send({ type: "hand_back" });
    await until("the assistant answering again", async () => fakes.voice.requests.some((r) => r.text === WELCOME), Boolean, 10_000);
    const context = fakes.chat.requests.at(-1)!.messages.map((m) => m.content ?? "").join("\n");
    expect(context).toContain("handed the call back to you");
    expect(context).toContain("I want a human.");

    await call.hangUp();
    const row = await endedRecord(line, call.callSid);
    const actions = callLogsSchema.parse(row.logs).transcript.flatMap((e) => (e.supervisor ? [e.supervisor.action] : []));
    expect(actions).toEqual(expect.arrayContaining(["take_over", "spoke", "hand_back"]));
    expect(callLogsSchema.parse(row.logs).transcript.map((e) => e.content)).toContain(LIVE_TEXTS.supervisorSpoke);
  });
});
