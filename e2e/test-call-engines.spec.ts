/**
 * The Test Call panel on a GPT-Live assistant, end to end: Chromium's fake microphone plays the
 * caller's line; the assistant talks to the stand-in GPT-Live on the fake OpenAI server. What the
 * user sees: the greeting, their own words, the tool call and the answer; the record then has
 * the conversation. (The pipeline engine: test-call-pipeline.spec.ts.)
 */
import { chromiumArgs } from "../playwright.config.ts";
import { serveGptLive } from "../tests/fakes/fake-gpt-live.ts";
import { startToolUpstream, type ToolUpstream } from "../tests/fakes/tool-upstream.ts";
import { expect, test } from "./fixtures.ts";
import { callerMicrophone, createWeatherAssistant, GREETING, lastCallOf, storeOpenAiKey, talkThrough, useEngine } from "./test-call.helpers.ts";

const CALLER_SAYS = "What is the weather in Paris?";
const ANSWER = "The weather service answered for Paris.";
const audio = callerMicrophone(CALLER_SAYS);
test.afterAll(audio.remove);
test.use({ launchOptions: { executablePath: process.env.CHROMIUM_PATH ?? "/usr/bin/chromium", args: [...chromiumArgs, ...audio.args] } });

let upstream: ToolUpstream;
test.beforeAll(async () => {
  upstream = await startToolUpstream();
});
test.afterAll(async () => {
  await upstream.close();
});

test("a test call on a GPT-Live assistant: greeting, spoken question, delegated tool call, answer, record", async ({ page, server, user }) => {
  await storeOpenAiKey(page, server);
  const assistant = await createWeatherAssistant(page, server, upstream);
  await useEngine(page, server, assistant.id, { type: "gpt-live", model: "gpt-live-1", voice: "marin" });
  const live = serveGptLive(server.openai, { userSays: [CALLER_SAYS], speechMs: 600, replies: [{ call: { name: "Get_Weather", arguments: { city: "Paris" } }, after: ANSWER }] });

  await talkThrough(page, assistant.name, { says: CALLER_SAYS, answer: ANSWER });
  expect(live.connections).toHaveLength(1);
  expect(upstream.requests.filter((r) => r.path === "/weather").map((r) => r.query)).toEqual([{ city: "Paris" }]);
  const { row, logs } = await lastCallOf(server, user.email);
  expect(row).toMatchObject({ assistantId: assistant.id, endedReason: "User ended call" });
  expect(logs.isTest).toBe(true);
  expect(logs.transcript.map((e) => e.content)).toEqual(expect.arrayContaining([GREETING, CALLER_SAYS, ANSWER]));
});
