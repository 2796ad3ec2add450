import { eq, sql } from "drizzle-orm";
import { beforeAll, describe, expect, it } from "vitest";
import { signUpAndLogIn, useTestApp, expectBody } from "../../../../tests/harness.ts";
import { INVALID_CURSOR_MESSAGE, LIMIT_MESSAGE } from "../../../shared/pages.ts";
import type { CallPage, CallSummary } from "../../../shared/call-records.ts";
import type { TranscriptEntry } from "../../../shared/calls.ts";
import { assistants, calls } from "../../db/schema.ts";

const file = useTestApp();
type Who = Awaited<ReturnType<typeof signUpAndLogIn>>;

const get = (who: Who, url: string) => file.as(who).get(url);
async function page(who: Who, query: string): Promise<CallPage> {
  return expectBody(await get(who, `/api/calls?${query}`), 200);
}
const ids = (p: CallPage) => p.data.map((c) => c.id);

/** Every page until next_cursor is null. */
async function all(who: Who, query: string, limit = 100): Promise<CallSummary[]> {
  const out: CallSummary[] = [];
  let cursor: string | null = null;
  do {
    const p: CallPage = await page(who, `${query}&limit=${limit}${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ""}`);
    out.push(...p.data);
    cursor = p.next_cursor;
  } while (cursor);
  return out;
}

const said = (...lines: string[]): TranscriptEntry[] => lines.map((content, i) => ({ type: i % 2 ? "user" : "assistant", content, timestamp: "2026-03-01T10:00:00.000Z" }));

describe("keyset paging", () => {
  it("walks every call once, newest first, while new calls keep arriving", async () => {
    const ann = await signUpAndLogIn(file.app);
    const base = Date.parse("2026-02-01T00:00:00Z");
    // 130 calls, some sharing a start time to the millisecond: the id breaks the tie.
    await file.db.insert(calls).values(Array.from({ length: 130 }, (_, i) => ({ organizationId: ann.organizationId, startTime: new Date(base + Math.floor(i / 3) * 1000) })));

    const seen: string[] = [];
    let cursor: string | null = null;
    let pages = 0;
    do {
      const p: CallPage = await page(ann, `limit=25${cursor ? `&cursor=${cursor}` : ""}`);
      expect(p.data.length).toBeLessThanOrEqual(25);
      seen.push(...ids(p));
      cursor = p.next_cursor;
      // A call that starts now lands before the first page, never inside the walk.
      await file.db.insert(calls).values({ organizationId: ann.organizationId, startTime: new Date() });
      pages++;
    } while (cursor);
    expect(pages).toBe(6);
    expect(seen).toHaveLength(130);
    expect(new Set(seen).size).toBe(130);

    const rows = await file.db.select({ id: calls.id, startTime: calls.startTime }).from(calls);
    const byId = new Map(rows.map((r) => [r.id, r.startTime.getTime()]));
    const times = seen.map((id) => byId.get(id)!);
    expect(times).toEqual([...times].sort((a, b) => b - a));
    expect(Math.max(...times)).toBe(base + 43_000);
  });

  it("keeps calls started within the same millisecond apart (the cursor holds microseconds)", async () => {
    const ben = await signUpAndLogIn(file.app);
    for (const micro of ["100", "200", "300", "400", "500"]) {
      const [row] = await file.db.insert(calls).values({ organizationId: ben.organizationId }).returning({ id: calls.id });
      // Drizzle writes whole milliseconds; a row written by the database's clock may not be.
      await file.db
        .update(calls)
        .set({ startTime: sql`${`2026-02-03 10:00:00.000${micro}+00`}::timestamptz` })
        .where(eq(calls.id, row!.id));
    }
    const walked = await all(ben, "", 2);
    expect(walked).toHaveLength(5);
    expect(new Set(walked.map((c) => c.id)).size).toBe(5);
  });

  it("defaults to 50, caps at 200, and refuses a bad limit or cursor with a clear 400", async () => {
    const cat = await signUpAndLogIn(file.app);
    await file.db.insert(calls).values(Array.from({ length: 220 }, (_, i) => ({ organizationId: cat.organizationId, startTime: new Date(Date.UTC(2026, 0, 1, 0, i)) })));
    expect((await page(cat, "")).data).toHaveLength(50);
    const first = await page(cat, "limit=200");
    expect(first.data).toHaveLength(200);
    expect(first.next_cursor).not.toBeNull();
    const rest = await page(cat, `limit=200&cursor=${first.next_cursor}`);
    expect(rest.data).toHaveLength(20);
    expect(rest.next_cursor).toBeNull();

    for (const [query, message] of [
      ["limit=201", LIMIT_MESSAGE],
      ["limit=0", LIMIT_MESSAGE],
      ["limit=abc", LIMIT_MESSAGE],
      ["cursor=garbage", INVALID_CURSOR_MESSAGE],
      ["type=phone", "type must be test or real"],
      ["status=done", "status must be in_progress, completed or error"],
      ["from=yesterday", "from must be an ISO date-time"],
      ["assistant_id=42", "assistant_id must be an assistant's id"],
      ["from=2026-03-02T00:00:00Z&to=2026-03-01T00:00:00Z", "from must be before to"],
    ] as const) {
      const res = await get(cat, `/api/calls?${query}`);
      expect(res.statusCode, query).toBe(400);
      expect((res.json() as { error: { message: string } }).error.message, query).toContain(message);
    }
  });
});

describe("filters and search", () => {
  let dee: Who;
  const made: Record<string, string> = {};

  beforeAll(async () => {
    dee = await signUpAndLogIn(file.app, "Dee");
    const [sales, support] = await file.db
      .insert(assistants)
      .values([
        { organizationId: dee.organizationId, name: "Sales", model: "gpt-realtime-2.1" },
        { organizationId: dee.organizationId, name: "Support", model: "gpt-realtime-2.1" },
      ])
      .returning();
    made["sales"] = sales!.id;
    made["support"] = support!.id;
    const rows = await file.db
      .insert(calls)
      .values([
        // name, assistant, test?, start, end, reason, caller, transcript
        { organizationId: dee.organizationId, assistantId: sales!.id, startTime: new Date("2026-03-01T09:00:00Z"), endTime: new Date("2026-03-01T09:02:00Z"), endedReason: "User ended call", logs: { isTest: true, transcript: said("Welcome to Acme", "I want a refund for my blender") } },
        { organizationId: dee.organizationId, assistantId: sales!.id, startTime: new Date("2026-03-02T09:00:00Z"), endTime: new Date("2026-03-02T09:01:00Z"), endedReason: "Caller hung up", callerNumber: "+15551234567", logs: { isTest: false, transcript: said("Hello", "Where is my parcel") } },
        { organizationId: dee.organizationId, assistantId: support!.id, startTime: new Date("2026-03-03T09:00:00Z"), endTime: new Date("2026-03-03T09:00:10Z"), endedReason: "Connection failed: timeout", callerNumber: "+442071234567", logs: { isTest: false, transcript: said("Refunds take five days") } },
        { organizationId: dee.organizationId, assistantId: support!.id, startTime: new Date("2026-03-04T09:00:00Z"), logs: { isTest: true, transcript: [] } },
        { organizationId: dee.organizationId, assistantId: support!.id, startTime: new Date("2026-03-05T09:00:00Z"), endTime: new Date("2026-03-05T09:03:00Z"), endedReason: "Provider error", logs: { isTest: true, transcript: said("Sorry, something broke") } },
      ])
      .returning({ id: calls.id });
    ["refund", "parcel", "london", "live", "broken"].forEach((name, i) => (made[name] = rows[i]!.id));
    // Another user's call that matches every filter and search below must never show.
    const eve = await signUpAndLogIn(file.app);
    await file.db.insert(calls).values({ organizationId: eve.organizationId, startTime: new Date("2026-03-03T10:00:00Z"), endTime: new Date("2026-03-03T10:01:00Z"), endedReason: "error", callerNumber: "+15551234567", logs: { isTest: false, transcript: said("refund parcel") } });
  });

  const expectIds = async (query: string, names: string[]) => expect(ids(await page(dee, query)), query).toEqual(names.map((n) => made[n]));

  it("filters by assistant, type, status and date range", async () => {
    await expectIds(`assistant_id=${made["sales"]}`, ["parcel", "refund"]);
    await expectIds("type=test", ["broken", "live", "refund"]);
    await expectIds("type=real", ["london", "parcel"]);
    await expectIds("status=in_progress", ["live"]);
    await expectIds("status=error", ["broken", "london"]);
    await expectIds("status=completed", ["parcel", "refund"]);
    await expectIds("from=2026-03-02T00:00:00Z&to=2026-03-04T00:00:00Z", ["london", "parcel"]);
    await expectIds("from=2026-03-04T09:00:00Z", ["broken", "live"]);
    await expectIds("to=2026-03-01T09:00:00Z", []);
  });

  it("combines filters", async () => {
    await expectIds(`assistant_id=${made["support"]}&type=test`, ["broken", "live"]);
    await expectIds(`assistant_id=${made["support"]}&type=real&status=error`, ["london"]);
    await expectIds("type=test&status=error&from=2026-03-05T00:00:00Z", ["broken"]);
    await expectIds(`assistant_id=${made["sales"]}&status=error`, []);
    // Blank values are "no filter", as an empty select in the page's URL sends them.
    await expectIds("assistant_id=&type=&status=&q=", ["broken", "live", "london", "parcel", "refund"]);
  });

  it("searches the transcript by word prefix and the caller's number, with the filters", async () => {
    await expectIds("q=refund", ["london", "refund"]);
    await expectIds("q=REFUND blender", ["refund"]);
    await expectIds("q=parc", ["parcel"]);
    await expectIds("q=%2B1 555 123", ["parcel"]);
    await expectIds("q=4567", ["london", "parcel"]);
    await expectIds("q=2071234567", ["london"]);
    await expectIds("q=refund&type=test", ["refund"]);
    await expectIds("q=nothing-like-this", []);
    // Punctuation only is no search at all; tsquery syntax characters cannot break the query.
    await expectIds("q=%26%7C!():*", ["broken", "live", "london", "parcel", "refund"]);
    const long = await get(dee, `/api/calls?q=${"a".repeat(101)}`);
    expect(long.statusCode).toBe(400);
  });

  it("gives another user's assistant filter nothing", async () => {
    const fay = await signUpAndLogIn(file.app);
    expect(ids(await page(fay, `assistant_id=${made["sales"]}`))).toEqual([]);
  });
});
