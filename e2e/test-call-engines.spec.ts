/**
 * The Test Call panel on the two other voice engines, end to end: Chromium's fake microphone
 * plays the caller's line; a GPT-Live assistant talks to the stand-in GPT-Live on the fake OpenAI
 * server, a pipeline assistant to stand-ins for Deepgram, Chat Completions and ElevenLabs. What the
 * user sees: the greeting, their own words, the tool call and the answer; the record then has
 * the conversation.
 */
import { eq } from "drizzle-orm";
import type { Page } from "@playwright/test";
import { chromiumArgs } from "../playwright.config.ts";
import { calls } from "../src/server/db/schema.ts";
import { callLogsSchema } from "../src/shared/calls.ts";
import { startFakeChat, type FakeChat } from "../tests/fakes/fake-chat-completions.ts";
import { startFakeDeepgram, type FakeDeepgram } from "../tests/fakes/fake-deepgram.ts";
import { startFakeElevenLabs, type FakeElevenLabs } from "../tests/fakes/fake-elevenlabs.ts";
import { serveGptLive } from "../tests/fakes/fake-gpt-live.ts";
import { startToolUpstream, type ToolUpstream } from "../tests/fakes/tool-upstream.ts";
import { expect, expectToast, test, type TestServer } from "./fixtures.ts";
import { callerMicrophone, createWeatherAssistant, GREETING, openTestCall, storeOpenAiKey, userIdOf } from "./test-call.helpers.ts";

const CALLER_SAYS = "What is the weather in Paris?";
const ANSWER = "The weather service answered for Paris.";
const audio = callerMicrophone(CALLER_SAYS);
test.afterAll(audio.remove);
test.use({ launchOptions: { executablePath: process.env.CHROMIUM_PATH ?? "/usr/bin/chromium", args: [...chromiumArgs, ...audio.args] } });

let upstream: ToolUpstream;
let deepgram: FakeDeepgram;
let chat: FakeChat;
let voice: FakeElevenLabs;
test.beforeAll(async () => {
  upstream = await startToolUpstream();
  deepgram = await startFakeDeepgram({ apiKey: "dg-e2e-0123456789" });
  chat = await startFakeChat({ apiKey: "gsk-e2e-0123456789" });
  voice = await startFakeElevenLabs({ apiKey: "xi-e2e-0123456789" });
});
test.afterAll(async () => {
  for (const fake of [upstream, deepgram, chat, voice]) await fake.close();
});

/** Saves a provider in Settings → Providers through the API; its id. */
async function addProvider(page: Page, server: TestServer, data: Record<string, unknown>): Promise<string> {
  const res = await page.request.post(`${server.url}/api/providers`, { data });
  expect(res.status(), await res.text()).toBe(201);
  return ((await res.json()) as { id: string }).id;
}

/** Moves the weather assistant onto `engine`. */
async function useEngine(page: Page, server: TestServer, assistantId: string, engine: Record<string, unknown>) {
  const res = await page.request.patch(`${server.url}/api/assistants/${assistantId}`, { data: { voice_engine: engine } });
  expect(res.ok(), await res.text()).toBe(true);
}

/** Starts the call in the panel; the greeting, the caller's words, the tool call and the answer appear; the call is ended. */
async function talk(page: Page, assistantName: string) {
  const panel = await openTestCall(page, assistantName);
  const entries = panel.getByTestId("transcript-entry");
  await panel.getByRole("button", { name: "Start Call" }).click();
  await expectToast(page, "Call started successfully");
  await expect(entries.filter({ hasText: GREETING })).toHaveAttribute("data-type", "assistant");
  await expect(entries.filter({ hasText: CALLER_SAYS })).toHaveAttribute("data-type", "user");
  await expect(entries.filter({ hasText: "Calling tool Get Weather" })).toHaveAttribute("data-type", "tool-request");
  await expect(entries.filter({ hasText: ANSWER })).toHaveAttribute("data-type", "assistant");
  await panel.getByRole("button", { name: "End Call" }).click();
  await expectToast(page, "Call ended");
  await expect(panel.getByTestId("call-status")).toHaveText("Call completed");
}

async function recordOf(server: TestServer, email: string) {
  const organizationId = await userIdOf(server, email);
  await expect.poll(async () => (await server.db.select().from(calls).where(eq(calls.organizationId, organizationId)))[0]?.endTime ?? null).not.toBeNull();
  const [row] = await server.db.select().from(calls).where(eq(calls.organizationId, organizationId));
  return { row: row!, logs: callLogsSchema.parse(row!.logs) };
}

test("a test call on a GPT-Live assistant: greeting, spoken question, delegated tool call, answer, record", async ({ page, server, user }) => {
  await storeOpenAiKey(page, server);
  const assistant = await createWeatherAssistant(page, server, upstream);
  await useEngine(page, server, assistant.id, { type: "gpt-live", model: "gpt-live-1", voice: "marin" });
  const live = serveGptLive(server.openai, { userSays: [CALLER_SAYS], speechMs: 600, replies: [{ call: { name: "Get_Weather", arguments: { city: "Paris" } }, after: ANSWER }] });

  await talk(page, assistant.name);
  expect(live.connections).toHaveLength(1);
  expect(upstream.requests.filter((r) => r.path === "/weather").map((r) => r.query)).toEqual([{ city: "Paris" }]);
  const { row, logs } = await recordOf(server, user.email);
  expect(row).toMatchObject({ assistantId: assistant.id, endedReason: "User ended call" });
  expect(logs.isTest).toBe(true);
  expect(logs.transcript.map((e) => e.content)).toEqual(expect.arrayContaining([GREETING, CALLER_SAYS, ANSWER]));
});

test("a test call on a pipeline assistant: greeting, spoken question, tool call, answer, record with each service's usage", async ({ page, server, user }) => {
  const assistant = await createWeatherAssistant(page, server, upstream);
  await useEngine(page, server, assistant.id, {
    type: "pipeline",
    transcriber: { provider_id: await addProvider(page, server, { name: "Deepgram", kind: "transcriber", protocol: "deepgram", base_url: deepgram.baseUrl, api_key: deepgram.apiKey }), model: "nova-3", language: "en" },
    model: { provider_id: await addProvider(page, server, { name: "OpenAI", kind: "model", protocol: "openai-compatible", base_url: chat.baseUrl, api_key: chat.apiKey }), model: "gpt-4o-mini" },
    voice: { provider_id: await addProvider(page, server, { name: "ElevenLabs", kind: "voice", protocol: "elevenlabs", base_url: voice.baseUrl, api_key: voice.apiKey }), voice: "rachel-voice-id", model: null },
  });
  // The microphone's audio goes to the transcriber from the start: the line is heard after the greeting.
  deepgram.script = { userSays: [CALLER_SAYS], speechMs: 3000, finalAfterMs: 300 };
  chat.script = { replies: [{ toolCalls: [{ name: "get_weather", arguments: { city: "Paris" } }] }, ANSWER] };

  await talk(page, assistant.name);
  expect(deepgram.connections.at(-1)!.query).toMatchObject({ encoding: "linear16", sample_rate: "24000" });
  expect(voice.requests.map((r) => r.text)).toEqual(expect.arrayContaining([GREETING, ANSWER]));
  const { row, logs } = await recordOf(server, user.email);
  expect(row).toMatchObject({ assistantId: assistant.id, endedReason: "User ended call" });
  expect(logs.transcript.map((e) => e.content)).toEqual(expect.arrayContaining([GREETING, CALLER_SAYS, ANSWER]));
  expect(logs.serviceUsage!.transcriberSeconds).toBeGreaterThan(0);
  expect(logs.serviceUsage!.voiceCharacters).toBe(voice.requests.reduce((sum, r) => sum + r.text.length, 0));
});
