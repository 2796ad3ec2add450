/**
 * The Test Call panel on a pipeline assistant, end to end: Chromium's fake microphone plays the
 * caller's line; the assistant talks to stand-ins for Deepgram, Chat Completions and ElevenLabs.
 * What the user sees: the greeting, their own words, the tool call and the answer; the record
 * then has the conversation and each service's usage.
 */
import { chromiumArgs } from "../playwright.config.ts";
import { startFakeChat, type FakeChat } from "../tests/fakes/fake-chat-completions.ts";
import { startFakeDeepgram, type FakeDeepgram } from "../tests/fakes/fake-deepgram.ts";
import { startFakeElevenLabs, type FakeElevenLabs } from "../tests/fakes/fake-elevenlabs.ts";
import { startToolUpstream, type ToolUpstream } from "../tests/fakes/tool-upstream.ts";
import { expect, test } from "./fixtures.ts";
import { addProvider, callerMicrophone, createWeatherAssistant, GREETING, lastCallOf, talkThrough, useEngine } from "./test-call.helpers.ts";

const CALLER_SAYS = "What is the weather in Paris?";
const ANSWER = "The weather service answered for Paris.";
// The line once in a test's time (Chromium loops the file): the voice activity detector would hear
// a repeat as the caller speaking again and interrupt the reply to the first (on a slow machine
// before its tool call came), and the stand-in transcriber has no words for a repeat.
const audio = callerMicrophone(CALLER_SAYS, 20);
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

  await talkThrough(page, assistant.name, { says: CALLER_SAYS, answer: ANSWER });
  expect(deepgram.connections.at(-1)!.query).toMatchObject({ encoding: "linear16", sample_rate: "24000" });
  expect(voice.requests.map((r) => r.text)).toEqual(expect.arrayContaining([GREETING, ANSWER]));
  const { row, logs } = await lastCallOf(server, user.email);
  expect(row).toMatchObject({ assistantId: assistant.id, endedReason: "User ended call" });
  expect(logs.transcript.map((e) => e.content)).toEqual(expect.arrayContaining([GREETING, CALLER_SAYS, ANSWER]));
  expect(logs.serviceUsage!.transcriberSeconds).toBeGreaterThan(0);
  expect(logs.serviceUsage!.voiceCharacters).toBe(voice.requests.reduce((sum, r) => sum + r.text.length, 0));
});
