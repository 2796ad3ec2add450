import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startPipelineFakes, type PipelineFakes } from "../../../../tests/fakes/pipeline-fakes.ts";
import { startFakeRealtime, type FakeRealtime } from "../../../../tests/fakes/fake-realtime.ts";
import { createAssistant, openLiveSocket, sessionIdFor, signUpCaller, startLiveApp, type LiveApp } from "../../../../tests/fakes/realtime-app.ts";

/**
 * A browser test call on a pipeline assistant of an organisation that has no OpenAI key: the
 * browser's 24 kHz PCM goes to the transcriber as linear16, the voice answers in pcm_24000, and a
 * typed message reaches the model.
 */

let realtime: FakeRealtime;
let fakes: PipelineFakes;
let live: LiveApp;

beforeAll(async () => {
  realtime = await startFakeRealtime({ apiKey: "sk-unused" });
  fakes = await startPipelineFakes("key");
  live = await startLiveApp(realtime);
});
afterAll(async () => {
  await live.app.close();
  await Promise.all([fakes.close(), realtime.close()]);
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
      transcriber: { provider_id: await add({ name: "DG", kind: "transcriber", protocol: "deepgram", base_url: fakes.deepgram.baseUrl, api_key: "dg-key" }), model: null, language: null },
      model: { provider_id: await add({ name: "OpenRouter", kind: "model", protocol: "openai-compatible", base_url: fakes.chat.baseUrl, api_key: fakes.chat.apiKey }), model: "meta/llama" },
      voice: { provider_id: await add({ name: "11", kind: "voice", protocol: "elevenlabs", base_url: fakes.voice.baseUrl, api_key: "xi-key" }), voice: "v1", model: null },
    };
    const assistant = await createAssistant(live.app, who, { voice_engine: engine });
    fakes.chat.script = { replies: ["Opening hours are nine to five."] };

    const browser = await openLiveSocket(live, who, await sessionIdFor(live.app, who, assistant.id));
    await browser.until(() => browser.statuses().includes("Assistant finished responding"), "greeting");
    expect(fakes.deepgram.connections[0]!.query).toMatchObject({ encoding: "linear16", sample_rate: "24000" });
    expect(fakes.voice.requests[0]).toMatchObject({ outputFormat: "pcm_24000", text: "Hello, this is Ava. How can I help?" });
    const greetingBytes = [...browser.audio.values()].reduce((a, b) => a + b, 0);
    expect(greetingBytes).toBe(fakes.voice.requests[0]!.audioMs * 48);

    browser.sendText("When are you open?");
    await browser.until(() => browser.transcript().some((e) => e.type === "assistant" && e.content === "Opening hours are nine to five."), "the typed question answered", 8000);
    expect(fakes.chat.requests[0]!.messages.at(-1)).toEqual({ role: "user", content: "When are you open?" });
    expect(realtime.connections).toHaveLength(0);
    browser.end();
    await browser.untilClosed();
  });
});
