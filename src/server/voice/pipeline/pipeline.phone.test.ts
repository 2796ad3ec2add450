import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { closeInOrder } from "../../../../tests/close.ts";
import { startFakeAnthropic, type FakeAnthropic } from "../../../../tests/fakes/fake-anthropic.ts";
import { startPipelineFakes, type PipelineFakes } from "../../../../tests/fakes/pipeline-fakes.ts";
import { addProvider as saveProvider, CALLER_NUMBER as FROM, callStatsOf, createOrderLookup, dialPipeline, endedRecord, GREETING, startPipelinePhone, expectWholeCallRecord, type PipelinePhone } from "../../../../tests/fakes/pipeline-phone.ts";
import { createTool } from "../../../../tests/fakes/realtime-app.ts";
import { startToolUpstream, type ToolUpstream } from "../../../../tests/fakes/tool-upstream.ts";
import { tone } from "../../../../tests/fakes/realtime-audio.ts";
import { until } from "../../../../tests/until.ts";

/**
 * A phone call on a pipeline assistant, end to end through real sockets: a simulated Twilio
 * caller, the real app, and stand-ins speaking Deepgram's live transcription, Chat Completions
 * streaming and ElevenLabs' streamed speech. OpenAI Realtime is never called.
 */

const TO = "+15550177";
const ANSWER = [
  "Your order forty two left our warehouse on Monday morning.",
  "It is with the courier now and should reach you on Thursday.",
  "You will get a text message with a tracking link before it arrives.",
  "If nobody is home the courier will leave it with a neighbour.",
];

let line: PipelinePhone;
let fakes: PipelineFakes;
let anthropic: FakeAnthropic;
let upstream: ToolUpstream;

const waitFor = (check: () => boolean, what: string) => until(what, async () => check(), Boolean);

const addProvider = (body: Record<string, unknown>) => saveProvider(line, body);

beforeAll(async () => {
  fakes = await startPipelineFakes("test-key");
  anthropic = await startFakeAnthropic({ apiKey: "sk-ant-test" });
  upstream = await startToolUpstream();
  line = await startPipelinePhone();
});
afterAll(() => closeInOrder(line.app.app, upstream, anthropic, fakes, line.realtime));

describe("a phone call on a pipeline assistant", () => {
  it("greets in the chosen voice, hears the caller, runs a tool, and stops talking when interrupted, remembering only what was heard", async () => {
    const tool = await createOrderLookup(line, upstream.origin);
    const engine = {
      type: "pipeline",
      transcriber: { provider_id: await addProvider({ name: "Deepgram", kind: "transcriber", protocol: "deepgram", base_url: fakes.deepgram.baseUrl, api_key: "dg-test-key" }), model: "nova-3", language: "en" },
      model: { provider_id: await addProvider({ name: "Groq", kind: "model", protocol: "openai-compatible", base_url: fakes.chat.baseUrl, api_key: "gsk-test-key" }), model: "llama-3.3-70b" },
      voice: { provider_id: await addProvider({ name: "ElevenLabs", kind: "voice", protocol: "elevenlabs", base_url: fakes.voice.baseUrl, api_key: "xi-test-key" }), voice: "rachel-voice-id", model: "eleven_flash_v2_5" },
    };
    fakes.deepgram.script = { userSays: ["Where is my order 42?", "Wait, stop."], speechMs: 300, finalAfterMs: 200 };
    fakes.chat.script = { replies: [{ toolCalls: [{ name: "Lookup_Order", arguments: { order_id: "42" } }] }, ANSWER.join(" "), "Sure, go ahead."] };
    const { call, assistantId } = await dialPipeline(line, TO, engine, { tool_ids: [tool.id] });

    // The first message, spoken as written by the chosen voice, in the phone's own format.
    const greetingMs = GREETING.split(" ").length * fakes.voice.options.msPerWord;
    await call.until(() => call.heardMs >= greetingMs, "greeting heard");
    expect(fakes.voice.requests[0]).toMatchObject({ text: GREETING, voice: "rachel-voice-id", outputFormat: "ulaw_8000", modelId: "eleven_flash_v2_5" });
    expect(fakes.deepgram.connections[0]!.query).toMatchObject({ encoding: "mulaw", sample_rate: "8000", interim_results: "true", model: "nova-3", language: "en" });
    expect(line.realtime.connections).toHaveLength(0);

    // The caller asks; the model calls the tool, then answers with what it returned.
    await call.speak(tone("audio/pcmu", 700), 700);
    await waitFor(() => fakes.chat.requests.length >= 2, "the tool's output sent to the model");
    expect(fakes.chat.requests[0]!.model).toBe("llama-3.3-70b");
    expect(fakes.chat.requests[0]!.messages.at(-1)).toEqual({ role: "user", content: "Where is my order 42?" });
    expect(fakes.chat.requests[0]!.tools?.map((t) => t.function.name)).toContain("Lookup_Order");
    expect(upstream.requests.map((r) => [r.path, r.query])).toEqual([["/orders", { order_id: "42" }]]);
    const toolTurn = fakes.chat.requests[1]!.messages.slice(-2);
    expect(toolTurn[0]).toMatchObject({ role: "assistant", tool_calls: [{ function: { name: "Lookup_Order", arguments: JSON.stringify({ order_id: "42" }) } }] });
    expect(toolTurn[1]).toMatchObject({ role: "tool", tool_call_id: toolTurn[0]!.tool_calls![0]!.id });

    // The answer streams sentence by sentence; the caller interrupts about a second into it.
    await waitFor(() => fakes.voice.requests.some((r) => r.text === ANSWER[0]), "the answer's first sentence voiced");
    await call.until(() => call.heardMs >= greetingMs + 1000, "the answer playing", 10_000);
    const clears = call.clears;
    await call.speak(tone("audio/pcmu", 700), 700);
    await call.until(() => call.clears > clears, "playback cleared");
    await waitFor(() => fakes.chat.requests.length >= 3, "the interruption sent to the model");

    // The voice stopped: the rest of the answer was never voiced or never sent in full.
    const answerRequests = fakes.voice.requests.filter((r) => ANSWER.includes(r.text));
    expect(answerRequests.length < ANSWER.length || answerRequests.some((r) => r.cutOff)).toBe(true);
    // The model remembers only what the caller heard of the answer.
    const third = fakes.chat.requests[2]!.messages;
    expect(third.at(-1)).toEqual({ role: "user", content: "Wait, stop." });
    const remembered = third.at(-2)!;
    expect(remembered.role).toBe("assistant");
    expect(remembered.content).toMatch(/^Your order forty two/);
    expect(remembered.content!.length).toBeLessThan(ANSWER.join(" ").length);
    expect(remembered.content).not.toContain(ANSWER.at(-1));

    await call.until(() => fakes.voice.requests.some((r) => r.text === "Sure, go ahead."), "the reply to the interruption voiced");
    // Played, not only asked of the voice (its first audio sent is then on the turn's record): after
    // the clear the phone plays nothing but the reply.
    await call.until(() => call.heardMs >= call.heardAtClear.at(-1)! + 3 * fakes.voice.options.msPerWord, "the reply played");
    await call.hangUp();
    const row = await endedRecord(line, call.callSid);
    expect(row).toMatchObject({ assistantId, endedReason: "Caller hung up", callerNumber: FROM });
    const logs = expectWholeCallRecord(
      row,
      [
        ["user", "Wait, stop."],
        ["assistant", "Sure, go ahead."],
      ],
      { interrupted: true, voice: fakes.voice },
    );
    // Each caller turn is timed, stage after stage; the one the caller heard an answer to has them all.
    expect(logs.turns!.length).toBeGreaterThanOrEqual(2);
    const answered = logs.turns!.filter((t) => t.firstAudioSentMs !== undefined);
    expect(answered.length).toBeGreaterThanOrEqual(1);
    for (const t of answered) {
      expect(t.firstTokenMs).toBeGreaterThanOrEqual(t.transcriptMs);
      expect(t.firstVoiceAudioMs).toBeGreaterThanOrEqual(t.firstTokenMs!);
      expect(t.firstAudioSentMs).toBeGreaterThanOrEqual(t.firstVoiceAudioMs!);
    }
    // The caller's audio went to the transcriber.
    expect(logs.serviceUsage!.transcriberSeconds).toBeGreaterThan(0);
    // The Calls page's median turn latency counts this call's answered turns.
    expect(typeof (await callStatsOf(line)).median_turn_latency_ms).toBe("number");
    expect(fakes.deepgram.connections[0]!.closeStream).toBe(true);
  });

  it("ends with the transcriber's refusal in plain words when its key is refused", async () => {
    const engine = {
      type: "pipeline",
      transcriber: { provider_id: await addProvider({ name: "Deepgram (old key)", kind: "transcriber", protocol: "deepgram", base_url: fakes.deepgram.baseUrl, api_key: "dg-test-key" }), model: null, language: null },
      model: { provider_id: await addProvider({ name: "Groq 2", kind: "model", protocol: "openai-compatible", base_url: fakes.chat.baseUrl, api_key: "gsk-test-key" }), model: "llama-3.3-70b" },
      voice: { provider_id: await addProvider({ name: "ElevenLabs 2", kind: "voice", protocol: "elevenlabs", base_url: fakes.voice.baseUrl, api_key: "xi-test-key" }), voice: "rachel-voice-id", model: null },
    };
    // The key was good when saved; the service has revoked it since.
    fakes.deepgram.apiKey = "dg-rotated-key";
    const { call } = await dialPipeline(line, "+15550178", engine);
    const row = await endedRecord(line, call.callSid).finally(() => (fakes.deepgram.apiKey = "dg-test-key"));
    expect(row.endedReason).toContain("Deepgram refused the connection: 401");
    expect(row.endedReason).toContain("Invalid credentials.");
  });

  it("runs on Anthropic's Messages API as the model, tools included", async () => {
    const tool = await createTool(line.app.app, line.owner, {
      name: "Check Stock",
      description: "Whether an item is in stock",
      end_point_url: `${upstream.origin}/stock`,
      parameters: { type: "object", properties: { sku: { type: "string" } }, required: ["sku"] },
    });
    const engine = {
      type: "pipeline",
      transcriber: { provider_id: await addProvider({ name: "Deepgram 3", kind: "transcriber", protocol: "deepgram", base_url: fakes.deepgram.baseUrl, api_key: "dg-test-key" }), model: null, language: null },
      model: { provider_id: await addProvider({ name: "Claude", kind: "model", protocol: "anthropic", base_url: anthropic.baseUrl, api_key: "sk-ant-test" }), model: "claude-haiku-4-5" },
      voice: { provider_id: await addProvider({ name: "ElevenLabs 3", kind: "voice", protocol: "elevenlabs", base_url: fakes.voice.baseUrl, api_key: "xi-test-key" }), voice: "rachel-voice-id", model: null },
    };
    fakes.deepgram.script = { userSays: ["Is the blue kettle in stock?"], speechMs: 300, finalAfterMs: 200 };
    anthropic.script = { replies: [{ say: "Let me look.", toolUses: [{ name: "Check_Stock", input: { sku: "kettle-blue" } }] }, "Yes, it is in stock."] };
    const { call } = await dialPipeline(line, "+15550179", engine, { tool_ids: [tool.id], instructions: "You are Ava of the shop." });
    await call.until(() => call.heardMs >= 800, "greeting heard");
    await call.speak(tone("audio/pcmu", 700), 700);
    await waitFor(() => fakes.voice.requests.some((r) => r.text === "Yes, it is in stock."), "the answer voiced");

    const [first, second] = anthropic.requests;
    expect(first).toMatchObject({ model: "claude-haiku-4-5", stream: true, system: expect.stringContaining("You are Ava of the shop.") });
    expect(first!.tools?.map((t) => t.name)).toContain("Check_Stock");
    expect(first!.messages.at(-1)).toEqual({ role: "user", content: [{ type: "text", text: "Is the blue kettle in stock?" }] });
    expect(upstream.requests.at(-1)).toMatchObject({ path: "/stock", query: { sku: "kettle-blue" } });
    const [asked, answered] = second!.messages.slice(-2);
    expect(asked).toMatchObject({ role: "assistant", content: [{ type: "text", text: "Let me look." }, { type: "tool_use", name: "Check_Stock", input: { sku: "kettle-blue" } }] });
    expect(answered).toMatchObject({ role: "user", content: [{ type: "tool_result", tool_use_id: (asked!.content as Array<{ id?: string }>)[1]!.id }] });
    await call.hangUp();
  });
});
