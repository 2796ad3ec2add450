import { describe, expect, it } from "vitest";
import { errorOf, useTestApp, expectBody } from "../../../../tests/harness.ts";
import type { Assistant } from "../../../shared/assistants.ts";
import type { CallPage } from "../../../shared/call-records.ts";
import type { Page } from "../../../shared/pages.ts";
import { VERSION_MESSAGES, type AssistantVersion, type AssistantVersionPage, type AssistantVersionSummary, type DraftState } from "../../../shared/versions.ts";
import { calls, phoneNumbers } from "../../db/schema.ts";

/** Assistant versions through the API: publish, history, roll back, pins on numbers, calls per version. */

const file = useTestApp({ users: ["Alice", "Bob"] });
const alice = () => file.as(file.users.Alice);
const bob = () => file.as(file.users.Bob);

async function newAssistant(payload: Record<string, unknown> = {}): Promise<Assistant> {
  return expectBody(await alice().post("/api/assistants", { name: "Front desk", instructions: "Be kind.", first_message: "Hello!", ...payload }), 201);
}
const versionsOf = async (id: string) => (await alice().get(`/api/assistants/${id}/versions`)).json<AssistantVersionPage>();
const versionOf = async (id: string, n: number) => (await alice().get(`/api/assistants/${id}/versions/${n}`)).json<AssistantVersion>();

describe("versions of an assistant", () => {
  it("a new assistant is published as v1 when first saved, by its creator, with the draft unchanged", async () => {
    const a = await newAssistant();
    const list = await versionsOf(a.id);
    expect(list).toEqual({
      live_version: 1,
      draft_changed: false,
      data: [
        { version: 1, note: null, published_at: expect.any(String), published_by: { id: file.users.Alice.organizationId, name: expect.any(String) }, published_with_failures: false, rolled_back_from: null },
      ],
      next_cursor: null,
    });
    // The analysis settings are versioned too (their shape is the analysis module's).
    expect((await versionOf(a.id, 1)).content).toEqual({
      analysis: expect.any(Object),
      first_message: "Hello!",
      instructions: "Be kind.",
      tool_ids: [],
      voice: "marin",
      model: a.model,
      transfer_destinations: [],
      allow_end_call: true,
      keypad_input: true,
      timezone: "UTC",
      voicemail: null,
      allow_do_not_call: false,
      knowledge: { mode: "tool", tool_description: null, passages: 5 },
    });
  });

  it("GET /api/assistants/drafts says, per assistant, which version callers hear and whether the draft differs", async () => {
    const a = await newAssistant();
    const stateOf = async () => (await alice().get("/api/assistants/drafts")).json<Page<DraftState>>().data.find((d) => d.assistant_id === a.id);
    expect(await stateOf()).toEqual({ assistant_id: a.id, live_version: 1, draft_changed: false });
    expect((await alice().patch(`/api/assistants/${a.id}`, { instructions: "Be brief." })).statusCode).toBe(200);
    expect(await stateOf()).toEqual({ assistant_id: a.id, live_version: 1, draft_changed: true });
    expect((await alice().post(`/api/assistants/${a.id}/publish`, {})).statusCode).toBe(201);
    expect(await stateOf()).toEqual({ assistant_id: a.id, live_version: 2, draft_changed: false });
    // Another organisation's assistants are not in Bob's list.
    expect((await bob().get("/api/assistants/drafts")).json()).toEqual({ data: [], next_cursor: null });
  });

  it("saving the form edits the draft only; publish makes it the next version with its note", async () => {
    const a = await newAssistant();
    await alice().patch(`/api/assistants/${a.id}`, { instructions: "Be brief." });
    expect(await versionsOf(a.id)).toMatchObject({ live_version: 1, draft_changed: true });
    expect((await versionOf(a.id, 1)).content.instructions).toBe("Be kind.");

    const res = await alice().post(`/api/assistants/${a.id}/publish`, { note: "  Shorter answers " });
    expect(res.statusCode, res.body).toBe(201);
    expect(res.json<AssistantVersionSummary>()).toMatchObject({ version: 2, note: "Shorter answers", published_with_failures: false });
    expect(await versionsOf(a.id)).toMatchObject({ live_version: 2, draft_changed: false, data: [{ version: 2 }, { version: 1 }] });
    expect((await versionOf(a.id, 2)).content.instructions).toBe("Be brief.");
    const bare = await alice().post(`/api/assistants/${a.id}/publish`, {});
    expect(bare.json<AssistantVersionSummary>()).toMatchObject({ version: 3, note: null });
  });

  it("roll back publishes an old version's content as a new version and leaves the draft alone", async () => {
    const a = await newAssistant();
    await alice().patch(`/api/assistants/${a.id}`, { instructions: "Typo!!", voice: "ash" });
    await alice().post(`/api/assistants/${a.id}/publish`, {});
    const res = await alice().post(`/api/assistants/${a.id}/rollback`, { version: 1 });
    expect(res.statusCode, res.body).toBe(201);
    expect(res.json<AssistantVersionSummary>()).toMatchObject({ version: 3, rolled_back_from: 1 });
    expect((await versionOf(a.id, 3)).content).toEqual((await versionOf(a.id, 1)).content);
    expect((await alice().get(`/api/assistants/${a.id}`)).json<Assistant>()).toMatchObject({ instructions: "Typo!!", voice: "ash" });
    expect(await versionsOf(a.id)).toMatchObject({ live_version: 3, draft_changed: true });
  });

  it("refuses bad input with clear 4xx answers and writes nothing", async () => {
    const a = await newAssistant();
    const cases: Array<[string, string, unknown, number, string]> = [
      ["POST", `/api/assistants/${a.id}/rollback`, { version: 9 }, 400, VERSION_MESSAGES.unknownVersion(9)],
      ["POST", `/api/assistants/${a.id}/rollback`, { version: 0 }, 400, VERSION_MESSAGES.versionInvalid],
      ["POST", `/api/assistants/${a.id}/rollback`, {}, 400, VERSION_MESSAGES.versionInvalid],
      ["POST", `/api/assistants/${a.id}/publish`, { note: "x".repeat(501) }, 400, VERSION_MESSAGES.noteTooLong],
      ["GET", `/api/assistants/${a.id}/versions/7`, undefined, 404, VERSION_MESSAGES.notFound],
      ["GET", `/api/assistants/${a.id}/versions/abc`, undefined, 404, VERSION_MESSAGES.notFound],
      ["GET", `/api/assistants/not-an-id/versions`, undefined, 404, "Assistant not found"],
    ];
    for (const [method, url, body, status, message] of cases) {
      const res = await alice().request(method as "GET", url, body);
      expect(res.statusCode, `${method} ${url}`).toBe(status);
      expect(errorOf(res).message).toBe(message);
    }
    expect((await versionsOf(a.id)).data).toHaveLength(1);
  });

  it("another user's assistant answers 404 on every version route, and nothing is published", async () => {
    const a = await newAssistant();
    for (const [method, url, body] of [
      ["GET", `/api/assistants/${a.id}/versions`],
      ["GET", `/api/assistants/${a.id}/versions/1`],
      ["POST", `/api/assistants/${a.id}/publish`, {}],
      ["POST", `/api/assistants/${a.id}/rollback`, { version: 1 }],
    ] as const) {
      const res = await bob().request(method, url, body);
      expect(res.statusCode, `${method} ${url}`).toBe(404);
      expect(errorOf(res).message).toBe("Assistant not found");
    }
    expect((await versionsOf(a.id)).data).toHaveLength(1);
  });
});

describe("a version pinned on a phone number", () => {
  async function numberFor(assistantId: string | null) {
    const [row] = await file.db
      .insert(phoneNumbers)
      .values({ organizationId: file.users.Alice.organizationId, phoneNumber: `+1555${Math.floor(Math.random() * 1e7)}`, countryCode: "US", status: "active", assistantId })
      .returning();
    return row!;
  }

  it("PATCH {assistant_version} alone pins and unpins; the list shows it", async () => {
    const a = await newAssistant();
    await alice().post(`/api/assistants/${a.id}/publish`, {});
    const number = await numberFor(a.id);
    const pinned = await alice().patch(`/api/phone-numbers/${number.id}`, { assistant_version: 1 });
    expect(pinned.statusCode, pinned.body).toBe(200);
    expect(pinned.json()).toMatchObject({ assistant_id: a.id, assistant_version: 1 });
    const listed = (await alice().get("/api/phone-numbers")).json<{ data: Array<{ id: string; assistant_version: number | null }> }>().data;
    expect(listed.find((n) => n.id === number.id)?.assistant_version).toBe(1);

    // Re-linking the same assistant keeps the pin; another assistant drops it.
    expect((await alice().patch(`/api/phone-numbers/${number.id}`, { assistant_id: a.id })).json()).toMatchObject({ assistant_version: 1 });
    const unpinned = await alice().patch(`/api/phone-numbers/${number.id}`, { assistant_version: null });
    expect(unpinned.json()).toMatchObject({ assistant_id: a.id, assistant_version: null });
    await alice().patch(`/api/phone-numbers/${number.id}`, { assistant_version: 2 });
    const other = await newAssistant({ name: "Other" });
    expect((await alice().patch(`/api/phone-numbers/${number.id}`, { assistant_id: other.id })).json()).toMatchObject({ assistant_id: other.id, assistant_version: null });
  });

  it("refuses a version the assistant does not have, a pin without an assistant and an empty body", async () => {
    const a = await newAssistant();
    const number = await numberFor(a.id);
    const missing = await alice().patch(`/api/phone-numbers/${number.id}`, { assistant_version: 5 });
    expect(missing.statusCode).toBe(400);
    expect(errorOf(missing).message).toBe(VERSION_MESSAGES.unknownVersion(5));
    const bare = await numberFor(null);
    const noAssistant = await alice().patch(`/api/phone-numbers/${bare.id}`, { assistant_version: 1 });
    expect(errorOf(noAssistant).message).toBe(VERSION_MESSAGES.pinNeedsAssistant);
    const empty = await alice().patch(`/api/phone-numbers/${number.id}`, {});
    expect(empty.statusCode).toBe(400);
    expect(errorOf(empty).message).toBe("Assistant is required");
    expect((await bob().patch(`/api/phone-numbers/${number.id}`, { assistant_version: 1 })).statusCode).toBe(404);
  });
});

describe("calls by version", () => {
  it("each call shows the version it ran, and the list and stats filter by it (draft = test calls of the draft)", async () => {
    const a = await newAssistant();
    // Phone calls show what they cost (here Twilio's price alone), test calls the tariff.
    const base = { organizationId: file.users.Alice.organizationId, assistantId: a.id, endTime: new Date(), cost: 0.05, telephonyCost: 0.05 };
    await file.db.insert(calls).values([
      { ...base, assistantVersion: 1, logs: { isTest: false } },
      { ...base, assistantVersion: 2, logs: { isTest: false } },
      { ...base, assistantVersion: 2, logs: { isTest: false }, telephonyCost: 0.07 },
      { ...base, assistantVersion: null, logs: { isTest: true } },
    ]);
    const page = async (q: string) => (await alice().get(`/api/calls?assistant_id=${a.id}${q}`)).json<CallPage>().data;
    expect((await page("")).map((c) => c.assistant_version).sort()).toEqual([1, 2, 2, null]);
    expect((await page("&assistant_version=2")).map((c) => c.assistant_version)).toEqual([2, 2]);
    expect((await page("&assistant_version=draft")).map((c) => c.assistant_version)).toEqual([null]);
    const stats = async (v: string) => (await alice().get(`/api/calls/stats?assistant_id=${a.id}&assistant_version=${v}`)).json<{ calls: number; cost: number }>();
    expect(await stats("2")).toMatchObject({ calls: 2, cost: 0.12 });
    expect(await stats("1")).toMatchObject({ calls: 1, cost: 0.05 });
    const bad = await alice().get(`/api/calls?assistant_version=v2`);
    expect(bad.statusCode).toBe(400);
    expect(errorOf(bad).message).toBe("assistant_version must be a version number or draft");
  });
});
