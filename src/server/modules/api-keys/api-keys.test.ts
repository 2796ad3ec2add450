import { beforeAll, describe, expect, it } from "vitest";
import { apiKeys } from "../../db/schema.ts";
import { errorOf, useTestApp, expectBody } from "../../../../tests/harness.ts";
import { API_KEY_MESSAGES, API_KEY_REQUESTS_PER_MINUTE, MAX_API_KEYS, type ApiKey, type CreatedApiKey } from "../../../shared/api-keys.ts";
import { counterKey } from "../../shared-state/index.ts";
import { sql } from "drizzle-orm";
import { servedDocument, testClient } from "../../../../tests/api/client.ts";
import type { ApiDocument } from "../../../../tests/api/schema-check.ts";

const file = useTestApp({ users: ["Ada", "Bob"] });
let doc: ApiDocument;
beforeAll(async () => {
  doc = await servedDocument(file.app);
});

/** The typed client with a key: each answer is held to the API's document. */
const client = (key: string) => testClient(file.app, doc, key);

async function createKey(who: "Ada" | "Bob", body: Record<string, unknown> = { name: "CRM" }): Promise<CreatedApiKey> {
  return expectBody(await file.as(file.users[who]).post("/api/api-keys", body), 201);
}

/** A request off the document (the auth library's own routes): the key, no cookie, no Origin. */
const withKey = (key: string, method: "POST", url: string, payload: object) => file.app.inject({ method, url, headers: { authorization: `Bearer ${key}` }, payload });

describe("API keys", () => {
  it("are shown once on creation, listed without the secret, and stored only as a hash", async () => {
    const created = await createKey("Ada", { name: "CRM", expires_at: new Date(Date.now() + 86_400_000).toISOString() });
    expect(created.key).toMatch(/^sk_[0-9A-Za-z]{32,}$/);
    expect(created.prefix).toBe(created.key.slice(0, 8));
    expect(Object.keys(created).sort()).toEqual(["created_at", "expires_at", "id", "key", "name", "prefix"]);

    const list = (await file.as(file.users.Ada).get("/api/api-keys")).json().data as ApiKey[];
    const listed = list.find((k) => k.id === created.id)!;
    expect(Object.keys(listed).sort()).toEqual(["created_at", "created_by_name", "created_by_user_id", "expires_at", "id", "last_used_at", "name", "prefix"]);
    expect(listed).toMatchObject({ created_by_user_id: file.users.Ada.userId, created_by_name: "Ada" });
    expect(listed.last_used_at).toBeNull();
    expect(JSON.stringify(list)).not.toContain(created.key);

    const rows = await file.db.select().from(apiKeys);
    expect(JSON.stringify(rows)).not.toContain(created.key);
    expect(JSON.stringify(rows)).not.toContain(created.key.slice(8));
  });

  it("act for the key's creator on the JSON API, with no cookie set and no Origin needed", async () => {
    const { key } = await createKey("Ada");
    const api = client(key);
    const created = await api.POST("/api/assistants", { body: { name: "Ava" } });
    expect(created.response.status).toBe(201);
    expect(created.response.headers.get("set-cookie")).toBeNull();
    const mine = await api.GET("/api/assistants");
    expect(mine.data!.data.map((a) => a.id)).toContain(created.data!.id);
    expect((await api.GET("/api/calls")).response.status).toBe(200);
    expect((await api.GET("/api/webhooks")).response.status).toBe(200);

    // Bob's assistant does not exist for Ada's key.
    const bobs = (await file.as(file.users.Bob).post("/api/assistants", { name: "Bo" })).json().id as string;
    expect((await api.GET("/api/assistants/{id}", { params: { path: { id: bobs } } })).error?.error.code).toBe("not_found");
    expect((await api.DELETE("/api/assistants/{id}", { params: { path: { id: bobs } } })).response.status).toBe(404);

    const listed = ((await file.as(file.users.Ada).get("/api/api-keys")).json().data as ApiKey[]).find((k) => key.startsWith(k.prefix))!;
    expect(listed.last_used_at).not.toBeNull();
  });

  it("cannot manage keys or the account: 403", async () => {
    const { key, id } = await createKey("Ada");
    const api = client(key);
    const refused = { code: "session_required", message: API_KEY_MESSAGES.sessionOnly };
    for (const { response, error } of [
      await api.GET("/api/api-keys"),
      await api.POST("/api/api-keys", { body: { name: "minted" } }),
      await api.DELETE("/api/api-keys/{id}", { params: { path: { id } } }),
      await api.PATCH("/api/account/name", { body: { name: "Eve" } }),
      await api.GET("/api/account"),
      await api.POST("/api/account/password", { body: { currentPassword: "whatever-it-is", newPassword: "a-new-password-1" } }),
      await api.DELETE("/api/account", { body: { password: "whatever-it-is" } }),
    ]) {
      expect(response.status).toBe(403);
      expect(error).toEqual({ error: refused });
    }
    // The auth library's own account endpoints too, in the API's words rather than the library's 401.
    for (const res of [
      await withKey(key, "POST", "/api/auth/change-password", { currentPassword: "whatever-it-is", newPassword: "a-new-password-1" }),
      await withKey(key, "POST", "/api/auth/update-user", { name: "Eve" }),
    ]) {
      expect(res.statusCode, res.body).toBe(403);
      expect(errorOf(res)).toEqual(refused);
    }
    expect((await file.as(file.users.Ada).get("/api/api-keys")).json().data.map((k: ApiKey) => k.name)).not.toContain("minted");
  });

  it("answer 401 invalid_api_key when wrong, revoked (at once) or expired", async () => {
    const assistantsWith = (key: string) => client(key).GET("/api/assistants");
    const wrong = await assistantsWith("sk_" + "x".repeat(40));
    expect(wrong.response.status).toBe(401);
    expect(wrong.error?.error.code).toBe("invalid_api_key");
    expect((await assistantsWith("not-a-key")).response.status).toBe(401);

    const { key, id } = await createKey("Ada");
    expect((await assistantsWith(key)).response.status).toBe(200);
    expect((await file.as(file.users.Bob).delete(`/api/api-keys/${id}`)).statusCode).toBe(404);
    expect((await file.as(file.users.Ada).delete(`/api/api-keys/${id}`)).statusCode).toBe(204);
    const revoked = await assistantsWith(key);
    expect(revoked.response.status).toBe(401);
    expect(revoked.error?.error.code).toBe("invalid_api_key");

    const soon = await createKey("Ada", { name: "Short", expires_at: new Date(Date.now() + 60_000).toISOString() });
    expect((await assistantsWith(soon.key)).response.status).toBe(200);
    await file.db.update(apiKeys).set({ expiresAt: sql`now() - interval '1 second'` }).where(sql`${apiKeys.id} = ${soon.id}`);
    expect((await assistantsWith(soon.key)).error?.error.code).toBe("invalid_api_key");
  });

  it("sent anywhere but `Authorization: Bearer`, answer 401 saying where the key goes", async () => {
    const { key } = await createKey("Ada");
    for (const res of [
      await file.app.inject({ method: "GET", url: "/api/assistants", headers: { authorization: key } }),
      await file.app.inject({ method: "GET", url: "/api/assistants", headers: { authorization: `Token ${key}` } }),
      await file.app.inject({ method: "GET", url: "/api/assistants", headers: { "x-api-key": key } }),
      await file.app.inject({ method: "GET", url: `/api/assistants?api_key=${key}` }),
    ]) {
      expect(res.statusCode, res.body).toBe(401);
      expect(errorOf(res)).toEqual({ code: "invalid_api_key", message: API_KEY_MESSAGES.wrongPlace });
      expect(res.headers["set-cookie"]).toBeUndefined();
    }
    // Nothing is written with a key in the wrong place.
    const create = await file.app.inject({ method: "POST", url: `/api/assistants?key=${key}`, payload: { name: "Misplaced" } });
    expect(create.statusCode).toBe(401);
    expect((await client(key).GET("/api/assistants")).data!.data.map((a) => a.name)).not.toContain("Misplaced");
  });

  it("refuse a bad name, a past expiry and a 21st live key, storing nothing", async () => {
    const bob = file.as(file.users.Bob);
    expect(errorOf(await bob.post("/api/api-keys", { name: " " })).message).toBe(API_KEY_MESSAGES.nameRequired);
    expect(errorOf(await bob.post("/api/api-keys", { name: "Old", expires_at: "2020-01-01T00:00:00Z" })).message).toBe(API_KEY_MESSAGES.expiryInPast);
    expect((await bob.get("/api/api-keys")).json().data).toEqual([]);
    // Created all at once, the limit still holds: exactly MAX_API_KEYS, the rest refused.
    const burst = await Promise.all(Array.from({ length: MAX_API_KEYS + 10 }, (_, i) => bob.post("/api/api-keys", { name: `k${i}` })));
    expect(burst.filter((r) => r.statusCode === 201)).toHaveLength(MAX_API_KEYS);
    const refused = burst.filter((r) => r.statusCode !== 201);
    expect(refused.map((r) => [r.statusCode, errorOf(r).message])).toEqual(refused.map(() => [409, API_KEY_MESSAGES.tooMany]));
    const more = await bob.post("/api/api-keys", { name: "one more" });
    expect(more.statusCode).toBe(409);
    expect(errorOf(more).message).toBe(API_KEY_MESSAGES.tooMany);
    expect((await bob.get("/api/api-keys")).json().data).toHaveLength(MAX_API_KEYS);
  });

  it("are rate limited per key with Retry-After", async () => {
    const { key, id } = await createKey("Ada");
    // The window is the shared counter every instance increments: fill it to the limit.
    const k = counterKey.rateLimit("api-key", id);
    for (let i = 0; i < API_KEY_REQUESTS_PER_MINUTE; i++) await file.app.ctx.counters.increment(k, 60_000);
    const limited = await client(key).GET("/api/assistants");
    expect(limited.response.status).toBe(429);
    expect(limited.error?.error.code).toBe("rate_limited");
    expect(Number(limited.response.headers.get("retry-after"))).toBeGreaterThan(0);
    // Another key of the same user is not limited.
    expect((await client((await createKey("Ada")).key).GET("/api/assistants")).response.status).toBe(200);
  });
});
