/**
 * What the pipeline's phone-call tests share: the app wired to a Twilio stand-in (and a Realtime
 * stand-in that a pipeline call must never reach), an owner, their providers, a call placed to a
 * pipeline assistant's number, and the call's record once it has ended.
 */
import { eq } from "drizzle-orm";
import { afterAll, beforeAll, expect } from "vitest";
import { calls } from "../../src/server/db/schema.ts";
import { callLogsSchema } from "../../src/shared/calls.ts";
import { until } from "../until.ts";
import { closeInOrder } from "../close.ts";
import { serveGptLive, type FakeGptLive } from "./fake-gpt-live.ts";
import { startFakeRealtime, type FakeRealtime } from "./fake-realtime.ts";
import { createAssistant, createTool, type Caller } from "./realtime-app.ts";
import { orderLookupTool, startToolUpstream, type ToolUpstream } from "./tool-upstream.ts";
import { insertPhoneNumber, phoneOwner, startPhoneApp, TEST_AUTH_TOKEN, type PhoneApp } from "./twilio-app.ts";
import { TwilioCaller } from "./twilio-caller.ts";

export const CALLER_NUMBER = "+15559877";
export const GREETING = "Hello, this is Ava. How can I help?";

export interface PipelinePhone {
  realtime: FakeRealtime;
  app: PhoneApp;
  owner: Caller;
}

export async function startPipelinePhone(config: Record<string, string> = {}): Promise<PipelinePhone> {
  const realtime = await startFakeRealtime({ apiKey: "sk-unused" });
  const app = await startPhoneApp(realtime, config);
  const owner = await phoneOwner(app, realtime.apiKey);
  return { realtime, app, owner };
}

/**
 * A pipeline phone with the GPT-Live stand-in served on its Realtime base URL (speaking
 * `msPerWord` a word) and a tool upstream, made before the file's tests and closed after them.
 */
export function setUpGptLivePhone(msPerWord: number) {
  const phone = {} as { line: PipelinePhone; live: FakeGptLive; upstream: ToolUpstream };
  beforeAll(async () => {
    phone.upstream = await startToolUpstream();
    phone.line = await startPipelinePhone();
    phone.live = serveGptLive(phone.line.realtime, { msPerWord });
  });
  afterAll(() => closeInOrder(phone.line?.app.app, phone.upstream, phone.line?.realtime));
  return phone;
}

/** Saves a provider in Settings → Providers as the owner; its id. */
export async function addProvider(line: PipelinePhone, body: Record<string, unknown>): Promise<string> {
  const res = await line.app.app.inject({ method: "POST", url: "/api/providers", headers: { cookie: line.owner.cookie }, payload: body });
  expect(res.statusCode, res.body).toBe(201);
  return res.json().id;
}

/** An assistant on `engine` answering `to`, and a caller on the line to it (stream open). */
export async function dialPipeline(line: PipelinePhone, to: string, engine: Record<string, unknown>, assistant: Record<string, unknown> = {}) {
  const created = await createAssistant(line.app.app, line.owner, { ...assistant, voice_engine: engine });
  await insertPhoneNumber(line.app, line.owner, to, created.id);
  const call = await TwilioCaller.dial({ origin: line.app.origin, authToken: TEST_AUTH_TOKEN, to, from: CALLER_NUMBER });
  expect(call.webhookStatus).toBe(200);
  await call.openStream();
  return { call, assistantId: created.id };
}

/** The call's record, once it has ended. */
export async function endedRecord(line: PipelinePhone, callSid: string) {
  const row = await until(
    "the call's record finished",
    async () => (await line.app.db.select().from(calls).where(eq(calls.providerCallSid, callSid)))[0],
    (found) => Boolean(found?.endTime),
  );
  return row!;
}

/** The owner's "Lookup Order" tool (the model's `Lookup_Order`), calling `{origin}/orders?order_id=…`. */
export function createOrderLookup(line: PipelinePhone, origin: string) {
  return createTool(line.app.app, line.owner, orderLookupTool(origin));
}

/** A finished record's transcript as [type, content] pairs, in order. */
export function transcriptLines(row: { logs: unknown }): Array<[string, string]> {
  return callLogsSchema.parse(row.logs).transcript.map((e) => [e.type, e.content]);
}

/**
 * What the ended record of an order-lookup call keeps, whatever the engine or carrier: the
 * greeting, the caller's question and the tool call, and `then`, in its transcript; with
 * `interrupted`, an answer cut short; with `voice`, every character sent to that voice counted.
 * The parsed logs, for the checks an engine adds.
 */
export function expectWholeCallRecord(row: { logs: unknown }, then: Array<[string, string]>, options: { interrupted?: boolean; voice?: { requests: Array<{ text: string }> } } = {}) {
  const logs = callLogsSchema.parse(row.logs);
  expect(transcriptLines(row)).toEqual(expect.arrayContaining([["assistant", GREETING], ["user", "Where is my order 42?"], ["tool-request", "Calling tool Lookup Order"], ...then]));
  if (options.interrupted) expect(logs.transcript.some((e) => e.interruptedAtMs !== undefined)).toBe(true);
  if (options.voice) expect(logs.serviceUsage!.voiceCharacters).toBe(options.voice.requests.reduce((sum, r) => sum + r.text.length, 0));
  return logs;
}

/** The Calls page's figures for the line's organisation (GET /api/calls/stats, all time). */
export async function callStatsOf(line: PipelinePhone): Promise<Record<string, unknown>> {
  const res = await line.app.app.inject({ method: "GET", url: "/api/calls/stats", headers: { cookie: line.owner.cookie } });
  return res.json() as Record<string, unknown>;
}

/** The stand-ins a pipeline engine is made of. */
export interface PipelineServices {
  deepgram: { baseUrl: string; apiKey: string };
  chat: { baseUrl: string; apiKey: string };
  voice: { baseUrl: string; apiKey: string };
}

/** Deepgram, an OpenAI-compatible model and ElevenLabs saved as the owner's providers (`tag` keeps their names apart); the engine naming them. */
export async function pipelineEngine(line: PipelinePhone, s: PipelineServices, tag: string) {
  return {
    type: "pipeline",
    transcriber: { provider_id: await addProvider(line, { name: `Deepgram ${tag}`, kind: "transcriber", protocol: "deepgram", base_url: s.deepgram.baseUrl, api_key: s.deepgram.apiKey }), model: "nova-3", language: "en" },
    model: { provider_id: await addProvider(line, { name: `OpenAI ${tag}`, kind: "model", protocol: "openai-compatible", base_url: s.chat.baseUrl, api_key: s.chat.apiKey }), model: "gpt-4o-mini" },
    voice: { provider_id: await addProvider(line, { name: `ElevenLabs ${tag}`, kind: "voice", protocol: "elevenlabs", base_url: s.voice.baseUrl, api_key: s.voice.apiKey }), voice: "rachel-voice-id", model: "eleven_flash_v2_5" },
  };
}
