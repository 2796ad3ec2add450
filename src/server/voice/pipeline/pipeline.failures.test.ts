import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { closeInOrder } from "../../../../tests/close.ts";
import { startPipelineFakes, type PipelineFakes } from "../../../../tests/fakes/pipeline-fakes.ts";
import { addProvider, dialPipeline, endedRecord, GREETING, startPipelinePhone, type PipelinePhone } from "../../../../tests/fakes/pipeline-phone.ts";
import { tone } from "../../../../tests/fakes/realtime-audio.ts";
import type { TwilioCaller } from "../../../../tests/fakes/twilio-caller.ts";
import { until } from "../../../../tests/until.ts";
import { callLogsSchema } from "../../../shared/calls.ts";
import { VOICE_ENGINE_MESSAGES } from "../../../shared/providers.ts";

/**
 * A pipeline call when its services misbehave: a key refused mid-call ends the call with the
 * reason in words; a rate limit, a service that stops answering, and the transcriber's socket
 * dropping cost one turn at most, and the call goes on.
 */

let line: PipelinePhone;
let fakes: PipelineFakes;
let engine: Record<string, unknown>;
let number = 15550190;

beforeAll(async () => {
  fakes = await startPipelineFakes("key");
  line = await startPipelinePhone({ PIPELINE_SERVICE_TIMEOUT_MS: "3000" });
  engine = {
    type: "pipeline",
    transcriber: { provider_id: await addProvider(line, { name: "DG", kind: "transcriber", protocol: "deepgram", base_url: fakes.deepgram.baseUrl, api_key: "dg-key" }), model: null, language: null },
    model: { provider_id: await addProvider(line, { name: "Groq", kind: "model", protocol: "openai-compatible", base_url: fakes.chat.baseUrl, api_key: "gsk-key" }), model: "llama" },
    voice: { provider_id: await addProvider(line, { name: "11", kind: "voice", protocol: "elevenlabs", base_url: fakes.voice.baseUrl, api_key: "xi-key" }), voice: "rachel", model: null },
  };
});
afterAll(() => closeInOrder(line.app.app, fakes, line.realtime));
beforeEach(() => {
  // Keys the services have since revoked are put back for the next test.
  fakes.chat.apiKey = "gsk-key";
  fakes.voice.apiKey = "xi-key";
});

const greetings = () => fakes.voice.requests.filter((r) => r.text === GREETING && r.sentMs === r.audioMs).length;
/** A call placed; `greeted()` waits for its own greeting to be voiced in full. */
const dial = async () => {
  const before = greetings();
  const { call } = await dialPipeline(line, `+${(number += 1)}`, engine);
  return { call, greeted: () => waitFor("greeting voiced", () => greetings() > before) };
};
/** State of the stand-ins, read until it holds (they do not tell the caller when they change). */
const waitFor = (what: string, check: () => boolean) => until(what, async () => check(), Boolean, 10_000);
const ask = (call: TwilioCaller) => call.speak(tone("audio/pcmu", 700), 700);
const voiced = (text: string) => waitFor(`“${text}” voiced`, () => fakes.voice.requests.some((r) => r.text === text));

describe("a pipeline call whose services fail", () => {
  it("ends, saying the language model refused its key, when the key was revoked after it was saved", async () => {
    fakes.deepgram.script = { userSays: ["When do you open?"] };
    const { call, greeted } = await dial();
    await greeted();
    fakes.chat.apiKey = "gsk-rotated";
    await ask(call);
    const row = await endedRecord(line, call.callSid);
    expect(row.endedReason).toBe(`Provider error: ${VOICE_ENGINE_MESSAGES.keyRefusedOnCall("language model", 401, "Incorrect API key provided.")}`);
  });

  it("ends, saying the voice refused its key, before a word is spoken", async () => {
    fakes.voice.apiKey = "xi-rotated";
    const { call } = await dial();
    const row = await endedRecord(line, call.callSid);
    expect(row.endedReason).toBe(`Provider error: ${VOICE_ENGINE_MESSAGES.keyRefusedOnCall("voice", 401, "Invalid API key")}`);
    expect(call.receivedBytes).toBe(0);
  });

  it("loses only the turn the model was rate-limited on, saying so in the transcript", async () => {
    fakes.deepgram.script = { userSays: ["When do you open?", "Hello?"] };
    fakes.chat.script = { replies: [{ status: 429 }, "We open at nine."] };
    const { call, greeted } = await dial();
    await greeted();
    await ask(call);
    await waitFor("the model asked", () => fakes.chat.requests.length >= 1);
    await ask(call);
    await voiced("We open at nine.");
    await call.hangUp();
    const row = await endedRecord(line, call.callSid);
    expect(row.endedReason).toBe("Caller hung up");
    const texts = callLogsSchema.parse(row.logs).transcript.map((e) => [e.type, e.content]);
    expect(texts).toContainEqual(["system", "Error from the provider: the language model answered 429: Rate limit reached"]);
    expect(texts).toContainEqual(["assistant", "We open at nine."]);
  });

  it("gives up on a model that stops answering, saying how long it waited, and answers the next turn", async () => {
    fakes.deepgram.script = { userSays: ["When do you open?", "Hello?"] };
    fakes.chat.script = { replies: [{ say: "Too late.", stallMs: 8000 }, "We open at nine."] };
    const { call, greeted } = await dial();
    await greeted();
    await ask(call);
    // The engine gives up on the silent model (its request is dropped) before the caller asks again.
    await waitFor("the stalled request dropped", () => fakes.chat.dropped >= 1);
    await ask(call);
    await voiced("We open at nine.");
    await call.hangUp();
    const row = await endedRecord(line, call.callSid);
    const texts = callLogsSchema.parse(row.logs).transcript.map((e) => [e.type, e.content]);
    expect(texts).toContainEqual(["system", `Error from the provider: ${VOICE_ENGINE_MESSAGES.timedOut("language model", 3)}`]);
    expect(fakes.voice.requests.map((r) => r.text)).not.toContain("Too late.");
  });

  it("carries on when the transcriber's socket drops: a new one is opened and the caller is heard again", async () => {
    fakes.deepgram.script = { userSays: ["When do you open?"] };
    fakes.chat.script = { replies: ["We open at nine."] };
    const before = fakes.deepgram.connections.length;
    const greetings = () => fakes.voice.requests.filter((r) => r.text === GREETING).length;
    const greetedBefore = greetings();
    const { call, greeted } = await dial();
    await greeted();
    fakes.deepgram.connections.at(-1)!.socket.terminate();
    await waitFor("a new transcriber socket", () => fakes.deepgram.connections.length === before + 2);
    await ask(call);
    await voiced("We open at nine.");
    await call.hangUp();
    const row = await endedRecord(line, call.callSid);
    expect(row.endedReason).toBe("Caller hung up");
    // The first message is not spoken again by the new session.
    expect(greetings()).toBe(greetedBefore + 1);
  });
});
