import { eq } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { servedDocument, testClient } from "../../../../tests/api/client.ts";
import type { ApiDocument } from "../../../../tests/api/schema-check.ts";
import { as, buildTestApp, freshDatabase, signUpAndLogIn, type TestApp, expectBody } from "../../../../tests/harness.ts";
import type { SignedUp } from "../../../../tests/sign-up.ts";
import { joinAs } from "../../../../tests/team.ts";
import { API_KEY_MESSAGES, type ApiKey, type CreatedApiKey } from "../../../shared/api-keys.ts";
import { PERMISSIONS } from "../../../shared/roles.ts";
import type { TeamInvitation, TeamMember } from "../../../shared/team.ts";
import type { Database } from "../../db/client.ts";
import { webhookEndpoints } from "../../db/schema.ts";

/**
 * A key acts for the member who made it, at their role as it is at each request: demoted, the key
 * loses what the role lost; removed (on any instance), it stops at once everywhere. Whoever made
 * it, a key never manages the team, keys or webhook secrets.
 */
let database: Database;
let one: TestApp;
let two: TestApp;
let olga: SignedUp;
let doc: ApiDocument;

beforeAll(async () => {
  database = await freshDatabase();
  // Two instances on one database: nothing about a key may be remembered by one of them.
  ({ app: one } = await buildTestApp({ config: { WEBHOOK_ALLOWED_HOSTS: "127.0.0.1" }, deps: { database } }));
  ({ app: two } = await buildTestApp({ config: { WEBHOOK_ALLOWED_HOSTS: "127.0.0.1" }, deps: { database } }));
  olga = await signUpAndLogIn(one, "Olga Owner");
  doc = await servedDocument(one);
});
afterAll(async () => {
  await one?.close();
  await two?.close();
  await database?.close();
});

async function keyOf(who: SignedUp, name = "CRM"): Promise<CreatedApiKey> {
  return expectBody(await as(one, who).post("/api/api-keys", { name }), 201);
}

/** The typed client on one instance with a key: each answer is held to the API's document. */
const withKey = (app: TestApp, key: string) => testClient(app, doc, key);

const setRole = async (userId: string, role: string) => expect((await as(one, olga).patch(`/api/team/members/${userId}`, { role })).statusCode).toBe(204);

describe("an API key acts for its creator", () => {
  it("with the creator's current role: a demoted creator's key loses what the role lost, on every instance", async () => {
    const adam = await joinAs(one, olga, "admin", "Adam Admin");
    const { key } = await keyOf(adam);
    expect((await withKey(one, key).PUT("/api/settings/retention", { body: { recordings_days: null, calls_days: 30 } })).response.status).toBe(200);
    expect((await withKey(two, key).POST("/api/assistants", { body: { name: "By key" } })).response.status).toBe(201);

    await setRole(adam.userId, "builder");
    for (const app of [one, two]) {
      const settings = await withKey(app, key).PUT("/api/settings/retention", { body: { recordings_days: null, calls_days: 60 } });
      expect(settings.response.status).toBe(403);
      expect(settings.error?.error).toEqual({ code: "forbidden", message: PERMISSIONS.settings.message });
      expect((await withKey(app, key).POST("/api/assistants", { body: { name: "Still builds" } })).response.status).toBe(201);
    }

    await setRole(adam.userId, "viewer");
    const build = await withKey(two, key).POST("/api/assistants", { body: { name: "No more" } });
    expect(build.response.status).toBe(403);
    expect(build.error?.error.message).toBe(PERMISSIONS.build.message);
    expect((await withKey(two, key).GET("/api/assistants")).response.status).toBe(200);
    const names = ((await as(one, olga).get("/api/assistants")).json().data as { name: string }[]).map((a) => a.name);
    expect(names).not.toContain("No more");

    // Promoted again, it may again: the role is read at each request, never kept with the key.
    await setRole(adam.userId, "admin");
    expect((await withKey(one, key).PUT("/api/settings/retention", { body: { recordings_days: null, calls_days: 30 } })).response.status).toBe(200);
  });

  it("answers the organisation's name and the creator's role on GET /api/organization", async () => {
    const vera = await joinAs(one, olga, "admin", "Vera Viewer");
    const { key } = await keyOf(vera);
    await setRole(vera.userId, "viewer");
    const res = await withKey(one, key).GET("/api/organization");
    expect(res.response.status).toBe(200);
    expect(res.data).toEqual({ organization: { id: olga.organizationId, name: "Olga Owner's team" }, role: "viewer" });
  });

  it("stops at once, on every instance, when its creator is removed, and does not come back if they return", async () => {
    const rita = await joinAs(one, olga, "admin", "Rita Removed");
    const { key, id } = await keyOf(rita);
    expect((await withKey(one, key).GET("/api/assistants")).response.status).toBe(200);
    expect((await withKey(two, key).GET("/api/assistants")).response.status).toBe(200);

    // Removed through one instance; the other refuses the key on its very next request.
    expect((await as(one, olga).delete(`/api/team/members/${rita.userId}`)).statusCode).toBe(204);
    for (const app of [two, one]) {
      const res = await withKey(app, key).GET("/api/assistants");
      expect(res.response.status).toBe(401);
      expect(res.error?.error).toEqual({ code: "invalid_api_key", message: API_KEY_MESSAGES.invalid });
    }
    expect(((await as(one, olga).get("/api/api-keys")).json().data as ApiKey[]).map((k) => k.id)).not.toContain(id);

    // Invited back, the person's old key stays dead: it went with the membership it acted for.
    const invited = await as(one, olga).post("/api/team/invitations", { email: rita.email, role: "admin" });
    const token = new URL((invited.json() as { url: string }).url).searchParams.get("token");
    expect((await as(one, rita).post("/api/team/invitations/accept", { token })).statusCode).toBe(200);
    expect((await withKey(two, key).GET("/api/assistants")).response.status).toBe(401);
  });
});

describe("an API key never manages the team, keys or webhook secrets", () => {
  it("even its owner's: invitations, roles, ownership, removals, keys, webhook secrets answer 403 and change nothing", async () => {
    const bob = await joinAs(one, olga, "builder", "Bob Builder");
    const { key, id } = await keyOf(olga, "Owner's key");
    const hook = await as(one, olga).post("/api/webhooks", { url: "http://127.0.0.1:9/hook", events: ["call.ended"] });
    expect(hook.statusCode, hook.body).toBe(201);
    const hookId = (hook.json() as { id: string }).id;
    const sealedBefore = (await database.db.select().from(webhookEndpoints).where(eq(webhookEndpoints.id, hookId)))[0]!.secretEncrypted;

    const api = withKey(one, key);
    const member = { params: { path: { userId: bob.userId } } };
    for (const { response, data, error } of [
      await api.POST("/api/team/invitations", { body: { email: "mallory@example.com", role: "admin" } }),
      await api.GET("/api/team/invitations"),
      await api.PATCH("/api/team/members/{userId}", { ...member, body: { role: "admin" } }),
      // Transferring ownership is making another owner.
      await api.PATCH("/api/team/members/{userId}", { ...member, body: { role: "owner" } }),
      await api.DELETE("/api/team/members/{userId}", member),
      await api.PATCH("/api/organization", { body: { name: "Taken over" } }),
      await api.POST("/api/api-keys", { body: { name: "minted" } }),
      await api.GET("/api/api-keys"),
      await api.DELETE("/api/api-keys/{id}", { params: { path: { id } } }),
      await api.POST("/api/webhooks/{id}/rotate", { params: { path: { id: hookId } } }),
    ]) {
      expect(response.status, JSON.stringify(data)).toBe(403);
      expect(error).toEqual({ error: { code: "session_required", message: API_KEY_MESSAGES.sessionOnly } });
    }

    expect((await as(one, olga).get("/api/team/invitations")).json().data as TeamInvitation[]).toEqual([]);
    const members = (await as(one, olga).get("/api/team/members")).json().data as TeamMember[];
    expect(members.find((m) => m.user_id === bob.userId)?.role).toBe("builder");
    expect(members.find((m) => m.user_id === olga.userId)?.role).toBe("owner");
    const keys = ((await as(one, olga).get("/api/api-keys")).json().data as ApiKey[]).map((k) => k.name);
    expect(keys).toContain("Owner's key");
    expect(keys).not.toContain("minted");
    const sealedAfter = (await database.db.select().from(webhookEndpoints).where(eq(webhookEndpoints.id, hookId)))[0]!.secretEncrypted;
    expect(sealedAfter).toBe(sealedBefore);
    // The same key still does its creator's ordinary work.
    expect((await withKey(one, key).GET("/api/webhooks/{id}", { params: { path: { id: hookId } } })).response.status).toBe(200);
  });
});
