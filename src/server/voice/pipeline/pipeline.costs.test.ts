import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { closeInOrder } from "../../../../tests/close.ts";
import { startFakeAnthropic, type FakeAnthropic } from "../../../../tests/fakes/fake-anthropic.ts";
import { startPipelineFakes, type PipelineFakes } from "../../../../tests/fakes/pipeline-fakes.ts";
import { addProvider as saveProvider, dialPipeline, endedRecord, startPipelinePhone, type PipelinePhone } from "../../../../tests/fakes/pipeline-phone.ts";
import { tone } from "../../../../tests/fakes/realtime-audio.ts";
import { until } from "../../../../tests/until.ts";
import { callRecordSchema, type ProviderCostLine } from "../../../shared/call-records.ts";
import { callLogsSchema } from "../../../shared/calls.ts";
import { MODEL_PRICES, TRANSCRIBER_PRICES, VOICE_PRICES } from "../../../shared/service-prices.ts";

/**
 * What a pipeline phone call cost, service by service, as the call's page shows it: the
 * transcriber's minutes of audio, the model's tokens as its stand-in reported them (Chat
 * Completions' usage chunk, Anthropic's message_start/message_delta), and the voice's characters,
 * each at its list price, or at the provider's own price when Settings → Providers gives one.
 */

let line: PipelinePhone;
let fakes: PipelineFakes;
let anthropic: FakeAnthropic;

const addProvider = (body: Record<string, unknown>) => saveProvider(line, body);
const round = (usd: number) => Math.round(usd * 1e6) / 1e6;

beforeAll(async () => {
  fakes = await startPipelineFakes("test-key");
  anthropic = await startFakeAnthropic({ apiKey: "sk-ant-test" });
  line = await startPipelinePhone();
});
afterAll(() => closeInOrder(line.app.app, anthropic, fakes, line.realtime));

/** The call's page: GET /api/calls/:id as the owner sees it. */
async function callPage(callSid: string) {
  const row = await endedRecord(line, callSid);
  const res = await line.app.app.inject({ method: "GET", url: `/api/calls/${row.id}`, headers: { cookie: line.owner.cookie } });
  expect(res.statusCode, res.body).toBe(200);
  return { record: callRecordSchema.parse(res.json()), logs: callLogsSchema.parse(row.logs) };
}

const lineOf = (lines: ProviderCostLine[], kind: ProviderCostLine["kind"]) => lines.find((l) => l.kind === kind)!;

describe("the cost of a pipeline call", () => {
  it("prices each service's usage at its list price, line by line", async () => {
    const engine = {
      type: "pipeline",
      transcriber: { provider_id: await addProvider({ name: "Deepgram", kind: "transcriber", protocol: "deepgram", base_url: fakes.deepgram.baseUrl, api_key: "dg-test-key" }), model: "nova-3", language: "en" },
      model: { provider_id: await addProvider({ name: "OpenAI", kind: "model", protocol: "openai-compatible", base_url: fakes.chat.baseUrl, api_key: "gsk-test-key" }), model: "gpt-4o-mini" },
      voice: { provider_id: await addProvider({ name: "ElevenLabs", kind: "voice", protocol: "elevenlabs", base_url: fakes.voice.baseUrl, api_key: "xi-test-key" }), voice: "rachel-voice-id", model: "eleven_flash_v2_5" },
    };
    fakes.deepgram.script = { userSays: ["Where is my order?"], speechMs: 300, finalAfterMs: 200 };
    fakes.chat.script = { replies: ["It left our warehouse on Monday."] };
    const { call } = await dialPipeline(line, "+15550181", engine);
    await call.until(() => call.heardMs >= 800, "greeting heard");
    await call.speak(tone("audio/pcmu", 700), 700);
    await until("the answer voiced", async () => fakes.voice.requests.some((r) => r.text === "It left our warehouse on Monday."), Boolean);
    await call.hangUp();

    const { record, logs } = await callPage(call.callSid);
    const cost = record.provider_cost!;
    const seconds = logs.serviceUsage!.transcriberSeconds;
    const characters = fakes.voice.requests.reduce((sum, r) => sum + r.text.length, 0);
    expect(seconds).toBeGreaterThan(0);
    expect(fakes.chat.usage.prompt).toBeGreaterThan(0);

    expect(lineOf(cost.lines, "transcriber")).toMatchObject({ model: "nova-3", seconds, cost: round((seconds / 60) * TRANSCRIBER_PRICES.deepgram.perMinute["nova-3"]!) });
    const price = MODEL_PRICES["gpt-4o-mini"]!;
    expect(lineOf(cost.lines, "model")).toMatchObject({
      model: "gpt-4o-mini",
      text_in: fakes.chat.usage.prompt,
      text_out: fakes.chat.usage.completion,
      cost: round((fakes.chat.usage.prompt * price.input + fakes.chat.usage.completion * price.output) / 1e6),
    });
    expect(lineOf(cost.lines, "voice")).toMatchObject({ model: "eleven_flash_v2_5", characters, cost: round((characters * VOICE_PRICES.elevenlabs.perMillionCharacters.eleven_flash_v2_5!) / 1e6) });
    expect(cost.total).toBeCloseTo(cost.lines.reduce((sum, l) => sum + l.cost!, 0), 6);
    expect(cost.total).toBeGreaterThan(0);
    // A phone call's figure is its real cost: these services plus Twilio's price (not yet rated here).
    expect(record.cost_basis).toBe("provider");
    expect(record.cost).toBeCloseTo(cost.total!, 6);
  });

  it("counts the transcriber's minutes as Deepgram reports them when the stream closes", async () => {
    const engine = {
      type: "pipeline",
      transcriber: { provider_id: await addProvider({ name: "Deepgram (reported)", kind: "transcriber", protocol: "deepgram", base_url: fakes.deepgram.baseUrl, api_key: "dg-test-key" }), model: "nova-3", language: null },
      model: { provider_id: await addProvider({ name: "OpenAI (reported)", kind: "model", protocol: "openai-compatible", base_url: fakes.chat.baseUrl, api_key: "gsk-test-key" }), model: "gpt-4o-mini" },
      voice: { provider_id: await addProvider({ name: "ElevenLabs (reported)", kind: "voice", protocol: "elevenlabs", base_url: fakes.voice.baseUrl, api_key: "xi-test-key" }), voice: "rachel-voice-id", model: null },
    };
    fakes.deepgram.script = { userSays: ["Hello?"], speechMs: 300, finalAfterMs: 200 };
    fakes.chat.script = { replies: ["Hello again."] };
    // Deepgram bills the audio it says it received: a figure no count of ours would give.
    fakes.deepgram.reportSeconds = 61.25;
    const connections = fakes.deepgram.connections.length;
    const { call } = await dialPipeline(line, "+15550183", engine);
    await call.until(() => call.heardMs >= 800, "greeting heard");
    await call.speak(tone("audio/pcmu", 700), 700);
    await until("the answer voiced", async () => fakes.voice.requests.some((r) => r.text === "Hello again."), Boolean);
    await call.hangUp();

    const { record, logs } = await callPage(call.callSid);
    const metadata = fakes.deepgram.connections[connections]!.sent.find((m) => m["type"] === "Metadata");
    expect(metadata).toMatchObject({ duration: 61.25 });
    expect(logs.serviceUsage!.transcriberSeconds).toBe(61.25);
    expect(lineOf(record.provider_cost!.lines, "transcriber")).toMatchObject({ seconds: 61.25, cost: round((61.25 / 60) * TRANSCRIBER_PRICES.deepgram.perMinute["nova-3"]!) });
  });

  it("prices a provider's own unit price of 0 (a model run in-house) at nothing, with its usage still shown", async () => {
    const engine = {
      type: "pipeline",
      transcriber: { provider_id: await addProvider({ name: "Local ears", kind: "transcriber", protocol: "deepgram", base_url: fakes.deepgram.baseUrl, api_key: "dg-test-key", unit_price: 0 }), model: null, language: null },
      model: { provider_id: await addProvider({ name: "Claude (negotiated)", kind: "model", protocol: "anthropic", base_url: anthropic.baseUrl, api_key: "sk-ant-test", unit_price: 0 }), model: "claude-haiku-4-5" },
      voice: { provider_id: await addProvider({ name: "Local voice", kind: "voice", protocol: "elevenlabs", base_url: fakes.voice.baseUrl, api_key: "xi-test-key", unit_price: 0 }), voice: "rachel-voice-id", model: null },
    };
    fakes.deepgram.script = { userSays: ["Is the kettle in stock?"], speechMs: 300, finalAfterMs: 200 };
    anthropic.script = { replies: ["Yes, the kettle is in stock."] };
    const { call } = await dialPipeline(line, "+15550182", engine);
    await call.until(() => call.heardMs >= 800, "greeting heard");
    await call.speak(tone("audio/pcmu", 700), 700);
    await until("the answer voiced", async () => fakes.voice.requests.some((r) => r.text === "Yes, the kettle is in stock."), Boolean);
    await call.hangUp();

    const { record } = await callPage(call.callSid);
    const cost = record.provider_cost!;
    expect(cost.total).toBe(0);
    expect(cost.lines.map((l) => [l.kind, l.cost])).toEqual([
      ["transcriber", 0],
      ["model", 0],
      ["voice", 0],
    ]);
    // Anthropic's usage: the prompt's input_tokens at message_start, the answer's output_tokens at message_delta.
    expect(lineOf(cost.lines, "model")).toMatchObject({ text_in: 10 * anthropic.requests.length, text_out: 12 * anthropic.requests.length });
    expect(lineOf(cost.lines, "voice").characters).toBeGreaterThan(0);
  });

  it("refuses a negative unit price in plain words", async () => {
    const res = await line.app.app.inject({
      method: "POST",
      url: "/api/providers",
      headers: { cookie: line.owner.cookie },
      payload: { name: "Bad price", kind: "voice", protocol: "elevenlabs", base_url: fakes.voice.baseUrl, api_key: "xi-test-key", unit_price: -1 },
    });
    expect(res.statusCode).toBe(400);
    expect(res.body).toContain("The unit price must be a number of dollars, 0 or more");
  });
});
