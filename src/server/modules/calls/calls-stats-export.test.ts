import { eq } from "drizzle-orm";
import { beforeAll, describe, expect, it } from "vitest";
import { as, errorOf, signUpAndLogIn, useTestApp, expectBody } from "../../../../tests/harness.ts";
import type { CallRecord, CallStats } from "../../../shared/call-records.ts";
import { assistants, calls } from "../../db/schema.ts";
import { CALLS_EXPORTS_PER_MINUTE, CALLS_STATS_PER_MINUTE } from "./calls-history.routes.ts";

const file = useTestApp();
type Who = Awaited<ReturnType<typeof signUpAndLogIn>>;

const del = (who: Who, id: string) => file.as(who).delete(`/api/calls/${id}`);

const ended = (organizationId: string, start: string, seconds: number, cost: number, endedReason: string, isTest: boolean) => ({
  organizationId,
  startTime: new Date(start),
  endTime: new Date(Date.parse(start) + seconds * 1000),
  cost,
  endedReason,
  logs: { isTest, transcript: [] },
  // A phone call counts at its real cost (the provider's usage, here the same figure), a test call at its tariff.
  ...(isTest ? {} : { providerCost: { total: cost, lines: [] } }),
});

describe("GET /api/calls/stats", () => {
  let gus: Who;
  beforeAll(async () => {
    gus = await signUpAndLogIn(file.app);
    await file.db.insert(calls).values([
      ended(gus.organizationId, "2026-03-01T09:00:00Z", 120, 0.1, "User ended call", true),
      ended(gus.organizationId, "2026-03-01T23:30:00Z", 60, 0.05, "Caller hung up", false),
      ended(gus.organizationId, "2026-03-02T10:00:00Z", 30, 0.03, "Provider error", false),
      { organizationId: gus.organizationId, startTime: new Date("2026-03-03T09:00:00Z"), logs: { isTest: true, transcript: [] } },
      // Outside the period below.
      ended(gus.organizationId, "2026-02-20T09:00:00Z", 600, 1, "User ended call", true),
    ]);
    // Another user's call in the same period changes nothing.
    const hal = await signUpAndLogIn(file.app);
    await file.db.insert(calls).values(ended(hal.organizationId, "2026-03-02T11:00:00Z", 300, 0.5, "Provider error", false));
  });

  const stats = async (query: string): Promise<CallStats> => {
    return expectBody(await as(file.app, gus).get(`/api/calls/stats?${query}`), 200);
  };
  const period = "from=2026-03-01T00:00:00Z&to=2026-03-04T00:00:00Z";

  it("answers a range that runs backwards or holds no time with a 400, and goes on serving", async () => {
    for (const range of ["from=2026-03-04T00:00:00Z&to=2026-03-01T00:00:00Z", "from=2026-03-01T00:00:00Z&to=2026-03-01T00:00:00Z"]) {
      const res = await as(file.app, gus).get(`/api/calls/stats?${range}`);
      expect(res.statusCode).toBe(400);
      expect(errorOf(res)).toMatchObject({ code: "validation_error", message: "from must be before to" });
    }
    // The same process answers the next request (an unhandled rejection would also fail this test).
    expect((await stats(period)).calls).toBe(4);
  });

  it("sums calls, minutes, cost, average duration and the share ended by error over the period", async () => {
    // 4 calls; ended ones last 120 + 60 + 30 s = 3.5 min, average 70 s; 1 of 3 ended by an error.
    expect(await stats(period)).toEqual({
      calls: 4,
      minutes: 3.5,
      cost: 0.18,
      average_duration_ms: 70_000,
      // None of these calls ran on a pipeline: no turns timed.
      median_turn_latency_ms: null,
      error_share: 1 / 3,
      per_day: [
        { day: "2026-03-01", calls: 2 },
        { day: "2026-03-02", calls: 1 },
        { day: "2026-03-03", calls: 1 },
      ],
      // None of the 3 ended calls was handed to a person; none is analysed.
      transfer_rate: 0,
      containment: 1,
      success: { analysed: 0, success_rate: null, average_score: null, categories: [], per_assistant: [], per_day: [] },
    });
  });

  it("narrows by type and counts days in the browser's time zone", async () => {
    expect(await stats(`${period}&type=real`)).toMatchObject({ calls: 2, minutes: 1.5, cost: 0.08, average_duration_ms: 45_000, error_share: 0.5 });
    // Tokyo is 9 hours ahead: the 23:30 UTC call belongs to March 2nd there.
    expect((await stats(`${period}&tz=Asia/Tokyo`)).per_day).toEqual([
      { day: "2026-03-01", calls: 1 },
      { day: "2026-03-02", calls: 2 },
      { day: "2026-03-03", calls: 1 },
    ]);
    expect(await stats("")).toMatchObject({ calls: 5, minutes: 13.5, cost: 1.18 });
  });

  it("is empty without calls and refuses an unknown time zone", async () => {
    const ida = await signUpAndLogIn(file.app);
    expect((await as(file.app, ida).get("/api/calls/stats")).json()).toEqual({
      calls: 0,
      minutes: 0,
      cost: 0,
      average_duration_ms: null,
      median_turn_latency_ms: null,
      error_share: null,
      per_day: [],
      transfer_rate: null,
      containment: null,
      success: { analysed: 0, success_rate: null, average_score: null, categories: [], per_assistant: [], per_day: [] },
    });
    const res = await as(file.app, gus).get("/api/calls/stats?tz=Mars/Olympus");
    expect(res.statusCode).toBe(400);
    expect(errorOf(res).message).toBe("tz must be an IANA time zone such as Europe/Paris");
  });
});

describe("GET /api/calls/export.csv", () => {
  it("streams every filtered call as CSV, newest first, across many batches", async () => {
    const jo = await signUpAndLogIn(file.app, "Jo");
    const base = Date.parse("2025-06-01T00:00:00Z");
    const total = 2345;
    await file.db.insert(calls).values(
      Array.from({ length: total }, (_, i) => ({
        ...ended(jo.organizationId, new Date(base + i * 60_000).toISOString(), 65, 0.06, i % 2 ? "Caller hung up" : "User ended call", i % 2 === 0),
        callerNumber: i % 2 ? "+15550000000" : null,
      })),
    );
    const res = await as(file.app, jo).get("/api/calls/export.csv");
    expect(res.statusCode).toBe(200);
    expect(res.headers["content-type"]).toBe("text/csv; charset=utf-8");
    expect(res.headers["content-disposition"]).toMatch(/^attachment; filename="calls-\d{4}-\d{2}-\d{2}\.csv"$/);
    // Streamed: no length is known when the first byte goes out.
    expect(res.headers["content-length"]).toBeUndefined();
    const lines = res.body.trimEnd().split("\r\n");
    expect(lines[0]).toBe("id,start_time,end_time,type,customer,assistant,called_number,duration_seconds,cost,status,ended_reason,has_recording,direction,assistant_version,campaign_id,summary,success,success_reason");
    expect(lines).toHaveLength(total + 1);
    const starts = lines.slice(1).map((l) => l.split(",")[1]!);
    expect(starts[0]).toBe(new Date(base + (total - 1) * 60_000).toISOString());
    expect(starts.at(-1)).toBe(new Date(base).toISOString());
    expect(new Set(lines.slice(1).map((l) => l.split(",")[0])).size).toBe(total);
    // The newest (i = 2344, even) is a test call: the Customer is the user.
    expect(lines[1]!.split(",").slice(3)).toEqual(["Test", "Jo", "", "", "65.0", "0.06", "completed", "User ended call", "no", "inbound", "", "", "", "", ""]);
    expect(lines[2]!.split(",").slice(3, 5)).toEqual(["Real", "+15550000000"]);

    const real = await as(file.app, jo).get("/api/calls/export.csv?type=real&from=2025-06-01T00:00:00Z&to=2025-06-01T00:10:00Z");
    expect(real.body.trimEnd().split("\r\n")).toHaveLength(1 + 5);
  });

  it("quotes commas and quotes, and defuses text a spreadsheet would run", async () => {
    const kim = await signUpAndLogIn(file.app);
    const [bot] = await file.db.insert(assistants).values({ organizationId: kim.organizationId, name: "=HYPERLINK(\"x\")", model: "gpt-realtime" }).returning();
    await file.db.insert(calls).values({ ...ended(kim.organizationId, "2026-03-01T09:00:00Z", 10, 0.01, 'Tool "x" failed, badly', true), assistantId: bot!.id });
    const line = (await as(file.app, kim).get("/api/calls/export.csv")).body.split("\r\n")[1]!;
    expect(line).toContain(`,"'=HYPERLINK(""x"")",`);
    expect(line).toContain(`,error,"Tool ""x"" failed, badly",no,inbound,,,`);
  });

  it("refuses bad filters before streaming anything", async () => {
    const lee = await signUpAndLogIn(file.app);
    const res = await as(file.app, lee).get("/api/calls/export.csv?status=weird");
    expect(res.statusCode).toBe(400);
    expect(res.headers["content-type"]).toContain("application/json");
    expect((await as(file.app, null).get("/api/calls/export.csv")).statusCode).toBe(401);
  });
});

describe("DELETE /api/calls/:id", () => {
  it("removes the record and its recording; the old recording address no longer serves it", async () => {
    const max = await signUpAndLogIn(file.app);
    const nia = await signUpAndLogIn(file.app);
    const [row] = await file.db.insert(calls).values(ended(max.organizationId, "2026-03-01T09:00:00Z", 10, 0.01, "User ended call", true)).returning();
    const key = `recordings/${row!.id}.wav`;
    await file.app.ctx.storage.put(key, Buffer.from("RIFF....WAVE"), { contentType: "audio/wav" });
    await file.db.update(calls).set({ recording: key }).where(eq(calls.id, row!.id));
    const url = ((await as(file.app, max).get(`/api/calls/${row!.id}`)).json() as CallRecord).recording_url!;
    expect((await as(file.app, null).get(url)).statusCode).toBe(200);

    // Someone else can neither delete it nor learn that it exists.
    const foreign = await del(nia, row!.id);
    expect(foreign.statusCode).toBe(404);
    expect(errorOf(foreign)).toEqual({ code: "not_found", message: "Call not found" });
    expect(await file.app.ctx.storage.exists(key)).toBe(true);

    expect((await del(max, row!.id)).statusCode).toBe(204);
    expect((await as(file.app, max).get(`/api/calls/${row!.id}`)).statusCode).toBe(404);
    expect(await file.app.ctx.storage.exists(key)).toBe(false);
    expect((await as(file.app, null).get(url)).statusCode).toBe(404);
    expect((await del(max, row!.id)).statusCode).toBe(404);
    expect((await del(max, "not-a-uuid")).statusCode).toBe(404);
  });

  it("refuses a call in progress", async () => {
    const ola = await signUpAndLogIn(file.app);
    const [row] = await file.db.insert(calls).values({ organizationId: ola.organizationId, logs: { isTest: true } }).returning();
    const res = await del(ola, row!.id);
    expect(res.statusCode).toBe(409);
    expect(errorOf(res)).toEqual({ code: "call_in_progress", message: "A call in progress cannot be deleted" });
    expect((await as(file.app, ola).get(`/api/calls/${row!.id}`)).statusCode).toBe(200);
  });
});

describe("stats and export budgets", () => {
  it("limits each user's exports and stats per minute (429 with Retry-After); another user keeps their own budget", async () => {
    const ivy = await signUpAndLogIn(file.app);
    const jon = await signUpAndLogIn(file.app);
    const exports = [];
    for (let i = 0; i < CALLS_EXPORTS_PER_MINUTE + 2; i += 1) exports.push(await file.as(ivy).get("/api/calls/export.csv"));
    expect(exports.slice(0, CALLS_EXPORTS_PER_MINUTE).every((r) => r.statusCode === 200)).toBe(true);
    const refused = exports.at(-1)!;
    expect(refused.statusCode).toBe(429);
    expect(errorOf(refused).code).toBe("rate_limited");
    expect(Number(refused.headers["retry-after"])).toBeGreaterThan(0);
    expect((await file.as(jon).get("/api/calls/export.csv")).statusCode).toBe(200);

    const stats = [];
    for (let i = 0; i < CALLS_STATS_PER_MINUTE + 1; i += 1) stats.push((await file.as(ivy).get("/api/calls/stats")).statusCode);
    expect(stats.slice(0, CALLS_STATS_PER_MINUTE).every((s) => s === 200)).toBe(true);
    expect(stats.at(-1)).toBe(429);
    expect((await file.as(jon).get("/api/calls/stats")).statusCode).toBe(200);
  });
});
