import { describe, expect, it } from "vitest";
import { errorOf, signUpAndLogIn, useTestApp } from "../harness.ts";
import { INVALID_CURSOR_CODE, INVALID_CURSOR_MESSAGE, PAGE_LIMIT_MAX } from "../../src/shared/pages.ts";

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
];

async function created(res: Promise<{ statusCode: number; body: string }>): Promise<void> {
  const answer = await res;
  expect(answer.statusCode, answer.body).toBe(201);
}

/** Walks a list page by page, as a client would, collecting every item's id. */
async function walk(who: Who, path: string, limit: number): Promise<{ ids: string[]; pages: number }> {
  const ids: string[] = [];
  let cursor: string | null = null;
  let pages = 0;
  do {
    const res = await file.as(who).get(`${path}?limit=${limit}${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ""}`);
    expect(res.statusCode, res.body).toBe(200);
    const page = res.json() as { data: { id: string }[]; next_cursor: string | null };
    expect(page.data.length).toBeLessThanOrEqual(limit);
    ids.push(...page.data.map((item) => item.id));
    cursor = page.next_cursor;
    pages++;
  } while (cursor !== null);
  return { ids, pages };
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
