import { describe, expect, it } from "vitest";
import { errorOf, signUpAndLogIn, useTestApp } from "../harness.ts";
import { INVALID_CURSOR_CODE, INVALID_CURSOR_MESSAGE, PAGE_LIMIT_MAX } from "../../src/shared/pages.ts";
import { calls, campaignContacts, campaigns, knowledgeDocuments } from "../../src/server/db/schema.ts";
import type { SwitchboardClient } from "../../src/client/api-client.ts";
import { joinAs } from "../team.ts";
import type { SignedUp } from "../sign-up.ts";
import { servedDocument, sessionClient } from "./client.ts";

const file = useTestApp();

type Who = { cookie: string };

/** Every list converted to the one page shape, with how to add one item to it. */
const LISTS: { path: string; add: (who: Who, n: number) => Promise<void> }[] = [
  { path: "/api/assistants", add: (who, n) => created(file.as(who).post("/api/assistants", { name: `Assistant ${n}` })) },
  {
    path: "/api/tools",
    add: (who, n) =>
      created(file.as(who).post("/api/tools", { name: `Tool ${n}`, description: "Finds an order", type: "API", http_method: "GET", parameter_format: "standard", end_point_url: "https://api.example.com/orders" })),
  },
  { path: "/api/api-keys", add: (who, n) => created(file.as(who).post("/api/api-keys", { name: `Key ${n}` })) },
  { path: "/api/knowledge-bases", add: (who, n) => created(file.as(who).post("/api/knowledge-bases", { name: `Base ${n}` })) },
  { path: "/api/webhooks", add: (who, n) => created(file.as(who).post("/api/webhooks", { url: `https://hooks.example.com/in/${n}`, events: ["call.ended"] })) },
];

async function created(res: Promise<{ statusCode: number; body: string }>): Promise<void> {
  const answer = await res;
  expect(answer.statusCode, answer.body).toBe(201);
}

type Item = Record<string, unknown>;
const byId = (item: Item) => String(item.id);

/** Walks a list page by page, as a client would (its filters, if any, on every page), collecting every item's id. */
async function walk(who: Who, path: string, limit: number, idOf: (item: Item) => string = byId): Promise<{ ids: string[]; pages: number; items: Item[] }> {
  const ids: string[] = [];
  const items: Item[] = [];
  let cursor: string | null = null;
  let pages = 0;
  do {
    const res = await file.as(who).get(`${path}${path.includes("?") ? "&" : "?"}limit=${limit}${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ""}`);
    expect(res.statusCode, res.body).toBe(200);
    const page = res.json() as { data: Item[]; next_cursor: string | null };
    expect(page.data.length).toBeLessThanOrEqual(limit);
    ids.push(...page.data.map(idOf));
    items.push(...page.data);
    cursor = page.next_cursor;
    pages++;
  } while (cursor !== null);
  return { ids, pages, items };
}

describe("one page shape on every list", () => {
  for (const list of LISTS) {
    it(`${list.path}: walking pages of 2 and 3 gives every item once, in the order of one full page, and ends with next_cursor null`, async () => {
      const who = await signUpAndLogIn(file.app);
      const empty = (await file.as(who).get(list.path)).json();
      const before = (empty as { data: unknown[] }).data.length;
      expect(empty.next_cursor).toBeNull();
      for (let n = 0; n < 5; n++) await list.add(who, n);

      const whole = (await file.as(who).get(`${list.path}?limit=${PAGE_LIMIT_MAX}`)).json() as { data: { id: string }[]; next_cursor: string | null };
      expect(whole.data).toHaveLength(before + 5);
      expect(whole.next_cursor).toBeNull();
      for (const limit of [2, 3]) {
        const walked = await walk(who, list.path, limit);
        expect(walked.ids).toEqual(whole.data.map((item) => item.id));
        expect(walked.pages).toBe(Math.ceil((before + 5) / limit));
      }

      // Another organisation's walk sees none of these.
      const stranger = await signUpAndLogIn(file.app);
      const theirs = await walk(stranger, list.path, 2);
      expect(theirs.ids.filter((id) => whole.data.some((item) => item.id === id))).toEqual([]);
    });

    it(`${list.path}: refuses a limit outside 1–${PAGE_LIMIT_MAX} and a cursor it did not give, with 400`, async () => {
      const who = await signUpAndLogIn(file.app);
      for (const limit of ["0", String(PAGE_LIMIT_MAX + 1), "2.5", "many"]) {
        const res = await file.as(who).get(`${list.path}?limit=${limit}`);
        expect(res.statusCode, limit).toBe(400);
        expect(errorOf(res).message).toContain(`limit must be a whole number from 1 to ${PAGE_LIMIT_MAX}`);
      }
      for (const cursor of ["not-a-cursor", Buffer.from("[1,2]").toString("base64url"), Buffer.from('{"a":1}').toString("base64url"), "%%%"]) {
        const res = await file.as(who).get(`${list.path}?cursor=${encodeURIComponent(cursor)}`);
        expect(res.statusCode, cursor).toBe(400);
        expect(errorOf(res)).toMatchObject({ code: INVALID_CURSOR_CODE, message: INVALID_CURSOR_MESSAGE });
      }
    });
  }
});

/**
 * The lists that grow without bound, paged in SQL: each seeded with `count` items of which
 * `matching` pass the filter in `path`, and the order the walk must come in.
 */
const LARGE: {
  name: string;
  seed: (who: Who & { organizationId: string }) => Promise<{ path: string; expected: string[] }>;
  idOf?: (item: Item) => string;
}[] = [
  {
    name: "calls, newest start first, with a filter",
    seed: async (who) => {
      // Every other call a test call; four of them started in the same millisecond (the keyset holds microseconds).
      const starts = Array.from({ length: 10 }, (_, i) => new Date(Date.UTC(2026, 0, 1, 0, i < 4 ? 0 : i)));
      const rows = await file.db
        .insert(calls)
        .values(starts.map((startTime, i) => ({ organizationId: who.organizationId, startTime, logs: { isTest: i % 2 === 0 } })))
        .returning({ id: calls.id, startTime: calls.startTime, isTest: calls.isTest });
      const real = rows.filter((r) => r.isTest === false);
      expect(real).toHaveLength(5);
      const whole = (await file.as(who).get(`/api/calls?type=real&limit=${PAGE_LIMIT_MAX}`)).json() as { data: Item[] };
      // Newest start first; the ids of calls started together in the order the whole list gives them.
      expect(whole.data.map((c) => Date.parse(String(c.start_time)))).toEqual(real.map((r) => r.startTime.getTime()).sort((a, b) => b - a));
      return { path: "/api/calls?type=real", expected: whole.data.map(byId) };
    },
  },
  {
    name: "audit log, newest first, with a filter",
    seed: async (who) => {
      const names: string[] = [];
      for (let n = 0; n < 5; n++) {
        await created(file.as(who).post("/api/assistants", { name: `Audited ${n}` }));
        await created(file.as(who).post("/api/api-keys", { name: `Audited key ${n}` }));
        names.unshift(`Audited ${n}`);
      }
      const whole = (await file.as(who).get(`/api/audit-log?action=assistant.created&limit=${PAGE_LIMIT_MAX}`)).json() as { data: Item[] };
      expect(whole.data.map((e) => e.target_name)).toEqual(names);
      return { path: "/api/audit-log?action=assistant.created", expected: whole.data.map(byId) };
    },
  },
  {
    name: "do-not-call list, newest first",
    idOf: (item) => String(item.phone),
    seed: async (who) => {
      const phones: string[] = [];
      for (let n = 0; n < 5; n++) {
        const phone = `+1555000${7100 + n}`;
        expect((await file.as(who).post("/api/dnc", { phone })).statusCode).toBe(201);
        phones.unshift(phone);
      }
      return { path: "/api/dnc", expected: phones };
    },
  },
  {
    name: "campaign contacts, in row order",
    idOf: (item) => String(item.row),
    seed: async (who) => {
      const [campaign] = await file.db
        .insert(campaigns)
        .values({ organizationId: who.organizationId, name: "Paged", timezone: "UTC", windows: [], maxConcurrentCalls: 1, retry: { max_attempts: 1, delay_seconds: 3600, on: [] } })
        .returning({ id: campaigns.id });
      // Inserted out of order: the list keeps the CSV's row order whatever the order rows were written.
      const rows = [4, 1, 5, 2, 3];
      await file.db.insert(campaignContacts).values(rows.map((row) => ({ campaignId: campaign!.id, row, phone: `+1555000${7200 + row}`, variables: {} })));
      return { path: `/api/campaigns/${campaign!.id}/contacts`, expected: ["1", "2", "3", "4", "5"] };
    },
  },
  {
    name: "webhook deliveries, newest first",
    seed: async (who) => {
      const endpoint = await file.as(who).post("/api/webhooks", { url: "https://hooks.example.com/in", events: ["call.ended"] });
      expect(endpoint.statusCode, endpoint.body).toBe(201);
      const id = (endpoint.json() as { id: string }).id;
      for (let n = 0; n < 5; n++) expect((await file.as(who).post(`/api/webhooks/${id}/test`)).statusCode).toBe(202);
      const whole = (await file.as(who).get(`/api/webhooks/${id}/deliveries?limit=${PAGE_LIMIT_MAX}`)).json() as { data: Item[] };
      expect(whole.data).toHaveLength(5);
      const created = whole.data.map((d) => Date.parse(String(d.created_at)));
      expect(created).toEqual([...created].sort((a, b) => b - a));
      return { path: `/api/webhooks/${id}/deliveries`, expected: whole.data.map(byId) };
    },
  },
];

describe("the lists paged in SQL", () => {
  for (const list of LARGE) {
    it(`${list.name}: pages of 1, 2 and 3 give every item once, in order, filters kept, the last with next_cursor null; a bad cursor or limit is a 400`, async () => {
      const who = await signUpAndLogIn(file.app);
      const { path, expected } = await list.seed(who);
      expect(expected.length).toBeGreaterThanOrEqual(3);
      for (const limit of [1, 2, 3]) {
        const walked = await walk(who, path, limit, list.idOf);
        expect(walked.ids, `limit ${limit}`).toEqual(expected);
        expect(walked.pages).toBe(Math.ceil(expected.length / limit));
      }

      const join = path.includes("?") ? "&" : "?";
      const tooMany = await file.as(who).get(`${path}${join}limit=${PAGE_LIMIT_MAX + 1}`);
      expect(tooMany.statusCode).toBe(400);
      expect(errorOf(tooMany).message).toContain(`limit must be a whole number from 1 to ${PAGE_LIMIT_MAX}`);
      const wrongKind = Buffer.from(JSON.stringify(["not a time", "not an id"])).toString("base64url");
      for (const cursor of ["not-a-cursor", Buffer.from("[1,2]").toString("base64url"), wrongKind, Buffer.from('["2026-01-01T00:00:00.000000Z"]').toString("base64url")]) {
        const res = await file.as(who).get(`${path}${join}cursor=${encodeURIComponent(cursor)}`);
        expect(res.statusCode, cursor).toBe(400);
        expect(errorOf(res)).toMatchObject({ code: INVALID_CURSOR_CODE, message: INVALID_CURSOR_MESSAGE });
      }
    });
  }
});

type Query = { limit?: number; cursor?: string };
type Answer = { data?: unknown; error?: unknown; response: Response };
type Person = SignedUp;

/** `person` joins `owner`'s team through the invitation routes. */
async function join(owner: Person, person: Person): Promise<void> {
  const invited = await file.as(owner).post("/api/team/invitations", { email: person.email, role: "viewer" });
  expect(invited.statusCode, invited.body).toBe(201);
  const token = new URL((invited.json() as { url: string }).url).searchParams.get("token");
  expect((await file.as(person).post("/api/team/invitations/accept", { token })).statusCode).toBe(200);
}

/**
 * The lists converted last, walked through the generated client (src/client), whose answers are
 * held to the document: each seeded, then read with `read` as a client of the document would.
 */
const THROUGH_CLIENT: {
  name: string;
  idOf: (item: Item) => string;
  seed: (who: Person, api: SwitchboardClient) => Promise<{ read: (query: Query) => Promise<Answer>; expected: string[] }>;
}[] = [
  {
    name: "team members, oldest first",
    idOf: (item) => String(item.user_id),
    seed: async (who, api) => {
      const joined = [];
      for (let n = 0; n < 4; n++) joined.push(await joinAs(file.app, who, "viewer", `Member ${n}`));
      return { read: (query) => api.GET("/api/team/members", { params: { query } }), expected: [who.userId, ...joined.map((m) => m.userId)] };
    },
  },
  {
    name: "invitations, newest first",
    idOf: (item) => String(item.email),
    seed: async (who, api) => {
      const emails: string[] = [];
      for (let n = 0; n < 5; n++) {
        const email = `invited-${n}-${who.userId.slice(0, 8).toLowerCase()}@example.com`;
        expect((await api.POST("/api/team/invitations", { body: { email, role: "viewer" } })).response.status).toBe(201);
        emails.unshift(email);
      }
      return { read: (query) => api.GET("/api/team/invitations", { params: { query } }), expected: emails };
    },
  },
  {
    name: "the user's organisations, by name",
    idOf: (item) => String(item.name),
    seed: async (who, api) => {
      const names = [`${who.name}'s team`];
      for (const name of ["Zed Three", "Abe One", "Mo Two"]) {
        await join((await signUpAndLogIn(file.app, name)) as Person, who);
        names.push(`${name}'s team`);
      }
      return { read: (query) => api.GET("/api/organizations", { params: { query } }), expected: names.sort() };
    },
  },
  {
    name: "an assistant's scenarios, oldest first",
    idOf: byId,
    seed: async (_who, api) => {
      const assistant = (await api.POST("/api/assistants", { body: { name: "Tested" } })).data!;
      const ids: string[] = [];
      for (let n = 0; n < 5; n++) {
        const made = await api.POST("/api/assistants/{id}/scenarios", { params: { path: { id: assistant.id } }, body: { name: `Scenario ${n}`, rubric: "Greets", caller_turns: ["Hello"] } });
        ids.push(made.data!.id);
      }
      return { read: (query) => api.GET("/api/assistants/{id}/scenarios", { params: { path: { id: assistant.id }, query } }), expected: ids };
    },
  },
  {
    name: "an assistant's versions, newest first",
    idOf: (item) => String(item.version),
    seed: async (_who, api) => {
      const assistant = (await api.POST("/api/assistants", { body: { name: "Versioned" } })).data!;
      for (let n = 0; n < 4; n++) {
        await api.PATCH("/api/assistants/{id}", { params: { path: { id: assistant.id } }, body: { name: `Versioned ${n}` } });
        expect((await api.POST("/api/assistants/{id}/publish", { params: { path: { id: assistant.id } }, body: {} })).response.status).toBe(201);
      }
      return { read: (query) => api.GET("/api/assistants/{id}/versions", { params: { path: { id: assistant.id }, query } }), expected: ["5", "4", "3", "2", "1"] };
    },
  },
  {
    name: "the assistants' drafts, in the assistants' order",
    idOf: (item) => String(item.assistant_id),
    seed: async (_who, api) => {
      const ids: string[] = [];
      for (let n = 0; n < 5; n++) ids.unshift((await api.POST("/api/assistants", { body: { name: `Drafted ${n}` } })).data!.id);
      return { read: (query) => api.GET("/api/assistants/drafts", { params: { query } }), expected: ids };
    },
  },
  {
    name: "a knowledge base's documents, newest first",
    idOf: byId,
    seed: async (who, api) => {
      const base = (await api.POST("/api/knowledge-bases", { body: { name: "Paged docs" } })).data!;
      // Rows written straight away: the list is under test, not ingestion.
      const rows = await file.db
        .insert(knowledgeDocuments)
        .values(Array.from({ length: 5 }, (_, n) => ({ organizationId: who.organizationId, knowledgeBaseId: base.id, name: `Doc ${n}`, source: "text" as const })))
        .returning({ id: knowledgeDocuments.id });
      const whole = await api.GET("/api/knowledge-bases/{id}/documents", { params: { path: { id: base.id }, query: { limit: PAGE_LIMIT_MAX } } });
      expect(new Set(whole.data!.data.map((d) => d.id))).toEqual(new Set(rows.map((r) => r.id)));
      return { read: (query) => api.GET("/api/knowledge-bases/{id}/documents", { params: { path: { id: base.id }, query } }), expected: whole.data!.data.map((d) => d.id) };
    },
  },
];

describe("the lists converted last, through the generated client", () => {
  for (const list of THROUGH_CLIENT) {
    it(`${list.name}: pages of 1, 2 and 3 give every item once, in order; a bad cursor is a 400 invalid_cursor`, async () => {
      const who = (await signUpAndLogIn(file.app)) as Person;
      const api = sessionClient(file.app, await servedDocument(file.app), who.cookie);
      const { read, expected } = await list.seed(who, api);
      expect(expected.length).toBeGreaterThanOrEqual(3);
      for (const limit of [1, 2, 3]) {
        const ids: string[] = [];
        let cursor: string | null = null;
        let pages = 0;
        do {
          const answer = await read(cursor ? { limit, cursor } : { limit });
          expect(answer.response.status).toBe(200);
          const page = answer.data as { data: Item[]; next_cursor: string | null };
          expect(page.data.length).toBeLessThanOrEqual(limit);
          ids.push(...page.data.map(list.idOf));
          cursor = page.next_cursor;
          pages++;
        } while (cursor !== null);
        expect(ids, `limit ${limit}`).toEqual(expected);
        expect(pages).toBe(Math.ceil(expected.length / limit));
      }
      for (const cursor of ["not-a-cursor", Buffer.from("[1,2]").toString("base64url"), Buffer.from('["2026-01-01T00:00:00.000000Z"]').toString("base64url")]) {
        const answer = await read({ cursor });
        expect(answer.response.status, cursor).toBe(400);
        expect(answer.error).toEqual({ error: { code: INVALID_CURSOR_CODE, message: INVALID_CURSOR_MESSAGE } });
      }
    });
  }
});
