import { eq } from "drizzle-orm";
import { describe, expect, it } from "vitest";
import { as, buildTestApp, errorOf, signUpAndLogIn, useTestApp, expectBody } from "../../../../tests/harness.ts";
import type { Assistant } from "../../../shared/assistants.ts";
import type { ToolType } from "../../../shared/tools.ts";
import { assistants, calls, phoneNumbers, tools } from "../../db/schema.ts";

const file = useTestApp({ users: ["Alice", "Bob"] });

async function insertTool(organizationId: string, name: string, type: ToolType = "API") {
  const [row] = await file.db
    .insert(tools)
    .values({ organizationId, name, type, httpMethod: "GET", parameterFormat: "standard", endPointUrl: "https://example.com/api" })
    .returning();
  return row!;
}

type Who = { cookie: string };

async function create(who: Who, payload: Record<string, unknown>): Promise<Assistant> {
  return expectBody(await as(file.app, who).post("/api/assistants", payload), 201);
}

const list = async (who: Who): Promise<Assistant[]> => (await as(file.app, who).get("/api/assistants")).json().data;

describe("authentication", () => {
  it("refuses every route without a session", async () => {
    for (const [method, url] of [
      ["GET", "/api/assistants"],
      ["GET", "/api/assistants/defaults"],
      ["POST", "/api/assistants"],
      ["GET", "/api/assistants/00000000-0000-4000-8000-000000000000"],
      ["PATCH", "/api/assistants/00000000-0000-4000-8000-000000000000"],
      ["DELETE", "/api/assistants/00000000-0000-4000-8000-000000000000"],
    ] as const) {
      const res = await as(file.app, null).request(method, url, method === "POST" || method === "PATCH" ? { name: "x" } : undefined);
      expect(res.statusCode, `${method} ${url}`).toBe(401);
      expect(errorOf(res).message).toBe("Authentication required. Please sign in again.");
    }
  });
});

describe("GET /api/assistants/defaults", () => {
  it("gives the default voice, the configured model and the models on offer", async () => {
    const res = await as(file.app, file.users.Alice).get("/api/assistants/defaults");
    expect(res.statusCode).toBe(200);
    expect(res.json()).toEqual({
      voice: "marin",
      model: "gpt-realtime-2.1",
      models: ["gpt-realtime-2.1", "gpt-realtime-2.1-mini", "gpt-realtime-2", "gpt-realtime-1.5", "gpt-realtime", "gpt-realtime-mini"],
    });
  });

  it("offers a configured default that is not in the built-in list, and uses it for new assistants", async () => {
    const other = await buildTestApp({ config: { OPENAI_REALTIME_MODEL: "gpt-realtime-next" } });
    try {
      const user = await signUpAndLogIn(other.app);
      const defaults = await other.app.inject({ url: "/api/assistants/defaults", headers: { cookie: user.cookie } });
      expect(defaults.json()).toMatchObject({ model: "gpt-realtime-next", models: expect.arrayContaining(["gpt-realtime-next", "gpt-realtime-mini"]) });
      const created = await other.app.inject({ method: "POST", url: "/api/assistants", headers: { cookie: user.cookie }, payload: { name: "Next" } });
      expect(created.json()).toMatchObject({ model: "gpt-realtime-next" });
    } finally {
      await other.app.close();
    }
  });
});

describe("POST /api/assistants", () => {
  it("creates an assistant from a name alone, filling the defaults", async () => {
    const res = await as(file.app, file.users.Alice).post("/api/assistants", { name: "  Front desk  " });
    expect(res.statusCode).toBe(201);
    const body = res.json() as Assistant;
    expect(body).toEqual({
      id: expect.any(String),
      organization_id: file.users.Alice.organizationId,
      name: "Front desk",
      description: null,
      first_message: null,
      instructions: null,
      tool_ids: [],
      tools: [],
      voice: "marin",
      model: "gpt-realtime-2.1",
      transfer_destinations: [],
      allow_end_call: true,
      keypad_input: true,
      timezone: "UTC",
      voicemail: null,
      allow_do_not_call: false,
      variables: [],
      analysis: { summary: { enabled: true, prompt: null }, fields: [], success: { rubric: null, scale: "pass_fail" }, model: "gpt-5-mini" },
      knowledge_base_ids: [],
      knowledge: { mode: "tool", tool_description: null, passages: 5 },
      voice_engine: { type: "realtime" },
      created_at: expect.any(String),
      updated_at: expect.any(String),
    });
    expect(body).not.toHaveProperty("openai_id");
    expect(new Date(body.created_at).toISOString()).toBe(body.created_at);
    expect((await as(file.app, file.users.Alice).get(`/api/assistants/${body.id}`)).json()).toEqual(body);
  });

  it("stores every field and connects the caller's own tools, listed as name and type in the order picked", async () => {
    const crm = await insertTool(file.users.Alice.organizationId, "CRM lookup", "API");
    const desk = await insertTool(file.users.Alice.organizationId, "Helpdesk", "connector");
    const body = await create(file.users.Alice, {
      name: "Support",
      description: "Answers support calls",
      first_message: "Hello, how can I help?",
      instructions: "Be brief.\nAlways confirm the order number.",
      tool_ids: [desk.id, crm.id, desk.id.toUpperCase()],
      voice: "cedar",
      model: "gpt-realtime-mini",
    });
    expect(body).toMatchObject({
      description: "Answers support calls",
      first_message: "Hello, how can I help?",
      instructions: "Be brief.\nAlways confirm the order number.",
      tool_ids: [desk.id, crm.id],
      tools: [
        { id: desk.id, name: "Helpdesk", type: "connector" },
        { id: crm.id, name: "CRM lookup", type: "API" },
      ],
      voice: "cedar",
      model: "gpt-realtime-mini",
    });
  });

  it("stores blank optional texts as empty (null)", async () => {
    const body = await create(file.users.Alice, { name: "Blank", description: "   ", first_message: "", instructions: null });
    expect(body).toMatchObject({ description: null, first_message: null, instructions: null });
  });

  it.each([
    [{}, "Name is required"],
    [{ name: "" }, "Name is required"],
    [{ name: "   " }, "Name is required"],
    [{ name: "x".repeat(201) }, "Name must be at most 200 characters"],
    [{ name: "Ok", voice: "robot" }, "Voice must be one of the provider's voices"],
    [{ name: "Ok", tool_ids: "abc" }, "tool_ids must be a list of tool ids"],
    [{ name: "Ok", tool_ids: ["not-a-uuid"] }, "Each tool id must be the id of one of your tools"],
    [{ name: "Ok", model: "gpt-4o" }, expect.stringContaining("Model must be one of: gpt-realtime-2.1,")],
  ])("refuses %j with a 400 and saves nothing", async (payload, message) => {
    const user = await signUpAndLogIn(file.app);
    const res = await as(file.app, user).post("/api/assistants", payload);
    expect(res.statusCode).toBe(400);
    expect(errorOf(res).message).toEqual(message);
    expect(await list(user)).toEqual([]);
  });

  it("refuses another user's tool or an unknown tool id with a clear 400, saving nothing", async () => {
    const user = await signUpAndLogIn(file.app);
    const mine = await insertTool(user.organizationId, "Mine");
    const bobs = await insertTool(file.users.Bob.organizationId, "Bob's tool");
    const unknown = "6f1c1e0a-3b0e-4c56-9d4c-2d7a1f0b9e11";

    const res = await as(file.app, user).post("/api/assistants", { name: "Sneaky", tool_ids: [mine.id, bobs.id] });
    expect(res.statusCode).toBe(400);
    expect(errorOf(res)).toEqual({ code: "unknown_tool", message: `Tool ${bobs.id} does not exist or is not one of your tools` });

    const both = await as(file.app, user).post("/api/assistants", { name: "Sneaky", tool_ids: [bobs.id, unknown] });
    expect(errorOf(both).message).toBe(`Tools ${bobs.id}, ${unknown} do not exist or are not among your tools`);

    expect(await list(user)).toEqual([]);
  });
});

describe("GET /api/assistants", () => {
  it("lists only the caller's assistants, newest first, each with its own tools", async () => {
    const user = await signUpAndLogIn(file.app);
    const [a, b, c] = [await insertTool(user.organizationId, "A"), await insertTool(user.organizationId, "B"), await insertTool(user.organizationId, "C", "connector")];
    const first = await create(user, { name: "First", tool_ids: [a.id] });
    const second = await create(user, { name: "Second" });
    const third = await create(user, { name: "Third", tool_ids: [c.id, b.id, a.id] });
    await create(file.users.Bob, { name: "Bob's assistant" });

    const rows = await list(user);
    expect(rows.map((r) => r.name)).toEqual(["Third", "Second", "First"]);
    expect(rows.map((r) => r.id)).toEqual([third.id, second.id, first.id]);
    expect(rows[0]!.tools).toEqual([
      { id: c.id, name: "C", type: "connector" },
      { id: b.id, name: "B", type: "API" },
      { id: a.id, name: "A", type: "API" },
    ]);
    expect(rows[1]!.tools).toEqual([]);
    expect(rows[2]!.tools).toEqual([{ id: a.id, name: "A", type: "API" }]);
  });

  it("orders by creation time even when rows were inserted out of order", async () => {
    const user = await signUpAndLogIn(file.app);
    await file.db.insert(assistants).values([
      { organizationId: user.organizationId, name: "Middle", model: "gpt-realtime", createdAt: new Date("2025-02-01T00:00:00Z") },
      { organizationId: user.organizationId, name: "Newest", model: "gpt-realtime", createdAt: new Date("2025-03-01T00:00:00Z") },
      { organizationId: user.organizationId, name: "Oldest", model: "gpt-realtime", createdAt: new Date("2025-01-01T00:00:00Z") },
    ]);
    expect((await list(user)).map((r) => r.name)).toEqual(["Newest", "Middle", "Oldest"]);
  });

  it("drops a connected tool from the list and the count once the tool is deleted", async () => {
    const user = await signUpAndLogIn(file.app);
    const keep = await insertTool(user.organizationId, "Keep");
    const gone = await insertTool(user.organizationId, "Gone");
    const created = await create(user, { name: "Has tools", tool_ids: [keep.id, gone.id] });
    await file.db.delete(tools).where(eq(tools.id, gone.id));
    const [row] = await list(user);
    expect(row).toMatchObject({ id: created.id, tool_ids: [keep.id], tools: [{ id: keep.id, name: "Keep", type: "API" }] });
  });
});

describe("GET /api/assistants/:id", () => {
  it("answers 404 for another user's assistant, an unknown id and a malformed id", async () => {
    const bobs = await create(file.users.Bob, { name: "Private" });
    for (const id of [bobs.id, "00000000-0000-4000-8000-000000000000", "not-an-id"]) {
      const res = await as(file.app, file.users.Alice).get(`/api/assistants/${id}`);
      expect(res.statusCode, id).toBe(404);
      expect(errorOf(res)).toEqual({ code: "not_found", message: "Assistant not found" });
    }
    expect((await as(file.app, file.users.Bob).get(`/api/assistants/${bobs.id}`)).statusCode).toBe(200);
  });
});

describe("PATCH /api/assistants/:id", () => {
  it("changes the fields sent, keeps the others and moves updated_at", async () => {
    const tool = await insertTool(file.users.Alice.organizationId, "Orders");
    const created = await create(file.users.Alice, { name: "Sales", description: "Sells", instructions: "Upsell", tool_ids: [tool.id] });
    const res = await as(file.app, file.users.Alice).patch(`/api/assistants/${created.id}`, { name: "Sales team", description: "", voice: "ash" });
    expect(res.statusCode).toBe(200);
    const updated = res.json() as Assistant;
    expect(updated).toMatchObject({
      id: created.id,
      name: "Sales team",
      description: null,
      instructions: "Upsell",
      tool_ids: [tool.id],
      tools: [{ id: tool.id, name: "Orders", type: "API" }],
      voice: "ash",
      model: created.model,
      created_at: created.created_at,
    });
    expect(Date.parse(updated.updated_at)).toBeGreaterThan(Date.parse(created.updated_at));
    expect((await as(file.app, file.users.Alice).get(`/api/assistants/${created.id}`)).json()).toEqual(updated);
  });

  it("replaces the tools and can remove them all", async () => {
    const [a, b] = [await insertTool(file.users.Alice.organizationId, "a"), await insertTool(file.users.Alice.organizationId, "b")];
    const created = await create(file.users.Alice, { name: "Tools", tool_ids: [a.id] });
    const swapped = (await as(file.app, file.users.Alice).patch(`/api/assistants/${created.id}`, { tool_ids: [b.id, a.id] })).json() as Assistant;
    expect(swapped.tool_ids).toEqual([b.id, a.id]);
    const cleared = (await as(file.app, file.users.Alice).patch(`/api/assistants/${created.id}`, { tool_ids: [] })).json() as Assistant;
    expect(cleared).toMatchObject({ tool_ids: [], tools: [] });
  });

  it("refuses another user's tool and an invalid name, leaving the assistant as it was", async () => {
    const mine = await insertTool(file.users.Alice.organizationId, "Mine");
    const bobs = await insertTool(file.users.Bob.organizationId, "Bob's");
    const created = await create(file.users.Alice, { name: "Unchanged", tool_ids: [mine.id] });

    const tool = await as(file.app, file.users.Alice).patch(`/api/assistants/${created.id}`, { name: "Changed", tool_ids: [bobs.id] });
    expect(tool.statusCode).toBe(400);
    expect(errorOf(tool).message).toBe(`Tool ${bobs.id} does not exist or is not one of your tools`);

    const name = await as(file.app, file.users.Alice).patch(`/api/assistants/${created.id}`, { name: " " });
    expect(name.statusCode).toBe(400);
    expect(errorOf(name).message).toBe("Name is required");

    expect((await as(file.app, file.users.Alice).get(`/api/assistants/${created.id}`)).json()).toEqual(created);
  });

  it("keeps an assistant's model when it is no longer offered, but refuses switching to an unknown one", async () => {
    const [row] = await file.db.insert(assistants).values({ organizationId: file.users.Alice.organizationId, name: "Legacy", model: "gpt-realtime-preview-legacy" }).returning();
    const same = await as(file.app, file.users.Alice).patch(`/api/assistants/${row!.id}`, { name: "Legacy 2", model: "gpt-realtime-preview-legacy" });
    expect(same.statusCode).toBe(200);
    expect(same.json()).toMatchObject({ name: "Legacy 2", model: "gpt-realtime-preview-legacy" });
    const other = await as(file.app, file.users.Alice).patch(`/api/assistants/${row!.id}`, { model: "gpt-4o" });
    expect(other.statusCode).toBe(400);
    const switched = await as(file.app, file.users.Alice).patch(`/api/assistants/${row!.id}`, { model: "gpt-realtime-2" });
    expect(switched.json()).toMatchObject({ model: "gpt-realtime-2" });
  });

  it("answers 404 for another user's assistant and changes nothing", async () => {
    const bobs = await create(file.users.Bob, { name: "Bob's" });
    const res = await as(file.app, file.users.Alice).patch(`/api/assistants/${bobs.id}`, { name: "Hijacked" });
    expect(res.statusCode).toBe(404);
    expect(errorOf(res).message).toBe("Assistant not found");
    expect((await as(file.app, file.users.Bob).get(`/api/assistants/${bobs.id}`)).json()).toEqual(bobs);
  });
});

describe("DELETE /api/assistants/:id", () => {
  it("deletes the assistant, unassigns its phone numbers and keeps its past calls", async () => {
    const user = await signUpAndLogIn(file.app);
    const doomed = await create(user, { name: "Retired" });
    const kept = await create(user, { name: "Still here" });
    const [number] = await file.db
      .insert(phoneNumbers)
      .values({ organizationId: user.organizationId, phoneNumber: "+15550100", countryCode: "US", status: "active", assistantId: doomed.id })
      .returning();
    const [other] = await file.db
      .insert(phoneNumbers)
      .values({ organizationId: user.organizationId, phoneNumber: "+15550101", countryCode: "US", assistantId: kept.id })
      .returning();
    const [pastCall] = await file.db
      .insert(calls)
      .values({ organizationId: user.organizationId, assistantId: doomed.id, assistantName: "Retired", endTime: new Date(), cost: 0.05, logs: { isTest: true, transcript: [] } })
      .returning();

    const res = await as(file.app, user).delete(`/api/assistants/${doomed.id}`);
    expect(res.statusCode).toBe(204);
    expect(res.body).toBe("");

    expect((await as(file.app, user).get(`/api/assistants/${doomed.id}`)).statusCode).toBe(404);
    expect((await list(user)).map((a) => a.name)).toEqual(["Still here"]);

    const [numberAfter] = await file.db.select().from(phoneNumbers).where(eq(phoneNumbers.id, number!.id));
    expect(numberAfter).toMatchObject({ phoneNumber: "+15550100", status: "active", assistantId: null });
    const [otherAfter] = await file.db.select().from(phoneNumbers).where(eq(phoneNumbers.id, other!.id));
    expect(otherAfter!.assistantId).toBe(kept.id);
    const [callAfter] = await file.db.select().from(calls).where(eq(calls.id, pastCall!.id));
    expect(callAfter).toMatchObject({ assistantId: null, assistantName: "Retired", cost: 0.05, logs: { isTest: true, transcript: [] } });

    expect((await as(file.app, user).delete(`/api/assistants/${doomed.id}`)).statusCode).toBe(404);
  });

  it("answers 404 for another user's assistant and keeps it", async () => {
    const bobs = await create(file.users.Bob, { name: "Keep me" });
    for (const id of [bobs.id, "nonsense"]) {
      const res = await as(file.app, file.users.Alice).delete(`/api/assistants/${id}`);
      expect(res.statusCode).toBe(404);
      expect(errorOf(res).message).toBe("Assistant not found");
    }
    expect((await as(file.app, file.users.Bob).get(`/api/assistants/${bobs.id}`)).statusCode).toBe(200);
  });
});
