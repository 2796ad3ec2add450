import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startFakeRealtime, type FakeRealtime } from "../../../../tests/fakes/fake-realtime.ts";
import { buildTestApp, signUpAndLogIn, type TestApp } from "../../../../tests/harness.ts";
import { credentials } from "../../db/schema.ts";
import { MASKED_CREDENTIAL } from "../../../shared/credentials.ts";

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

  it("saves a key the provider refuses but says so", async () => {
    const { cookie } = await signUpAndLogIn(app);
    const saved = await app.inject({ method: "PUT", url: "/api/credentials/openai_api_key", headers: { cookie }, payload: { value: "sk-wrong" } });
    expect(saved.json()).toMatchObject({ exists: true, verification: { verified: false, message: expect.stringContaining("Incorrect API key") } });
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
