import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { closeInOrder } from "../../../../tests/close.ts";
import { startPipelineFakes, type PipelineFakes } from "../../../../tests/fakes/pipeline-fakes.ts";
import { errorOf, signUpAndLogIn, useTestApp, expectBody } from "../../../../tests/harness.ts";
import { VOICE_ENGINE_MESSAGES, type Provider } from "../../../shared/providers.ts";

const file = useTestApp({ config: { TOOL_ALLOWED_HOSTS: "127.0.0.1" } });

// Saving checks each key with its service: stand-ins take the checks.
let fakes: PipelineFakes;
beforeAll(async () => {
  fakes = await startPipelineFakes("key-0123456789");
});
afterAll(() => closeInOrder(fakes));

async function providersOf(who: { cookie: string }) {
  const add = async (body: object): Promise<Provider> => {
    return expectBody(await file.as(who).post("/api/providers", body), 201);
  };
  return {
    transcriber: await add({ name: "Deepgram", kind: "transcriber", protocol: "deepgram", base_url: fakes.deepgram.baseUrl, api_key: fakes.deepgram.apiKey }),
    model: await add({ name: "Groq", kind: "model", protocol: "openai-compatible", base_url: fakes.chat.baseUrl, api_key: fakes.chat.apiKey }),
    voice: await add({ name: "ElevenLabs", kind: "voice", protocol: "elevenlabs", base_url: fakes.voice.baseUrl, api_key: fakes.voice.apiKey }),
  };
}

const pipeline = (p: Awaited<ReturnType<typeof providersOf>>) => ({
  type: "pipeline",
  transcriber: { provider_id: p.transcriber.id, model: "nova-3", language: "en" },
  model: { provider_id: p.model.id, model: "llama-3.3-70b-versatile" },
  voice: { provider_id: p.voice.id, voice: "21m00Tcm4TlvDq8EAJ6m", model: "eleven_flash_v2_5" },
});
/** What is saved: the pipeline as sent, its turn ended by the transcriber unless it said otherwise. */
const saved = (p: Awaited<ReturnType<typeof providersOf>>) => ({ ...pipeline(p), turn_end: "transcriber" });

describe("an assistant's voice engine", () => {
  it("is OpenAI Realtime by default, and a pipeline of the organisation's providers when chosen, kept in the published version", async () => {
    const who = await signUpAndLogIn(file.app);
    const plain = await file.as(who).post("/api/assistants", { name: "Plain" });
    expect(plain.json().voice_engine).toEqual({ type: "realtime" });

    const p = await providersOf(who);
    const created = await file.as(who).post("/api/assistants", { name: "Piped", voice_engine: pipeline(p) });
    expect(created.statusCode, created.body).toBe(201);
    expect(created.json().voice_engine).toEqual(saved(p));
    const id = created.json().id as string;
    expect((await file.as(who).get(`/api/assistants/${id}`)).json().voice_engine).toEqual(saved(p));

    const published = await file.as(who).post(`/api/assistants/${id}/publish`, { note: "pipeline" });
    expect(published.statusCode, published.body).toBeLessThan(300);
    const { live_version } = (await file.as(who).get(`/api/assistants/${id}/versions`)).json();
    const version = await file.as(who).get(`/api/assistants/${id}/versions/${live_version}`);
    expect(version.json().content.voice_engine).toEqual(saved(p));

    const back = await file.as(who).patch(`/api/assistants/${id}`, { voice_engine: { type: "realtime" } });
    expect(back.json().voice_engine).toEqual({ type: "realtime" });
  });

  it("refuses a provider of the wrong kind, another organisation's, or a missing model name, with a 400 in words", async () => {
    const who = await signUpAndLogIn(file.app);
    const p = await providersOf(who);
    const swapped = { ...pipeline(p), voice: { provider_id: p.model.id, voice: "x", model: null } };
    const wrongKind = await file.as(who).post("/api/assistants", { name: "Bad", voice_engine: swapped });
    expect(wrongKind.statusCode).toBe(400);
    expect(errorOf(wrongKind).message).toBe(VOICE_ENGINE_MESSAGES.wrongKind("voice"));

    const stranger = await signUpAndLogIn(file.app);
    const theirs = await file.as(stranger).post("/api/assistants", { name: "Borrower", voice_engine: pipeline(p) });
    expect(theirs.statusCode).toBe(400);
    expect(errorOf(theirs).message).toBe(VOICE_ENGINE_MESSAGES.wrongKind("transcriber"));

    const noModel = await file.as(who).post("/api/assistants", { name: "Bad", voice_engine: { ...pipeline(p), model: { provider_id: p.model.id, model: " " } } });
    expect(noModel.statusCode).toBe(400);
    expect(errorOf(noModel).message).toBe(VOICE_ENGINE_MESSAGES.modelRequired);
  });

  it("is OpenAI GPT-Live with one of its models and voices, and refuses a voice it does not have in words", async () => {
    const who = await signUpAndLogIn(file.app);
    const created = await file.as(who).post("/api/assistants", { name: "Live", voice_engine: { type: "gpt-live", model: "gpt-live-1", voice: "cinder" } });
    expect(created.statusCode, created.body).toBe(201);
    expect(created.json().voice_engine).toEqual({ type: "gpt-live", model: "gpt-live-1", voice: "cinder" });
    const id = created.json().id as string;
    expect((await file.as(who).get(`/api/assistants/${id}`)).json().voice_engine).toEqual({ type: "gpt-live", model: "gpt-live-1", voice: "cinder" });

    const badVoice = await file.as(who).patch(`/api/assistants/${id}`, { voice_engine: { type: "gpt-live", model: "gpt-live-1", voice: "alloy" } });
    expect(badVoice.statusCode).toBe(400);
    expect(errorOf(badVoice).message).toBe(VOICE_ENGINE_MESSAGES.gptLiveVoice);
    const badModel = await file.as(who).post("/api/assistants", { name: "Live 2", voice_engine: { type: "gpt-live", model: "gpt-realtime", voice: "marin" } });
    expect(badModel.statusCode).toBe(400);
    expect(errorOf(badModel).message).toBe(VOICE_ENGINE_MESSAGES.gptLiveModel);
    // Nothing half written: the assistant keeps its engine.
    expect((await file.as(who).get(`/api/assistants/${id}`)).json().voice_engine.voice).toBe("cinder");
  });
});
