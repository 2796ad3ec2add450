import { eq } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startFakeDeepgram, type FakeDeepgram } from "../../../../tests/fakes/fake-deepgram.ts";
import { errorOf, signUpAndLogIn, useTestApp, expectBody } from "../../../../tests/harness.ts";
import { joinAs } from "../../../../tests/team.ts";
import { PERMISSIONS } from "../../../shared/roles.ts";
import { PROVIDER_MESSAGES, type Provider } from "../../../shared/providers.ts";
import { assistants, auditLog, providers } from "../../db/schema.ts";

const file = useTestApp({ config: { TOOL_ALLOWED_HOSTS: "vllm.internal:8000,127.0.0.1" } });

// Saving checks the key with the service: a stand-in takes the check, so no test reaches Deepgram.
let fake: FakeDeepgram;
let deepgram: { name: string; kind: string; protocol: string; base_url: string; api_key: string };
beforeAll(async () => {
  fake = await startFakeDeepgram({ apiKey: "dg-secret-key-0123456789" });
  deepgram = { name: "Deepgram", kind: "transcriber", protocol: "deepgram", base_url: fake.baseUrl, api_key: fake.apiKey };
});
afterAll(() => fake.close());

async function add(who: { cookie: string }, body: object = deepgram): Promise<Provider> {
  return expectBody(await file.as(who).post("/api/providers", body), 201);
}

describe("/api/providers", () => {
  it("adds a provider with its key sealed and masked, and lists, reads, changes and deletes it, each in the audit log", async () => {
    const who = await signUpAndLogIn(file.app);
    const provider = await add(who);
    expect(provider).toMatchObject({ name: "Deepgram", kind: "transcriber", protocol: "deepgram", base_url: fake.baseUrl, api_key_hint: "dg-••••6789" });
    expect(JSON.stringify(provider)).not.toContain("secret-key");
    const [row] = await file.db.select().from(providers).where(eq(providers.id, provider.id));
    expect(row!.apiKeyEncrypted).not.toContain("dg-secret-key");

    expect((await file.as(who).get("/api/providers")).json().data).toEqual([provider]);
    expect((await file.as(who).get(`/api/providers/${provider.id}`)).json()).toEqual(provider);

    fake.apiKey = "dg-other-key-99998888";
    const changed = await file.as(who).patch(`/api/providers/${provider.id}`, { name: "Deepgram EU", base_url: `${fake.baseUrl}/`, api_key: "dg-other-key-99998888" });
    fake.apiKey = "dg-secret-key-0123456789";
    expect(changed.json()).toMatchObject({ name: "Deepgram EU", base_url: fake.baseUrl, api_key_hint: "dg-••••8888" });
    const renamedOnly = await file.as(who).patch(`/api/providers/${provider.id}`, { name: "Deepgram" });
    expect(renamedOnly.json()).toMatchObject({ api_key_hint: "dg-••••8888", base_url: fake.baseUrl });

    expect((await file.as(who).delete(`/api/providers/${provider.id}`)).statusCode).toBe(204);
    expect((await file.as(who).get(`/api/providers/${provider.id}`)).statusCode).toBe(404);
    const entries = await file.db.select().from(auditLog).where(eq(auditLog.organizationId, who.organizationId));
    expect(entries.map((e) => e.action)).toEqual(expect.arrayContaining(["provider.created", "provider.updated", "provider.deleted"]));
    expect(JSON.stringify(entries)).not.toContain("key-99998888");
  });

  it.each([
    ["a voice protocol as a transcriber", { protocol: "elevenlabs" }, PROVIDER_MESSAGES.protocolKind("elevenlabs", "transcriber")],
    ["an unknown protocol", { protocol: "whisperx" }, PROVIDER_MESSAGES.protocol],
    ["no key", { api_key: " " }, PROVIDER_MESSAGES.keyRequired],
    ["a key with a curly quote", { api_key: "dg-abc\u2019" }, PROVIDER_MESSAGES.keyCharacters],
    ["a base URL that is not a URL", { base_url: "api.deepgram.com" }, PROVIDER_MESSAGES.baseUrl],
    ["a plain-http base URL on the internet", { base_url: "http://api.example.com/v1" }, PROVIDER_MESSAGES.baseUrlNotHttps("api.example.com")],
  ])("refuses %s with a 400 in words, storing nothing", async (_label, change, message) => {
    const who = await signUpAndLogIn(file.app);
    const res = await file.as(who).post("/api/providers", { ...deepgram, ...change });
    expect(res.statusCode).toBe(400);
    expect(errorOf(res).message).toBe(message);
    expect((await file.as(who).get("/api/providers")).json().data).toEqual([]);
  });

  it("takes plain http for a host on the allow-list (a self-hosted model)", async () => {
    const who = await signUpAndLogIn(file.app);
    const vllm = await add(who, { name: "vLLM", kind: "model", protocol: "openai-compatible", base_url: "http://vllm.internal:8000/v1", api_key: "none-needed" });
    expect(vllm.base_url).toBe("http://vllm.internal:8000/v1");
  });

  it("lets builders read but only admins manage; another organisation's provider is not found", async () => {
    const admin = await signUpAndLogIn(file.app);
    const provider = await add(admin);
    const builder = await joinAs(file.app, admin, "builder");
    expect((await file.as(builder).get("/api/providers")).json().data).toHaveLength(1);
    const refused = await file.as(builder).post("/api/providers", deepgram);
    expect(refused.statusCode).toBe(403);
    expect(errorOf(refused).message).toBe(PERMISSIONS.credentials.message);
    expect((await file.as(builder).delete(`/api/providers/${provider.id}`)).statusCode).toBe(403);

    const stranger = await signUpAndLogIn(file.app);
    expect((await file.as(stranger).get(`/api/providers/${provider.id}`)).statusCode).toBe(404);
    expect((await file.as(stranger).patch(`/api/providers/${provider.id}`, { name: "Mine" })).statusCode).toBe(404);
    expect((await file.as(stranger).delete(`/api/providers/${provider.id}`)).statusCode).toBe(404);
    expect((await file.as(stranger).get("/api/providers")).json().data).toEqual([]);
    expect((await file.as(admin).get(`/api/providers/${provider.id}`)).json().name).toBe("Deepgram");
  });

  it("refuses to delete a provider an assistant's voice engine uses, naming the assistant", async () => {
    const who = await signUpAndLogIn(file.app);
    const provider = await add(who);
    await file.db.insert(assistants).values({
      organizationId: who.organizationId,
      name: "Front desk",
      model: "gpt-realtime",
      voiceEngine: { type: "pipeline", transcriber: { provider_id: provider.id, model: null, language: null }, model: { provider_id: "x", model: "m" }, voice: { provider_id: "y", voice: "v", model: null }, turn_end: "transcriber" },
    });
    const res = await file.as(who).delete(`/api/providers/${provider.id}`);
    expect(res.statusCode).toBe(409);
    expect(errorOf(res).message).toBe(PROVIDER_MESSAGES.inUse("Front desk"));
  });
});
