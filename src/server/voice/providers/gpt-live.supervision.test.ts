/**
 * A supervisor takes over a phone call on a GPT-Live assistant, over real sockets: a simulated
 * Twilio caller, the live board's sockets and the stand-in GPT-Live. GPT-Live decides itself when
 * to speak (it has no "don't answer" setting), so while the supervisor has the call the adapter
 * gives it silence in the caller's place: only the supervisor is heard, the model is not drawn into
 * a conversation it is not part of (Realtime, told not to answer, keeps still), and handed back,
 * the call goes on with the model told what happened and the caller's next words their own line.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { closeInOrder } from "../../../../tests/close.ts";
import { serveGptLive, type FakeGptLive } from "../../../../tests/fakes/fake-gpt-live.ts";
import { callOnBoard, openCall, speakAsSupervisor, takeOver, type CallClient } from "../../../../tests/fakes/live-supervisor.ts";
import { CALLER_NUMBER, dialPipeline, endedRecord, GREETING, startPipelinePhone, type PipelinePhone } from "../../../../tests/fakes/pipeline-phone.ts";
import { tone } from "../../../../tests/fakes/realtime-audio.ts";
import { until } from "../../../../tests/until.ts";
import { callLogsSchema } from "../../../shared/calls.ts";

const MS_PER_WORD = 200;
const LONG = "Let me tell you about every plan we have, starting with the basic one, which includes calls, texts, a little data and a number of extras that most people never use at all.";
const AFTER = "Of course, I am glad my colleague could help.";

let line: PipelinePhone;
let live: FakeGptLive;

beforeAll(async () => {
  line = await startPipelinePhone();
  live = serveGptLive(line.realtime, { msPerWord: MS_PER_WORD });
});
afterAll(() => closeInOrder(line.app.app, line.realtime));

describe("taking over a GPT-Live phone call", () => {
  it("lets only the supervisor be heard, keeps what the caller says to them from the model, and hands back without a provider error", async () => {
    live.script = { msPerWord: MS_PER_WORD, userSays: ["Tell me about your plans.", "I want a human.", "Thanks, that is all."], replies: [{ say: LONG }, { say: AFTER }] };
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
    const heldFrom = conn.received.length;

    // The caller talks to the supervisor: only the supervisor is heard, and GPT-Live (which cannot
    // be told not to answer) hears silence in the caller's place, so it has nothing to answer.
    await call.speak(tone("audio/pcmu", 700), 700);
    const expected = speakAsSupervisor(boss);
    await call.until(() => afterClear.filter((audio) => audio.equals(expected)).length >= 15, "the supervisor's voice at the caller");
    expect(afterClear.filter((audio) => !audio.equals(expected))).toEqual([]);

    // Handed back: GPT-Live is given the supervisor's part as context, and nothing it cannot take
    // (it has no response to create: it speaks when it decides), so no provider error reaches the call.
    boss.send({ type: "hand_back" });
    await boss.until(() => boss.of("transcript").some((m) => m.entry.supervisor?.action === "hand_back"), "handed back");
    await until("the context appended", async () => conn.received.some((e) => e["type"] === "session.instructions.append" && String(e["content"]).includes("handed the call back to you")), Boolean);
    const handedBackAt = conn.received.findIndex((e) => e["type"] === "session.instructions.append" && String(e["content"]).includes("handed the call back to you"));
    // It heard silence meanwhile, and the hand-back says so rather than pointing at a conversation it never got.
    expect(String(conn.received[handedBackAt]!["content"])).toContain("You did not hear what the caller said meanwhile");
    const heldAudio = conn.received.slice(heldFrom, handedBackAt).filter((e) => e["type"] === "session.input_audio.append");
    expect(heldAudio.length).toBeGreaterThan(0);
    // Every sample of it silence (counted, not listed: a frame of audio is a long string).
    expect(heldAudio.filter((e) => loudest(String(e["audio"])) > 0).length).toBe(0);
    expect(conn.received.filter((e) => e["type"] === "response.create")).toEqual([]);
    expect(boss.of("transcript").map((m) => m.entry.content).filter((text) => text.startsWith("Error from the provider"))).toEqual([]);

    // The caller's first words to the model after the hand-back are their own line, and answered.
    await call.speak(tone("audio/pcmu", 700), 700);
    await boss.until(() => boardLines(boss).some(([type, text]) => type === "assistant" && text === AFTER), "the model's answer after the hand-back");

    await call.hangUp();
    const row = await endedRecord(line, call.callSid);
    const transcript = callLogsSchema.parse(row.logs).transcript;
    const actions = transcript.flatMap((e) => (e.supervisor ? [e.supervisor.action] : []));
    expect(actions).toEqual(expect.arrayContaining(["take_over", "spoke", "hand_back"]));
    const handBack = transcript.findIndex((e) => e.supervisor?.action === "hand_back");
    expect(transcript.filter((e) => e.type === "user").map((e) => e.content)).toEqual(["Tell me about your plans.", "I want a human."]);
    expect(transcript.slice(handBack).map((e) => [e.type, e.content])).toEqual(expect.arrayContaining([["user", "I want a human."], ["assistant", AFTER]]));
  }, 40_000);
});

/** The call's transcript as the board has it so far: each entry as set, with the text appended to it since. */
function boardLines(boss: CallClient): Array<[string, string]> {
  const lines: Array<[string, string]> = [];
  for (const m of boss.messages) {
    if (m.type === "transcript") lines[m.index] = [m.entry.type, m.entry.content];
    else if (m.type === "transcript_delta" && lines[m.index]) lines[m.index]![1] += m.text;
  }
  return lines.filter(Boolean);
}

/** The loudest sample of a `session.input_audio.append`'s audio (PCM16 24 kHz, base64). */
function loudest(audio: string): number {
  const pcm = Buffer.from(audio, "base64");
  let max = 0;
  for (let i = 0; i + 1 < pcm.length; i += 2) max = Math.max(max, Math.abs(pcm.readInt16LE(i)));
  return max;
}
