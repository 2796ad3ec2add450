import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startFakeChat, type FakeChat } from "../../../../tests/fakes/fake-chat-completions.ts";
import { startFakeDeepgram, type FakeDeepgram } from "../../../../tests/fakes/fake-deepgram.ts";
import { startFakeElevenLabs, type FakeElevenLabs } from "../../../../tests/fakes/fake-elevenlabs.ts";
import { startFakeRealtime, type FakeRealtime } from "../../../../tests/fakes/fake-realtime.ts";
import { createAssistant, openLiveSocket, sessionIdFor, signUpCaller, startLiveApp, type LiveApp } from "../../../../tests/fakes/realtime-app.ts";

/**
 * A browser test call on a pipeline assistant of an organisation that has no OpenAI key: the
 * browser's 24 kHz PCM goes to the transcriber as linear16, the voice answers in pcm_24000, and a
 * typed message reaches the model.
 */

let realtime: FakeRealtime;
let deepgram: FakeDeepgram;
let chat: FakeChat;
let voice: FakeElevenLabs;
let live: LiveApp;

beforeAll(async () => {
  realtime = await startFakeRealtime({ apiKey: "sk-unused" });
  deepgram = await startFakeDeepgram({ apiKey: "dg-key" });
  chat = await startFakeChat({ apiKey: "or-key" });
  voice = await startFakeElevenLabs({ apiKey: "xi-key" });
  live = await startLiveApp(realtime);
});
afterAll(async () => {
  await live.app.close();
  await Promise.all([voice.close(), chat.close(), deepgram.close(), realtime.close()]);
});

describe("a browser test call on a pipeline assistant", () => {
  it("runs without an OpenAI key, in the browser's audio format, and answers typed text", async () => {
    const who = await signUpCaller(live.app);
    const add = async (body: object) => {
      const res = await live.app.inject({ method: "POST", url: "/api/providers", headers: { cookie: who.cookie }, payload: body });
      expect(res.statusCode, res.body).toBe(201);
      return res.json().id as string;
    };
    const engine = {
      type: "pipeline",
      transcriber: { provider_id: await add({ name: "DG", kind: "transcriber", protocol: "deepgram", base_url: deepgram.baseUrl, api_key: "dg-key" }), model: null, language: null },
      model: { provider_id: await add({ name: "OpenRouter", kind: "model", protocol: "openai-compatible", base_url: chat.baseUrl, api_key: "or-key" }), model: "meta/llama" },
      voice: { provider_id: await add({ name: "11", kind: "voice", protocol: "elevenlabs", base_url: voice.baseUrl, api_key: "xi-key" }), voice: "v1", model: null },
    };
    const assistant = await createAssistant(live.app, who, { voice_engine: engine });
    chat.script = { replies: ["Opening hours are nine to five."] };

    const browser = await openLiveSocket(live, who, await sessionIdFor(live.app, who, assistant.id));
    await browser.until(() => browser.statuses().includes("Assistant finished responding"), "greeting");
    expect(deepgram.connections[0]!.query).toMatchObject({ encoding: "linear16", sample_rate: "24000" });
    expect(voice.requests[0]).toMatchObject({ outputFormat: "pcm_24000", text: "Hello, this is Ava. How can I help?" });
    const greetingBytes = [...browser.audio.values()].reduce((a, b) => a + b, 0);
    expect(greetingBytes).toBe(voice.requests[0]!.audioMs * 48);

    browser.sendText("When are you open?");
    await browser.until(() => browser.transcript().some((e) => e.type === "assistant" && e.content === "Opening hours are nine to five."), "the typed question answered", 8000);
    expect(chat.requests[0]!.messages.at(-1)).toEqual({ role: "user", content: "When are you open?" });
    expect(realtime.connections).toHaveLength(0);
    browser.end();
    await browser.untilClosed();
  });
});
