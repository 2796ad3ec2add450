import { eq } from "drizzle-orm";
import { describe, expect, it } from "vitest";
import { as, errorOf, signUpAndLogIn, useTestApp, expectBody } from "../../../../tests/harness.ts";
import type { Tool } from "../../../shared/tools.ts";
import { assistants, tools } from "../../db/schema.ts";

const file = useTestApp({ users: ["Alice", "Bob"] });

type Who = { cookie: string };


const valid = (overrides: Record<string, unknown> = {}) => ({
  name: "Order lookup",
  description: "Finds an order by its number",
  type: "API",
  http_method: "GET",
  parameter_format: "standard",
  end_point_url: "https://api.example.com/orders",
  ...overrides,
});

async function create(who: Who, payload: Record<string, unknown> = valid()): Promise<Tool> {
  return expectBody(await as(file.app, who).post("/api/tools", payload), 201);
}

const list = async (who: Who): Promise<Tool[]> => (await as(file.app, who).get("/api/tools")).json().data;

describe("authentication", () => {
  it("refuses every route without a session", async () => {
    const id = "00000000-0000-4000-8000-000000000000";
    for (const [method, url] of [
      ["GET", "/api/tools"],
      ["POST", "/api/tools"],
      ["GET", `/api/tools/${id}`],
      ["PATCH", `/api/tools/${id}`],
      ["DELETE", `/api/tools/${id}`],
      ["POST", `/api/tools/${id}/execute`],
    ] as const) {
      const res = await as(file.app, null).request(method, url, method === "GET" || method === "DELETE" ? undefined : valid());
      expect(res.statusCode, `${method} ${url}`).toBe(401);
      expect(errorOf(res).message).toBe("Authentication required. Please sign in again.");
    }
  });
});

describe("create, read, list", () => {
  it("creates a tool with every field and reads it back the same way", async () => {
    const user = await signUpAndLogIn(file.app);
    const parameters = {
      type: "object",
      properties: { order_id: { type: "string", description: "The order number" } },
      required: ["order_id"],
    };
    const payload = valid({
      http_method: "POST",
      parameter_format: "database-query",
      http_headers: { "X-Tenant": "acme" },
      parameters,
      request_body: { source: "switchboard" },
    });
    const created = await create(user, payload);
    expect(created).toMatchObject({
      organization_id: user.organizationId,
      name: "Order lookup",
      description: "Finds an order by its number",
      type: "API",
      http_method: "POST",
      parameter_format: "database-query",
      end_point_url: "https://api.example.com/orders",
      api_key_set: false,
      api_key_hint: null,
      http_headers: { "X-Tenant": "••••" },
      parameters,
      request_body: { source: "switchboard" },
    });
    expect(new Date(created.created_at).toISOString()).toBe(created.created_at);
    const got = await as(file.app, user).get(`/api/tools/${created.id}`);
    expect(got.statusCode).toBe(200);
    expect(got.json()).toEqual(created);
  });

  it("stores missing JSON fields as empty objects and a blank description as none", async () => {
    const user = await signUpAndLogIn(file.app);
    const created = await create(user, valid({ description: "  " }));
    expect(created).toMatchObject({
      description: null,
      http_headers: {},
      parameters: { type: "object", properties: {}, required: [] },
      request_body: {},
    });
  });

  it("lists only the user's own tools, newest first", async () => {
    const user = await signUpAndLogIn(file.app);
    expect(await list(user)).toEqual([]);
    const first = await create(user, valid({ name: "First" }));
    const second = await create(user, valid({ name: "Second" }));
    await create(file.users.Bob, valid({ name: "Bob's tool" }));
    const names = (await list(user)).map((t) => t.name);
    expect(names).toEqual(["Second", "First"]);
    expect((await list(user)).map((t) => t.id)).toEqual([second.id, first.id]);
    expect((await list(file.users.Bob)).map((t) => t.name)).toContain("Bob's tool");
    expect((await list(file.users.Bob)).map((t) => t.name)).not.toContain("First");
  });
});

describe("validation", () => {
  const cases: [string, Record<string, unknown>, string][] = [
    ["no name", valid({ name: undefined }), "Name is required"],
    ["a blank name", valid({ name: "   " }), "Name is required"],
    ["no endpoint", valid({ end_point_url: undefined }), "Must be a valid URL"],
    ["a malformed endpoint", valid({ end_point_url: "not a url" }), "Must be a valid URL"],
    ["a non-http endpoint", valid({ end_point_url: "ftp://example.com/file" }), "Must be a valid URL"],
    ["no type", valid({ type: undefined }), "Type is required"],
    ["an unknown type", valid({ type: "webhook" }), "Type is required"],
    ["the dropped Function type (ADR 022)", valid({ type: "function" }), "Type is required"],
    ["no method", valid({ http_method: undefined }), "HTTP method is required"],
    ["an unknown method", valid({ http_method: "PATCH" }), "HTTP method is required"],
    ["no parameter format", valid({ parameter_format: undefined }), "Parameter format is required"],
    ["headers that are not an object", valid({ http_headers: ["x"] }), "Headers must be a JSON object"],
    ["a header value that is not text", valid({ http_headers: { "X-Count": 1 } }), "Header values must be strings"],
    ["a header value with a line break", valid({ http_headers: { "X-A": "1\r\nX-B: 2" } }), "Header values must not contain line breaks"],
    [
      "a parameter without a type",
      valid({ parameters: { type: "object", properties: { q: { description: "query" } } } }),
      "Each parameter needs a type: string, number, integer, boolean, array or object",
    ],
    [
      "a required parameter that is not listed",
      valid({ parameters: { type: "object", properties: {}, required: ["q"] } }),
      "Every required parameter must be listed in properties",
    ],
    ["a request body that is not an object", valid({ request_body: "text" }), "Request body must be a JSON object"],
  ];

  it.each(cases)("refuses %s with the spec's message and writes nothing", async (_, payload, message) => {
    const user = await signUpAndLogIn(file.app);
    const res = await as(file.app, user).post("/api/tools", payload);
    expect(res.statusCode).toBe(400);
    expect(errorOf(res).message).toBe(message);
    expect(await list(user)).toEqual([]);
  });

  it("refuses an invalid update and keeps the tool as it was", async () => {
    const user = await signUpAndLogIn(file.app);
    const tool = await create(user);
    for (const [patch, message] of [
      [{ name: "" }, "Name is required"],
      [{ end_point_url: "example.com" }, "Must be a valid URL"],
      [{ http_headers: { "Bad Header": "x" } }, "Header names may only contain letters, digits and !#$%&'*+-.^_`|~"],
    ] as const) {
      const res = await as(file.app, user).patch(`/api/tools/${tool.id}`, patch);
      expect(res.statusCode).toBe(400);
      expect(errorOf(res).message).toBe(message);
    }
    expect((await as(file.app, user).get(`/api/tools/${tool.id}`)).json()).toEqual(tool);
  });
});

describe("update", () => {
  it("changes the fields sent, keeps the others and moves updated_at", async () => {
    const user = await signUpAndLogIn(file.app);
    const tool = await create(user, valid({ http_headers: { "X-A": "1" } }));
    const res = await as(file.app, user).patch(`/api/tools/${tool.id}`, {
      name: "Order status",
      http_method: "PUT",
      request_body: { status: "shipped" },
      description: null,
    });
    expect(res.statusCode, res.body).toBe(200);
    const updated = res.json() as Tool;
    expect(updated).toMatchObject({
      id: tool.id,
      name: "Order status",
      description: null,
      http_method: "PUT",
      request_body: { status: "shipped" },
      http_headers: { "X-A": "••••" },
      end_point_url: tool.end_point_url,
      created_at: tool.created_at,
    });
    expect(new Date(updated.updated_at).getTime()).toBeGreaterThanOrEqual(new Date(tool.updated_at).getTime());
    expect((await as(file.app, user).get(`/api/tools/${tool.id}`)).json()).toEqual(updated);
  });
});

describe("the API key", () => {
  const secret = "sk-live-0123456789-SECRET-abcd";
  const replacement = "rk-second-key-9876543210-wxyz";

  it("is stored encrypted and never sent back, only a masked hint", async () => {
    const user = await signUpAndLogIn(file.app);
    const res = await as(file.app, user).post("/api/tools", valid({ api_key: secret }));
    expect(res.statusCode).toBe(201);
    const tool = res.json() as Tool;
    expect(tool).toMatchObject({ api_key_set: true, api_key_hint: "••••abcd" });
    expect(tool).not.toHaveProperty("api_key");

    const bodies = [
      res.body,
      (await as(file.app, user).get("/api/tools")).body,
      (await as(file.app, user).get(`/api/tools/${tool.id}`)).body,
      (await as(file.app, user).patch(`/api/tools/${tool.id}`, { name: "Renamed" })).body,
    ];
    for (const body of bodies) {
      expect(body).not.toContain(secret);
      expect(body).not.toContain("SECRET");
    }

    const [row] = await file.db.select().from(tools).where(eq(tools.id, tool.id));
    expect(row!.apiKeyEncrypted).toBeTruthy();
    expect(row!.apiKeyEncrypted).not.toContain(secret);
  });

  it("is kept when an update omits it or leaves it blank, replaced when a new one is sent, removed by null", async () => {
    const user = await signUpAndLogIn(file.app);
    const tool = await create(user, valid({ api_key: secret }));
    const patch = async (body: Record<string, unknown>) => {
      const res = await as(file.app, user).patch(`/api/tools/${tool.id}`, body);
      expect(res.statusCode, res.body).toBe(200);
      return res.json() as Tool;
    };
    expect(await patch({ name: "No key field" })).toMatchObject({ api_key_set: true, api_key_hint: "••••abcd" });
    expect(await patch({ api_key: "" })).toMatchObject({ api_key_set: true, api_key_hint: "••••abcd" });
    expect(await patch({ api_key: "   " })).toMatchObject({ api_key_set: true, api_key_hint: "••••abcd" });
    const replaced = await as(file.app, user).patch(`/api/tools/${tool.id}`, { api_key: replacement });
    expect(replaced.json()).toMatchObject({ api_key_set: true, api_key_hint: "••••wxyz" });
    expect(replaced.body).not.toContain(replacement);
    expect(await patch({ api_key: null })).toMatchObject({ api_key_set: false, api_key_hint: null });
    const [row] = await file.db.select().from(tools).where(eq(tools.id, tool.id));
    expect(row!.apiKeyEncrypted).toBeNull();
  });

  it("shows a short key as set without revealing any of it", async () => {
    const user = await signUpAndLogIn(file.app);
    const tool = await create(user, valid({ api_key: "abc123" }));
    expect(tool).toMatchObject({ api_key_set: true, api_key_hint: "••••" });
  });
});

describe("another user's tool", () => {
  it("answers 404 on read, update, delete and execute, and stays untouched", async () => {
    const tool = await create(file.users.Alice, valid({ name: "Alice's private tool" }));
    const attempts = [
      as(file.app, file.users.Bob).get(`/api/tools/${tool.id}`),
      as(file.app, file.users.Bob).patch(`/api/tools/${tool.id}`, { name: "Stolen" }),
      as(file.app, file.users.Bob).delete(`/api/tools/${tool.id}`),
      as(file.app, file.users.Bob).post(`/api/tools/${tool.id}/execute`, { parameters: {} }),
    ];
    for (const res of await Promise.all(attempts)) {
      expect(res.statusCode).toBe(404);
      expect(errorOf(res)).toEqual({ code: "not_found", message: "Tool not found" });
    }
    expect((await as(file.app, file.users.Alice).get(`/api/tools/${tool.id}`)).json()).toEqual(tool);
  });

  it("answers 404 for an id that does not exist or is not an id at all", async () => {
    for (const id of ["00000000-0000-4000-8000-000000000000", "not-a-uuid", "1"]) {
      const res = await as(file.app, file.users.Alice).get(`/api/tools/${id}`);
      expect(res.statusCode, id).toBe(404);
      expect((await as(file.app, file.users.Alice).delete(`/api/tools/${id}`)).statusCode, id).toBe(404);
      expect((await as(file.app, file.users.Alice).patch(`/api/tools/${id}`, { name: "x" })).statusCode, id).toBe(404);
    }
  });
});

describe("delete", () => {
  async function insertAssistant(organizationId: string, name: string, toolIds: string[]) {
    const [row] = await file.db.insert(assistants).values({ organizationId, name, toolIds, model: "gpt-realtime-2.1" }).returning();
    return row!;
  }
  const toolIdsOf = async (id: string) => (await file.db.select().from(assistants).where(eq(assistants.id, id)))[0]!.toolIds;

  it("removes the tool and its id from the owner's assistants, leaving other tools and users alone", async () => {
    const user = await signUpAndLogIn(file.app);
    const doomed = await create(user, valid({ name: "Doomed" }));
    const kept = await create(user, valid({ name: "Kept" }));
    const both = await insertAssistant(user.organizationId, "Uses both", [doomed.id, kept.id]);
    const onlyDoomed = await insertAssistant(user.organizationId, "Uses doomed", [doomed.id]);
    const none = await insertAssistant(user.organizationId, "Uses none", [kept.id]);

    const res = await as(file.app, user).delete(`/api/tools/${doomed.id}`);
    expect(res.statusCode).toBe(204);
    expect((await as(file.app, user).get(`/api/tools/${doomed.id}`)).statusCode).toBe(404);
    expect((await list(user)).map((t) => t.name)).toEqual(["Kept"]);
    expect(await toolIdsOf(both.id)).toEqual([kept.id]);
    expect(await toolIdsOf(onlyDoomed.id)).toEqual([]);
    expect(await toolIdsOf(none.id)).toEqual([kept.id]);
    // Taking a deleted tool out is not an edit of the assistant.
    const [after] = await file.db.select().from(assistants).where(eq(assistants.id, both.id));
    expect(after!.updatedAt.toISOString()).toBe(both.updatedAt.toISOString());

    expect((await as(file.app, user).delete(`/api/tools/${doomed.id}`)).statusCode).toBe(404);
  });

  it("does not touch another user's assistant that lists the same id", async () => {
    const user = await signUpAndLogIn(file.app);
    const tool = await create(user);
    const foreign = await insertAssistant(file.users.Bob.organizationId, "Bob's", [tool.id]);
    expect((await as(file.app, user).delete(`/api/tools/${tool.id}`)).statusCode).toBe(204);
    expect(await toolIdsOf(foreign.id)).toEqual([tool.id]);
  });
});
