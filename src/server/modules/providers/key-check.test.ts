import { createServer, type AddressInfo } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { closeInOrder } from "../../../../tests/close.ts";
import { startFakeAnthropic, type FakeAnthropic } from "../../../../tests/fakes/fake-anthropic.ts";
import { startFakeCartesia, type FakeCartesia } from "../../../../tests/fakes/fake-cartesia.ts";
import { startFakeChat, type FakeChat } from "../../../../tests/fakes/fake-chat-completions.ts";
import { startFakeDeepgram, type FakeDeepgram } from "../../../../tests/fakes/fake-deepgram.ts";
import { startFakeElevenLabs, type FakeElevenLabs } from "../../../../tests/fakes/fake-elevenlabs.ts";
import { startFakeOpenAISpeech, type FakeOpenAISpeech } from "../../../../tests/fakes/fake-openai-speech.ts";
import { startFakeOpenAITranscription, type FakeOpenAITranscription } from "../../../../tests/fakes/fake-openai-transcription.ts";
import { startPipelinePhone, type PipelinePhone } from "../../../../tests/fakes/pipeline-phone.ts";
import { PROVIDER_MESSAGES, type ProviderProtocol } from "../../../shared/providers.ts";

/**
 * Saving a provider asks the service whether it takes the key (its cheapest authenticated
 * request); a key it refuses is a 400 in words, and nothing is saved or changed.
 */

let line: PipelinePhone;
let fakes: { deepgram: FakeDeepgram; transcription: FakeOpenAITranscription; chat: FakeChat; anthropic: FakeAnthropic; elevenlabs: FakeElevenLabs; cartesia: FakeCartesia; speech: FakeOpenAISpeech };

beforeAll(async () => {
  fakes = {
    deepgram: await startFakeDeepgram({ apiKey: "dg-good" }),
    transcription: await startFakeOpenAITranscription({ apiKey: "sk-good" }),
    chat: await startFakeChat({ apiKey: "gsk-good" }),
    anthropic: await startFakeAnthropic({ apiKey: "sk-ant-good" }),
    elevenlabs: await startFakeElevenLabs({ apiKey: "xi-good" }),
    cartesia: await startFakeCartesia({ apiKey: "sk_car_good" }),
    speech: await startFakeOpenAISpeech({ apiKey: "sk-speech-good" }),
  };
  line = await startPipelinePhone();
});
afterAll(() => closeInOrder(line.app.app, ...Object.values(fakes), line.realtime));

const services: Array<[ProviderProtocol, string, () => { baseUrl: string; apiKey: string }]> = [
  ["deepgram", "transcriber", () => fakes.deepgram],
  ["openai-transcription", "transcriber", () => fakes.transcription],
  ["openai-compatible", "model", () => fakes.chat],
  ["anthropic", "model", () => fakes.anthropic],
  ["elevenlabs", "voice", () => fakes.elevenlabs],
  ["cartesia", "voice", () => fakes.cartesia],
  ["openai-speech", "voice", () => fakes.speech],
];

const post = (body: object) => line.app.app.inject({ method: "POST", url: "/api/providers", headers: { cookie: line.owner.cookie }, payload: body });
const list = async () => ((await line.app.app.inject({ method: "GET", url: "/api/providers", headers: { cookie: line.owner.cookie } })).json() as { data: unknown }).data as Array<{ id: string; api_key_hint: string }>;

describe("the key check when a provider is saved", () => {
  it.each(services)("%s: a key the service refuses is a 400 in words and is not saved; its own key is", async (protocol, kind, fake) => {
    const { baseUrl, apiKey } = fake();
    const before = (await list()).length;
    const refused = await post({ name: `${protocol} wrong`, kind, protocol, base_url: baseUrl, api_key: "not-the-key-0000" });
    expect(refused.statusCode).toBe(400);
    expect(refused.json().error).toEqual({ code: "provider_key_refused", message: PROVIDER_MESSAGES.keyRefused(protocol, 401) });
    expect(await list()).toHaveLength(before);

    const saved = await post({ name: `${protocol} right`, kind, protocol, base_url: baseUrl, api_key: apiKey });
    expect(saved.statusCode, saved.body).toBe(201);
  });

  it("refuses a changed key the service does not take, and keeps the saved one", async () => {
    const saved = await post({ name: "Voice to change", kind: "voice", protocol: "elevenlabs", base_url: fakes.elevenlabs.baseUrl, api_key: "xi-good" });
    const id = saved.json().id as string;
    const patched = await line.app.app.inject({ method: "PATCH", url: `/api/providers/${id}`, headers: { cookie: line.owner.cookie }, payload: { api_key: "xi-typo-1234" } });
    expect(patched.statusCode).toBe(400);
    expect(patched.json().error.message).toBe(PROVIDER_MESSAGES.keyRefused("elevenlabs", 401));
    expect((await list()).find((p) => p.id === id)!.api_key_hint).toBe(saved.json().api_key_hint);
  });

  it("does not ask an address on the server's own network that is not allow-listed: the save goes ahead unchecked", async () => {
    // A listener on loopback, named "localhost" (TOOL_ALLOWED_HOSTS lists 127.0.0.1 only): the guard
    // refuses the address before connecting, so not even a TCP connection reaches it.
    let connections = 0;
    const listener = createServer((socket) => {
      connections++;
      socket.destroy();
    });
    await new Promise<void>((resolve) => listener.listen(0, "127.0.0.1", resolve));
    const port = (listener.address() as AddressInfo).port;
    try {
      const saved = await post({ name: "Inside voice", kind: "voice", protocol: "elevenlabs", base_url: `https://localhost:${port}`, api_key: "xi-anything-1234" });
      expect(saved.statusCode, saved.body).toBe(201);
      expect(connections).toBe(0);
    } finally {
      await new Promise((resolve) => listener.close(resolve));
    }
  });
});
