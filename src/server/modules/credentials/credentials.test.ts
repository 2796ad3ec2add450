import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startFakeRealtime, type FakeRealtime } from "../../../../tests/fakes/fake-realtime.ts";
import { buildTestApp, signUpAndLogIn, type TestApp } from "../../../../tests/harness.ts";
import { credentials } from "../../db/schema.ts";
import { MASKED_CREDENTIAL, OPENAI_CREDENTIAL_MESSAGES, OPENAI_KEY_MESSAGES } from "../../../shared/credentials.ts";
import { createSecretBox } from "../../secrets/crypto.ts";

describe("credentials", () => {
  let app: TestApp;
  let db: Awaited<ReturnType<typeof buildTestApp>>["db"];
  let openai: FakeRealtime;
  beforeAll(async () => {
    openai = await startFakeRealtime({ apiKey: "sk-good-key-123456" });
    ({ app, db } = await buildTestApp({ config: { OPENAI_BASE_URL: openai.baseUrl } }));
  });
  afterAll(async () => {
    await app.close();
    await openai.close();
  });

  it("stores the key encrypted, verifies it with the provider, and never returns it whole", async () => {
    const { cookie } = await signUpAndLogIn(app);
    const before = await app.inject({ method: "GET", url: "/api/credentials/openai_api_key", headers: { cookie } });
    expect(before.json()).toMatchObject({ exists: false, hint: null });

    const saved = await app.inject({ method: "PUT", url: "/api/credentials/openai_api_key", headers: { cookie }, payload: { value: "sk-good-key-123456" } });
    expect(saved.statusCode).toBe(200);
    expect(saved.json()).toMatchObject({ exists: true, verification: { verified: true } });
    expect(saved.body).not.toContain("sk-good-key-123456");

    const [row] = await db.select().from(credentials);
    expect(row!.valueEncrypted).not.toContain("sk-good-key-123456");
    const after = await app.inject({ method: "GET", url: "/api/credentials/openai_api_key", headers: { cookie } });
    expect(after.json()).toMatchObject({ exists: true, hint: "sk-••••3456" });
    expect(after.body).not.toContain("good-key");
    expect(MASKED_CREDENTIAL).toHaveLength(32);
  });

  it("saves a key the provider refuses, says so plainly, and still says so after a reload", async () => {
    const { cookie } = await signUpAndLogIn(app);
    const saved = await app.inject({ method: "PUT", url: "/api/credentials/openai_api_key", headers: { cookie }, payload: { value: "sk-wrong" } });
    expect(saved.json()).toMatchObject({ exists: true, verification: { verified: false, message: OPENAI_CREDENTIAL_MESSAGES.refused } });
    const reloaded = await app.inject({ method: "GET", url: "/api/credentials/openai_api_key", headers: { cookie } });
    expect(reloaded.json().verification).toMatchObject({ verified: false, message: OPENAI_CREDENTIAL_MESSAGES.refused, checked_at: expect.any(String) });
  });

  it.each([
    ["no sk- prefix", "pk-live-1234567890", OPENAI_KEY_MESSAGES.prefix],
    ["a space inside", "sk-abc def", OPENAI_KEY_MESSAGES.characters],
    ["a non-ASCII character", "sk-abc\u2019def", OPENAI_KEY_MESSAGES.characters],
  ])("refuses a key with %s with a 400 before calling OpenAI, and stores nothing", async (_label, value, message) => {
    const { cookie } = await signUpAndLogIn(app);
    const res = await app.inject({ method: "PUT", url: "/api/credentials/openai_api_key", headers: { cookie }, payload: { value } });
    expect(res.statusCode).toBe(400);
    expect(res.json().error.message).toBe(message);
    const after = await app.inject({ method: "GET", url: "/api/credentials/openai_api_key", headers: { cookie } });
    expect(after.json()).toMatchObject({ exists: false });
  });

  it("refuses an empty key with the spec's message and unknown names", async () => {
    const { cookie } = await signUpAndLogIn(app);
    const empty = await app.inject({ method: "PUT", url: "/api/credentials/openai_api_key", headers: { cookie }, payload: { value: "   " } });
    expect(empty.statusCode).toBe(400);
    expect(empty.json().error.message).toBe("API key cannot be empty");
    const unknown = await app.inject({ method: "GET", url: "/api/credentials/root_password", headers: { cookie } });
    expect(unknown.statusCode).toBe(400);
  });

  it("keeps each user's credentials to themselves", async () => {
    const alice = await signUpAndLogIn(app);
    const bob = await signUpAndLogIn(app);
    await app.inject({ method: "PUT", url: "/api/credentials/openai_api_key", headers: { cookie: alice.cookie }, payload: { value: "sk-alice-000000" } });
    const seenByBob = await app.inject({ method: "GET", url: "/api/credentials/openai_api_key", headers: { cookie: bob.cookie } });
    expect(seenByBob.json()).toMatchObject({ exists: false });
    const removed = await app.inject({ method: "DELETE", url: "/api/credentials/openai_api_key", headers: { cookie: alice.cookie } });
    expect(removed.statusCode).toBe(204);
    const gone = await app.inject({ method: "GET", url: "/api/credentials/openai_api_key", headers: { cookie: alice.cookie } });
    expect(gone.json()).toMatchObject({ exists: false });
  });
});

describe("a credential sealed under a previous APP_SECRET", () => {
  it("answers a 409 telling the user to save the key again, and saving again fixes it", async () => {
    const { app, db } = await buildTestApp();
    const { cookie, organizationId } = await signUpAndLogIn(app);
    const foreign = createSecretBox("an-older-secret-0123456789abcdef012345").encrypt("sk-old-key-000000");
    await db.insert(credentials).values({ organizationId, name: "openai_api_key", valueEncrypted: foreign });
    const res = await app.inject({ method: "GET", url: "/api/credentials/openai_api_key", headers: { cookie } });
    expect(res.statusCode).toBe(409);
    expect(res.json().error).toEqual({
      code: "credential_unreadable",
      message: "The stored OpenAI API key can no longer be read (the server's secret changed). Enter it again and save it.",
    });
    const saved = await app.inject({ method: "PUT", url: "/api/credentials/openai_api_key", headers: { cookie }, payload: { value: "sk-new-key-123456" } });
    expect(saved.statusCode).toBe(200);
    const after = await app.inject({ method: "GET", url: "/api/credentials/openai_api_key", headers: { cookie } });
    expect(after.json()).toMatchObject({ exists: true, hint: "sk-••••3456" });
    await app.close();
  });
});
