import { sql } from "drizzle-orm";
import type { RouteOptions } from "fastify";
import { beforeAll, describe, expect, it } from "vitest";
import { servedDocument, testClient } from "../../../../tests/api/client.ts";
import type { ApiDocument } from "../../../../tests/api/schema-check.ts";
import { useTestApp } from "../../../../tests/harness.ts";
import type { components } from "../../../client/api-client.ts";
import { IDEMPOTENCY_MESSAGES } from "../../../shared/idempotency.ts";
import { idempotencyKeys } from "../../db/schema.ts";
import { IDEMPOTENT_ROUTES } from "./idempotency.ts";
import { purgeExpired } from "./idempotency.repo.ts";

const routes: string[] = [];
const file = useTestApp({ users: ["Ada", "Bob"], deps: { onRoute: (r: RouteOptions) => void routes.push(...[r.method].flat().map((m) => `${m} ${r.url}`)) } });
let doc: ApiDocument;
beforeAll(async () => {
  doc = await servedDocument(file.app);
});

async function keyOf(who: "Ada" | "Bob"): Promise<string> {
  const res = await file.as(file.users[who]).post("/api/api-keys", { name: "CRM" });
  expect(res.statusCode, res.body).toBe(201);
  return res.json().key;
}

/** Creates an assistant through the typed client, each answer held to the API's document. */
const create = async (apiKey: string, idempotencyKey: string | undefined, body: components["schemas"]["AssistantRequest"]) => {
  const { response, data, error } = await testClient(file.app, doc, apiKey).POST("/api/assistants", {
    body,
    params: { header: idempotencyKey === undefined ? {} : { "Idempotency-Key": idempotencyKey } },
  });
  return { statusCode: response.status, replayed: response.headers.get("idempotent-replayed"), data, error: error?.error };
};

const countNamed = async (apiKey: string, name: string) => (await testClient(file.app, doc, apiKey).GET("/api/assistants")).data!.data.filter((a) => a.name === name).length;

describe("Idempotency-Key", () => {
  it("answers a repeat with the first response and creates nothing more; another body with the same key is a 422", async () => {
    const key = await keyOf("Ada");
    const first = await create(key, "create-ava", { name: "Ava", first_message: "Hi" });
    expect(first.statusCode).toBe(201);
    expect(first.replayed).toBeNull();
    // The same request with its fields in another order is the same request.
    const again = await create(key, "create-ava", { first_message: "Hi", name: "Ava" });
    expect(again.statusCode).toBe(201);
    expect(again.data).toEqual(first.data);
    expect(again.replayed).toBe("true");
    expect(await countNamed(key, "Ava")).toBe(1);

    const changed = await create(key, "create-ava", { name: "Ava 2" });
    expect(changed.statusCode).toBe(422);
    expect(changed.error).toEqual({ code: "idempotency_key_reused", message: IDEMPOTENCY_MESSAGES.mismatch });
    expect(await countNamed(key, "Ava 2")).toBe(0);

    // Without a key, every POST acts.
    await create(key, undefined, { name: "Twice" });
    await create(key, undefined, { name: "Twice" });
    expect(await countNamed(key, "Twice")).toBe(2);
  });

  it("is the organisation's own: another organisation's same key acts for it, and a session shares its organisation's keys", async () => {
    const ada = await keyOf("Ada");
    const bob = await keyOf("Bob");
    const adas = await create(ada, "shared-key", { name: "Shared" });
    const bobs = await create(bob, "shared-key", { name: "Shared" });
    expect(bobs.statusCode).toBe(201);
    expect(bobs.data!.id).not.toBe(adas.data!.id);
    expect(bobs.replayed).toBeNull();

    const bySession = await file.app.inject({ method: "POST", url: "/api/assistants", headers: { cookie: file.users.Ada.cookie, "idempotency-key": "shared-key" }, payload: { name: "Shared" } });
    expect(bySession.json().id).toBe(adas.data!.id);
  });

  it("refuses a malformed key, and keeps no answer for a request refused before it ran", async () => {
    const key = await keyOf("Ada");
    for (const bad of ["x".repeat(256), "with space"]) {
      const res = await create(key, bad, { name: "Bad" });
      expect(res.statusCode).toBe(400);
      expect(res.error).toEqual({ code: "invalid_idempotency_key", message: IDEMPOTENCY_MESSAGES.invalid });
    }
    // A body that fails validation claims nothing: the corrected request with the key acts.
    expect((await create(key, "fix-me", { name: "" })).statusCode).toBe(400);
    expect((await create(key, "fix-me", { name: "Fixed" })).statusCode).toBe(201);
    expect(await countNamed(key, "Fixed")).toBe(1);
  });

  it("forgets a key after 24 hours: the request then acts again, and the hourly purge removes expired keys", async () => {
    const key = await keyOf("Ada");
    const first = await create(key, "old-key", { name: "Old" });
    await file.db.execute(sql`UPDATE idempotency_keys SET created_at = now() - interval '25 hours' WHERE key = 'old-key'`);
    const later = await create(key, "old-key", { name: "Old" });
    expect(later.statusCode).toBe(201);
    expect(later.data!.id).not.toBe(first.data!.id);

    await create(key, "purged-key", { name: "Purged" });
    await file.db.execute(sql`UPDATE idempotency_keys SET created_at = now() - interval '25 hours' WHERE key = 'purged-key'`);
    expect(await purgeExpired(file.db)).toBeGreaterThan(0);
    const left = (await file.db.select({ key: idempotencyKeys.key }).from(idempotencyKeys)).map((r) => r.key);
    expect(left).not.toContain("purged-key");
    expect(left).toContain("old-key");
  });

  it("is taken by routes that exist", () => {
    expect([...IDEMPOTENT_ROUTES].filter((r) => !routes.includes(r))).toEqual([]);
  });
});
