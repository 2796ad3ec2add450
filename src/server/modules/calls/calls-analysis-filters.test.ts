import { beforeAll, describe, expect, it } from "vitest";
import { as, errorOf, signUpAndLogIn, useTestApp } from "../../../../tests/harness.ts";
import type { AnalysisSettings, CallAnalysis } from "../../../shared/analysis.ts";
import type { CallPage, CallStats } from "../../../shared/call-records.ts";
import { assistants, calls } from "../../db/schema.ts";
import { servedDocument, sessionClient } from "../../../../tests/api/client.ts";

/** The analysis on the Calls page: filters, search, stats and CSV columns over analysed records. */

const file = useTestApp();
type Who = Awaited<ReturnType<typeof signUpAndLogIn>>;

const settings = (fields: string[], scale: AnalysisSettings["success"]["scale"] = "pass_fail", categories?: string[]): AnalysisSettings => ({
  summary: { enabled: true, prompt: null },
  fields: fields.map((name) => ({ name, type: "string", description: "", required: false })),
  success: { rubric: null, scale, ...(categories ? { categories } : {}) },
  model: "gpt-5-mini",
});
const done = (summary: string, data: Record<string, unknown>, value: string | number, reason = "because"): CallAnalysis & { run: string } => ({
  status: "done",
  summary,
  data,
  success: { value, reason },
  model: "gpt-5-mini",
  cost: 0.001,
  completed_at: "2026-03-01T10:00:00.000Z",
  run: "r",
});

let uma: Who;
let support: string;
let triage: string;
beforeAll(async () => {
  uma = await signUpAndLogIn(file.app);
  const [a, b] = await file.db
    .insert(assistants)
    .values([
      { organizationId: uma.organizationId, name: "Support", model: "gpt-realtime", analysis: settings(["order_id", "note"]) },
      { organizationId: uma.organizationId, name: "Triage", model: "gpt-realtime", analysis: settings(["topic"], "categories", ["resolved", "escalated"]) },
    ])
    .returning();
  support = a!.id;
  triage = b!.id;
  const call = (assistantId: string, start: string, endedReason: string, analysis: CallAnalysis | null) => ({
    organizationId: uma.organizationId,
    assistantId,
    startTime: new Date(start),
    endTime: new Date(Date.parse(start) + 60_000),
    endedReason,
    cost: 0.05,
    logs: { isTest: false, transcript: [] },
    analysis,
  });
  await file.db.insert(calls).values([
    call(support, "2026-03-01T09:00:00Z", "User ended call", done("Order 42 is on its way", { order_id: "42", note: "Late delivery, =SUM(A1)" }, "pass")),
    call(support, "2026-03-01T10:00:00Z", "Caller hung up", done("Refund refused", { order_id: "7", note: null }, "fail")),
    call(support, "2026-03-02T09:00:00Z", "Transferred to Billing", done("Wanted billing", { order_id: "420", note: "billing" }, "pass")),
    call(triage, "2026-03-02T10:00:00Z", "User ended call", done("Fixed the router", { topic: "internet" }, "resolved")),
    call(triage, "2026-03-02T11:00:00Z", "Transferred to Tier 2", done("Needs an engineer", { topic: "internet" }, "escalated")),
    call(triage, "2026-03-02T12:00:00Z", "User ended call", { status: "failed", summary: null, data: {}, success: null, model: "gpt-5-mini", cost: null, error: "x", completed_at: "2026-03-02T12:01:00.000Z" }),
  ]);
  // Another user's analysed call matches nothing of Uma's queries.
  const vic = await signUpAndLogIn(file.app);
  await file.db.insert(calls).values({ organizationId: vic.organizationId, startTime: new Date("2026-03-01T09:30:00Z"), endTime: new Date("2026-03-01T09:31:00Z"), logs: {}, analysis: done("Order 42", { order_id: "42" }, "pass") });
});

const list = async (query: string) => {
  const res = await as(file.app, uma).get(`/api/calls?${query}`);
  expect(res.statusCode, res.body).toBe(200);
  return (res.json() as CallPage).data;
};
const summaries = async (query: string) => (await list(query)).map((c) => c.success);

describe("GET /api/calls with the analysis", () => {
  it("shows each call's success and filters by a success value, a category or a score range", async () => {
    expect(await summaries("")).toEqual([null, "escalated", "resolved", "pass", "fail", "pass"]);
    expect(await summaries("success=pass")).toEqual(["pass", "pass"]);
    expect(await summaries("success=escalated")).toEqual(["escalated"]);
    expect(await summaries("success_min=3")).toEqual([]);
    expect((await list("")).map((c) => c.analysis_status)).toEqual(["failed", "done", "done", "done", "done", "done"]);
  });

  it("filters by an extracted field, equal (ignoring case) or containing a text", async () => {
    expect((await list("data.order_id=42")).map((c) => c.start_time)).toEqual(["2026-03-01T09:00:00.000Z"]);
    expect((await list("data.order_id.contains=42")).length).toBe(2);
    expect((await list("data.note.contains=LATE")).length).toBe(1);
    expect((await list("data.note.contains=%25")).length).toBe(0);
    expect((await list("data.topic=Internet&success=resolved")).length).toBe(1);
  });

  it("reads the same filters in the document's deepObject form, as the generated client sends them", async () => {
    const api = sessionClient(file.app, await servedDocument(file.app), uma.cookie);
    const equal = await api.GET("/api/calls", { params: { query: { data: { order_id: "42" } } } });
    expect(equal.response.status).toBe(200);
    expect(equal.data!.data.map((c) => c.start_time)).toEqual(["2026-03-01T09:00:00.000Z"]);
    const containing = await api.GET("/api/calls", { params: { query: { data: { topic: "Internet" }, success: "resolved" } } });
    expect(containing.data!.data.length).toBe(1);
    expect((await api.GET("/api/calls", { params: { query: { data: { "order_id.contains": "42" } } } })).data!.data.length).toBe(2);
    const bad = await api.GET("/api/calls", { params: { query: { data: { "Order-ID": "1" } } } });
    expect(bad.response.status).toBe(400);
  });

  it("finds calls by words of their summary", async () => {
    expect((await list("q=router")).map((c) => c.success)).toEqual(["resolved"]);
  });

  it("refuses a malformed field name or score with a clear message", async () => {
    const bad = await as(file.app, uma).get("/api/calls?data.Order-ID=1");
    expect(bad.statusCode).toBe(400);
    expect(errorOf(bad).message).toContain("data filters are data.<field> or data.<field>.contains, with a snake_case field name");
    const score = await as(file.app, uma).get("/api/calls?success_min=11");
    expect(score.statusCode).toBe(400);
    expect(errorOf(score).message).toContain("success_min must be a score from 1 to 10");
  });
});

describe("scored calls (a 1–10 success scale)", () => {
  it("filter by a score range, match a score as a success value, and average in the stats", async () => {
    const sam = await signUpAndLogIn(file.app);
    const [rater] = await file.db.insert(assistants).values({ organizationId: sam.organizationId, name: "Rater", model: "gpt-realtime", analysis: settings([], "score") }).returning();
    await file.db.insert(calls).values(
      [3, 7, 9].map((score, i) => ({
        organizationId: sam.organizationId,
        assistantId: rater!.id,
        startTime: new Date(Date.parse("2026-05-01T09:00:00Z") + i * 60_000),
        endTime: new Date(Date.parse("2026-05-01T09:00:30Z") + i * 60_000),
        endedReason: "User ended call",
        logs: {},
        analysis: done(`Scored ${score}`, {}, score),
      })),
    );
    const scores = async (query: string) => ((await as(file.app, sam).get(`/api/calls?${query}`)).json() as CallPage).data.map((c) => c.success);
    expect(await scores("success_min=7")).toEqual([9, 7]);
    expect(await scores("success_max=7")).toEqual([7, 3]);
    expect(await scores("success_min=4&success_max=8")).toEqual([7]);
    expect(await scores("success=9")).toEqual([9]);
    const stats = (await as(file.app, sam).get("/api/calls/stats?tz=UTC&success_min=7")).json() as CallStats;
    expect(stats.success).toMatchObject({ analysed: 2, success_rate: null, average_score: 8 });
  });
});

describe("GET /api/calls/stats with the analysis", () => {
  it("gives the success rate, category shares per assistant and per day, the transfer rate and containment", async () => {
    const stats = (await as(file.app, uma).get("/api/calls/stats?tz=UTC")).json() as CallStats;
    expect(stats.transfer_rate).toBeCloseTo(2 / 6);
    expect(stats.containment).toBeCloseTo(4 / 6);
    expect(stats.success).toMatchObject({
      analysed: 5,
      success_rate: 2 / 3,
      average_score: null,
      categories: [
        { category: "escalated", calls: 1, share: 0.5 },
        { category: "resolved", calls: 1, share: 0.5 },
      ],
    });
    const bySupport = stats.success.per_assistant.find((a) => a.assistant_id === support);
    expect(bySupport).toMatchObject({ assistant_name: "Support", analysed: 3, success_rate: 2 / 3, categories: [] });
    expect(stats.success.per_assistant.find((a) => a.assistant_id === triage)).toMatchObject({ analysed: 2, success_rate: null, categories: [{ category: "escalated" }, { category: "resolved" }] });
    expect(stats.success.per_day.map((d) => [d.day, d.analysed, d.success_rate])).toEqual([
      ["2026-03-01", 2, 0.5],
      ["2026-03-02", 3, 1],
    ]);
  });
});

describe("GET /api/calls/export.csv with the analysis", () => {
  it("adds summary, success, reason and one column per extracted field, defused like every cell", async () => {
    const lines = (await as(file.app, uma).get(`/api/calls/export.csv?assistant_id=${support}`)).body.trimEnd().split("\r\n");
    expect(lines[0]!.split(",").slice(-5)).toEqual(["summary", "success", "success_reason", "data.order_id", "data.note"]);
    expect(lines.at(-1)!.endsWith(`,Order 42 is on its way,pass,because,42,"Late delivery, =SUM(A1)"`)).toBe(true);
    const all = (await as(file.app, uma).get("/api/calls/export.csv")).body.split("\r\n")[0]!;
    expect(all.split(",").slice(-3).sort()).toEqual(["data.note", "data.order_id", "data.topic"]);
  });

  it("defuses a summary a spreadsheet would run", async () => {
    const [row] = await file.db
      .insert(calls)
      .values({ organizationId: uma.organizationId, assistantId: support, startTime: new Date("2026-04-01T09:00:00Z"), endTime: new Date("2026-04-01T09:01:00Z"), logs: {}, analysis: done("=HYPERLINK(\"x\")", { order_id: "@evil" }, "pass") })
      .returning();
    const line = (await as(file.app, uma).get(`/api/calls/export.csv?from=2026-04-01T00:00:00Z&assistant_id=${support}`)).body.split("\r\n")[1]!;
    expect(line.startsWith(row!.id)).toBe(true);
    expect(line.endsWith(`,"'=HYPERLINK(""x"")",pass,because,'@evil,`)).toBe(true);
  });
});
