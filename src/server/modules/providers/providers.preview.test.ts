import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startFakeDeepgram, type FakeDeepgram } from "../../../../tests/fakes/fake-deepgram.ts";
import { startFakeElevenLabs, type FakeElevenLabs } from "../../../../tests/fakes/fake-elevenlabs.ts";
import { errorOf, signUpAndLogIn, useTestApp, expectBody } from "../../../../tests/harness.ts";
import { joinAs } from "../../../../tests/team.ts";
import { PREVIEW_SAMPLE_TEXT, PROVIDER_MESSAGES, type Provider } from "../../../shared/providers.ts";

/** The Voice engine's Preview: the server voices a short sample through the chosen voice provider. */

const file = useTestApp({ config: { TOOL_ALLOWED_HOSTS: "127.0.0.1" } });

let voice: FakeElevenLabs;
let deepgram: FakeDeepgram;
beforeAll(async () => {
  voice = await startFakeElevenLabs({ apiKey: "xi-test-key-12345678" });
  deepgram = await startFakeDeepgram({ apiKey: "dg-test-key-12345678" });
});
afterAll(async () => {
  await voice.close();
  await deepgram.close();
});

async function add(who: { cookie: string }, body: object): Promise<Provider> {
  return expectBody(await file.as(who).post("/api/providers", body), 201);
}
const elevenLabs = () => ({ name: "ElevenLabs", kind: "voice", protocol: "elevenlabs", base_url: voice.baseUrl, api_key: voice.apiKey });

describe("POST /api/providers/:id/preview", () => {
  it("answers a WAV file of the sample voiced in the chosen voice", async () => {
    const who = await signUpAndLogIn(file.app);
    const provider = await add(who, elevenLabs());
    const res = await file.as(who).post(`/api/providers/${provider.id}/preview`, { voice: "rachel-voice-id" });
    expect(res.statusCode, res.body).toBe(200);
    expect(res.headers["content-type"]).toContain("audio/wav");
    expect(res.rawPayload.subarray(0, 4).toString("ascii")).toBe("RIFF");
    expect(res.rawPayload.length).toBeGreaterThan(44 + 1000);
    expect(voice.requests.at(-1)).toMatchObject({ text: PREVIEW_SAMPLE_TEXT });
  });

  it("refuses a provider that is not a voice, and a missing voice id, in words", async () => {
    const who = await signUpAndLogIn(file.app);
    const transcriber = await add(who, { name: "Deepgram", kind: "transcriber", protocol: "deepgram", base_url: deepgram.baseUrl, api_key: deepgram.apiKey });
    const notVoice = await file.as(who).post(`/api/providers/${transcriber.id}/preview`, { voice: "x" });
    expect(notVoice.statusCode).toBe(400);
    expect(errorOf(notVoice).message).toContain(PROVIDER_MESSAGES.previewNotVoice);
    const provider = await add(who, elevenLabs());
    const noVoice = await file.as(who).post(`/api/providers/${provider.id}/preview`, {});
    expect(noVoice.statusCode).toBe(400);
    expect(errorOf(noVoice).message).toContain("The voice id is required");
  });

  it("says plainly when the voice service refuses, without a 5xx", async () => {
    const who = await signUpAndLogIn(file.app);
    const provider = await add(who, elevenLabs());
    voice.apiKey = "xi-rotated-key";
    const res = await file.as(who).post(`/api/providers/${provider.id}/preview`, { voice: "rachel-voice-id" }).finally(() => (voice.apiKey = "xi-test-key-12345678"));
    expect(res.statusCode).toBe(422);
    expect(errorOf(res).message).toContain("The voice service could not voice the sample: the voice answered 401");
  });

  it("lets a builder preview but not a viewer; another organisation's provider is not found", async () => {
    const admin = await signUpAndLogIn(file.app);
    const provider = await add(admin, elevenLabs());
    const builder = await joinAs(file.app, admin, "builder");
    expect((await file.as(builder).post(`/api/providers/${provider.id}/preview`, { voice: "v" })).statusCode).toBe(200);
    const viewer = await joinAs(file.app, admin, "viewer");
    expect((await file.as(viewer).post(`/api/providers/${provider.id}/preview`, { voice: "v" })).statusCode).toBe(403);
    const stranger = await signUpAndLogIn(file.app);
    expect((await file.as(stranger).post(`/api/providers/${provider.id}/preview`, { voice: "v" })).statusCode).toBe(404);
  });
});
