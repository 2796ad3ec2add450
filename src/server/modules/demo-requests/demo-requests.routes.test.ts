import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { VALID_DEMO_REQUEST } from "../../../../tests/demo-request.ts";
import { as, buildTestApp, errorOf, signUpAndLogIn, type TestApp } from "../../../../tests/harness.ts";
import { INVALID_CURSOR_CODE, INVALID_CURSOR_MESSAGE } from "../../../shared/pages.ts";
import { demoRequests } from "../../db/schema.ts";
import type { Db } from "../../db/client.ts";
import { DEMO_REQUESTS_PER_MINUTE } from "./demo-requests.routes.ts";

let app: TestApp;
let db: Db;
let address = 0;
// The endpoint is rate-limited per client address: each test speaks from its own.
const nextAddress = () => `10.0.${Math.floor(++address / 250)}.${(address % 250) + 1}`;

const valid = VALID_DEMO_REQUEST;

function post(payload: unknown, remoteAddress = nextAddress()) {
  return app.inject({ method: "POST", url: "/api/demo-requests", payload: payload as object, remoteAddress });
}

beforeAll(async () => {
  ({ app, db } = await buildTestApp());
});
afterAll(() => app.close());
beforeEach(async () => {
  await db.delete(demoRequests);
});

describe("POST /api/demo-requests", () => {
  it("stores a valid request without a session and answers 201", async () => {
    const res = await post(valid);
    expect(res.statusCode).toBe(201);
    const body = res.json() as { id: string; created_at: string };
    const rows = await db.select().from(demoRequests);
    expect(rows).toHaveLength(1);
    expect(rows[0]).toMatchObject({
      id: body.id,
      firstName: "Priya",
      lastName: "Raman",
      company: "Northwind Energy",
      workEmail: "priya.raman@northwind.example",
      role: "Head of Customer Operations",
      phoneNumber: "+1 415 555 0134",
      location: "United States",
      yearlyCallVolume: "100000-500000",
      comments: "We handle outage calls in three languages.",
    });
    expect(new Date(body.created_at).getTime()).toBe(rows[0]!.createdAt.getTime());
  });

  it.each([
    ["empty", ""],
    ["blank", "   "],
    ["null", null],
    ["absent", undefined],
  ])("stores comments as null when they are %s", async (_label, comments) => {
    const res = await post({ ...valid, comments });
    expect(res.statusCode).toBe(201);
    const [row] = await db.select().from(demoRequests);
    expect(row!.comments).toBeNull();
  });

  it("trims the text it stores", async () => {
    const res = await post({ ...valid, first_name: "  Priya ", work_email: " priya.raman@northwind.example ", comments: "  Hi  " });
    expect(res.statusCode).toBe(201);
    const [row] = await db.select().from(demoRequests);
    expect(row).toMatchObject({ firstName: "Priya", workEmail: "priya.raman@northwind.example", comments: "Hi" });
  });

  it.each([
    ["first_name", "", "First name is required"],
    ["first_name", "   ", "First name is required"],
    ["last_name", "", "Last name is required"],
    ["company", "", "Company name is required"],
    ["work_email", "", "Please enter a valid work email"],
    ["work_email", "priya@", "Please enter a valid work email"],
    ["role", "", "Role is required"],
    ["phone_number", "", "Phone number is required"],
    ["location", "", "Location is required"],
    ["location", "Atlantis", "Location is required"],
    ["yearly_call_volume", "", "Call volume is required"],
    ["yearly_call_volume", "a lot", "Call volume is required"],
  ])("refuses %s = %j with the spec's message and stores nothing", async (field, value, message) => {
    const res = await post({ ...valid, [field]: value });
    expect(res.statusCode).toBe(400);
    expect(res.json()).toMatchObject({ error: { code: "validation_error", message } });
    expect(await db.select().from(demoRequests)).toHaveLength(0);
  });

  it.each([
    ["first_name", "First name is required"],
    ["company", "Company name is required"],
    ["location", "Location is required"],
    ["yearly_call_volume", "Call volume is required"],
  ])("refuses a body without %s", async (field, message) => {
    const body: Record<string, unknown> = { ...valid };
    delete body[field];
    const res = await post(body);
    expect(res.statusCode).toBe(400);
    expect(res.json()).toMatchObject({ error: { message } });
    expect(await db.select().from(demoRequests)).toHaveLength(0);
  });

  it("refuses oversized comments", async () => {
    const res = await post({ ...valid, comments: "x".repeat(5001) });
    expect(res.statusCode).toBe(400);
    expect(res.json()).toMatchObject({ error: { message: "Comments must be at most 5000 characters" } });
    expect(await db.select().from(demoRequests)).toHaveLength(0);
  });

  it("answers 429 to a flood from one address, without storing it, and still serves other addresses", async () => {
    const bot = nextAddress();
    for (let i = 0; i < DEMO_REQUESTS_PER_MINUTE; i++) {
      expect((await post(valid, bot)).statusCode).toBe(201);
    }
    const flood = await Promise.all(Array.from({ length: 20 }, () => post(valid, bot)));
    for (const res of flood) {
      expect(res.statusCode).toBe(429);
      expect(res.headers["retry-after"]).toBeDefined();
      expect(res.json()).toEqual({ error: { code: "rate_limited", message: expect.stringMatching(/^Too many demo requests .*Please try again in /) } });
    }
    // Invalid bodies count too: a bot cannot keep probing by sending garbage.
    expect((await post({}, bot)).statusCode).toBe(429);
    expect(await db.select().from(demoRequests)).toHaveLength(DEMO_REQUESTS_PER_MINUTE);

    expect((await post(valid)).statusCode).toBe(201);
    expect(await db.select().from(demoRequests)).toHaveLength(DEMO_REQUESTS_PER_MINUTE + 1);
  });

  it("does not let a client dodge the limit by inventing X-Forwarded-For (proxy trust is off by default)", async () => {
    const bot = nextAddress();
    const spoofed = (i: number) =>
      app.inject({ method: "POST", url: "/api/demo-requests", payload: valid, remoteAddress: bot, headers: { "x-forwarded-for": `203.0.113.${i}` } });
    for (let i = 0; i < DEMO_REQUESTS_PER_MINUTE; i++) expect((await spoofed(i)).statusCode).toBe(201);
    expect((await spoofed(99)).statusCode).toBe(429);
  });
});

describe("the demo request form's phone number", () => {
  it("refuses what is not a phone number, with the form's message", async () => {
    for (const phone_number of ["call me", "12", "+1 (415) 555-0134-999999999", "555 0134 ext. 2"]) {
      const res = await post({ ...valid, phone_number });
      expect(res.statusCode, phone_number).toBe(400);
      expect((res.json() as { error: { message: string } }).error.message).toContain("Please enter a valid phone number");
    }
    expect((await post({ ...valid, phone_number: "(415) 555-0134" })).statusCode).toBe(201);
  });
});

describe("GET /api/demo-requests", () => {
  // The server's first account: the instance's owner.
  let owner: Awaited<ReturnType<typeof signUpAndLogIn>>;
  beforeAll(async () => {
    owner = await signUpAndLogIn(app, "Olive Owner");
  });

  it("lists the requests, newest first, to the instance's owner (its first account) only", async () => {
    const later = await signUpAndLogIn(app, "Larry Later");
    expect((await post(valid)).statusCode).toBe(201);
    expect((await post({ ...valid, first_name: "Quinn", comments: "" })).statusCode).toBe(201);
    const res = await as(app, owner).get("/api/demo-requests");
    expect(res.statusCode, res.body).toBe(200);
    const list = res.json().data as Array<Record<string, unknown>>;
    expect(res.json().next_cursor).toBeNull();
    expect(list.map((r) => r["first_name"])).toEqual(["Quinn", "Priya"]);
    expect(list[1]).toMatchObject({ ...valid, id: expect.any(String), created_at: expect.any(String) });
    expect(list[0]!["comments"]).toBeNull();
    expect((await as(app, later).get("/api/demo-requests")).statusCode).toBe(404);
    expect((await as(app, null).get("/api/demo-requests")).statusCode).toBe(401);
  });

  it("walks in pages: every request once, newest first; a cursor it did not give is a 400", async () => {
    const names = ["Ann", "Ben", "Cai", "Dee", "Eli"];
    for (const first_name of names) expect((await post({ ...valid, first_name })).statusCode).toBe(201);
    const seen: unknown[] = [];
    let cursor: string | null = null;
    do {
      const res = await as(app, owner).get(`/api/demo-requests?limit=2${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ""}`);
      expect(res.statusCode, res.body).toBe(200);
      const page = res.json() as { data: { first_name: string }[]; next_cursor: string | null };
      expect(page.data.length).toBeLessThanOrEqual(2);
      seen.push(...page.data.map((r) => r.first_name));
      cursor = page.next_cursor;
    } while (cursor);
    expect(seen).toEqual([...names].reverse());
    const bad = await as(app, owner).get("/api/demo-requests?cursor=not-a-cursor");
    expect(bad.statusCode).toBe(400);
    expect(errorOf(bad)).toEqual({ code: INVALID_CURSOR_CODE, message: INVALID_CURSOR_MESSAGE });
  });
});
