import { readFileSync } from "node:fs";
import { join } from "node:path";
import { and, eq, inArray, sql } from "drizzle-orm";
import { beforeAll, describe, expect, it } from "vitest";
import { as, signUpAndLogIn, useTestApp } from "../../../../tests/harness.ts";
import type { CallAnalysis } from "../../../shared/analysis.ts";
import type { CallFilters, CallStats } from "../../../shared/call-records.ts";
import { assistants, callLatencyRollups, callRollups, calls } from "../../db/schema.ts";
import { ROOT_DIR } from "../../paths.ts";
import { callStats, rawCallStats } from "./calls-stats.ts";
import { rebuildCallRollups, rolledUpStats } from "./calls-rollups.repo.ts";
import { createDbCallStore } from "./calls.repo.ts";
import { seededRandom } from "../../../../tests/seeded-random.ts";

/**
 * The roll-ups answer the Calls page's stats with the very numbers the calls themselves give: on
 * random windows, zones and filters, after inserts, corrections, deletes and a rebuild.
 */

const file = useTestApp();
type Who = Awaited<ReturnType<typeof signUpAndLogIn>>;

// A seeded generator: a failure names its seed and repeats.
const SEED = Number(process.env.ROLLUP_SEED ?? Date.now() % 100_000);
const random = seededRandom(SEED);
const pick = <T,>(list: readonly T[]): T => list[Math.floor(random() * list.length)]!;

// Two months across the American and European spring changes and the southern autumn one.
const START = Date.parse("2026-02-15T00:00:00Z");
const SPAN_MS = 60 * 86_400_000;
const WHOLE_HOUR_ZONES = ["UTC", "America/New_York", "Europe/Berlin", "Asia/Tokyo", "Australia/Sydney", "Pacific/Auckland", "America/Los_Angeles", "Pacific/Kiritimati"];
const PART_HOUR_ZONES = ["Asia/Kolkata", "Asia/Kathmandu", "Australia/Lord_Howe"];

const analysis = (value: string | number | null, status: "done" | "pending" | "failed" = "done"): CallAnalysis =>
  ({
    status,
    summary: "s",
    data: { topic: pick(["billing", "Internet", "router"]) },
    success: value === null ? null : { value, reason: "r" },
    model: "gpt-5-mini",
    cost: 0.001,
    completed_at: "2026-03-01T10:00:00.000Z",
  }) as CallAnalysis;

const randomAnalysis = (): CallAnalysis | null =>
  pick([null, analysis("pass"), analysis("fail"), analysis("Pass"), analysis("resolved"), analysis("escalated"), analysis(pick([1, 2.5, 3, 4, 5])), analysis(null, "failed"), analysis("pass", "pending")]);

// Pipeline calls' turns: whole milliseconds as the engine writes them, a few fractional or missing
// values as an import might hold, and calls without turns.
const randomTurns = () =>
  random() < 0.3
    ? {}
    : { turns: Array.from({ length: Math.floor(random() * 5) }, () => ({ speechEndedAtMs: 1000, transcriptMs: 80, ...(random() < 0.1 ? {} : { firstAudioSentMs: pick([Math.floor(300 + random() * 900), 812, 812.5, 0]) }) })) };

let eve: Who;
let assistantIds: string[];

function randomCall(organizationId: string) {
  const start = START + Math.floor(random() * SPAN_MS * 1000) / 1000;
  const ended = random() < 0.9;
  const isTest = pick([true, false, false, null]);
  return {
    organizationId,
    assistantId: pick([...assistantIds, null]),
    assistantName: pick(["Support", "Old name", null]),
    assistantVersion: pick([1, 2, null]),
    startTime: new Date(start),
    endTime: ended ? new Date(start + Math.floor(random() * 600_000)) : null,
    endedReason: ended ? pick(["User ended call", "Provider error", "Transferred to Billing", "Call failed", "Caller hung up"]) : null,
    cost: pick([null, 0.1, 0.07, 1 / 3]),
    providerCost: pick([null, { total: 0.013, lines: [] }, { total: 0.2, lines: [] }]),
    telephonyCost: pick([null, 0.0085]),
    direction: pick(["inbound", "outbound"] as const),
    logs: isTest === null ? {} : { isTest, transcript: [], ...randomTurns() },
    analysis: randomAnalysis(),
  };
}

/** The latency counts as text, row by row (of one span, or all). */
const counts = (span?: number) =>
  file.db
    .select({ span: callLatencyRollups.span, bucket: callLatencyRollups.bucket, groupKey: callLatencyRollups.groupKey, latencies: sql<string>`${callLatencyRollups.latencies}::text`, counts: sql<string>`${callLatencyRollups.counts}::text` })
    .from(callLatencyRollups)
    .where(and(sql`cardinality(${callLatencyRollups.counts}) > 0`, span === undefined ? undefined : eq(callLatencyRollups.span, span)))
    .orderBy(callLatencyRollups.organizationId, callLatencyRollups.span, callLatencyRollups.bucket, callLatencyRollups.groupKey);

function randomFilters(): CallFilters {
  const f: CallFilters = {};
  const bound = () => new Date(START - 86_400_000 + Math.floor(random() * (SPAN_MS + 2 * 86_400_000))).toISOString();
  const window = random();
  if (window < 0.6) {
    const [x, y] = [bound(), bound()].sort();
    if (x !== y) Object.assign(f, { from: x, to: y });
  } else if (window < 0.75) f.from = bound();
  else if (window < 0.9) f.to = bound();
  if (random() < 0.3) f.assistant_id = pick(assistantIds);
  if (random() < 0.15) f.assistant_version = pick(["1", "2", "draft"]);
  if (random() < 0.2) f.type = pick(["test", "real"] as const);
  if (random() < 0.2) f.direction = pick(["inbound", "outbound"] as const);
  if (random() < 0.15) f.success = pick(["pass", "PASS", "escalated", "3", "nothing"]);
  if (random() < 0.1) f.success_min = pick([1, 2.5, 3]);
  if (random() < 0.1) f.success_max = pick([2.5, 4]);
  return f;
}

async function compareOn(count: number, zones: readonly string[], expectRolledUp: boolean) {
  for (let i = 0; i < count; i++) {
    const filters = randomFilters();
    const tz = pick(zones);
    const context = `seed ${SEED}, tz ${tz}, filters ${JSON.stringify(filters)}`;
    const raw = await rawCallStats(file.db, eve.organizationId, filters, tz);
    expect(await callStats(file.db, eve.organizationId, filters, tz, true), context).toEqual(raw);
    if (!expectRolledUp) continue;
    const tiny = filters.from && filters.to && Math.ceil(Date.parse(filters.from) / 3_600_000) > Math.floor(Date.parse(filters.to) / 3_600_000);
    // A whole-hour zone is answered by the roll-ups, not by the fallback.
    if (!tiny) expect(await rolledUpStats(file.db, eve.organizationId, filters, tz), context).not.toBeNull();
  }
}

describe("the stats' roll-ups", () => {
  beforeAll(async () => {
    eve = await signUpAndLogIn(file.app);
    const rows = await file.db
      .insert(assistants)
      .values(["Support", "Triage", "Sales"].map((name) => ({ organizationId: eve.organizationId, name, model: "gpt-realtime" })))
      .returning();
    assistantIds = rows.map((r) => r.id);
    // Several statements, as the engine writes (one call at a time) and as an import does (many at once).
    await file.db.insert(calls).values(Array.from({ length: 500 }, () => randomCall(eve.organizationId)));
    for (let i = 0; i < 20; i++) await file.db.insert(calls).values(randomCall(eve.organizationId));
    // Another organisation's calls count only for it.
    const other = await signUpAndLogIn(file.app);
    await file.db.insert(calls).values(Array.from({ length: 50 }, () => ({ ...randomCall(other.organizationId), assistantId: null })));
  });

  it("give the raw aggregate's numbers on random windows, whole-hour zones and filters", async () => {
    await compareOn(60, WHOLE_HOUR_ZONES, true);
  });

  it("stay exact when records change later: ended, re-costed, re-analysed, moved, deleted, their assistant renamed or deleted", async () => {
    const ids = (await file.db.select({ id: calls.id }).from(calls).where(eq(calls.organizationId, eve.organizationId))).map((r) => r.id);
    const some = (n: number) => Array.from({ length: n }, () => pick(ids));
    // A live call ends; a phone call's price arrives; an analysis finishes; a record is corrected.
    await file.db.update(calls).set({ endTime: sql`${calls.startTime} + interval '95 seconds'`, endedReason: "Transferred to Tier 2" }).where(inArray(calls.id, some(15)));
    for (const id of some(15)) await file.db.update(calls).set({ telephonyCost: 0.0123 }).where(eq(calls.id, id));
    await file.db.update(calls).set({ analysis: analysis("escalated") }).where(inArray(calls.id, some(20)));
    await file.db.update(calls).set({ startTime: sql`${calls.startTime} - interval '7 hours 13 minutes'` }).where(inArray(calls.id, some(20)));
    // Moved to the first hour of its UTC day, its duration kept: only the day row's hours change.
    const toMidnight = sql`interval '1 hour' * extract(hour FROM ${calls.startTime} AT TIME ZONE 'UTC')`;
    await file.db.update(calls).set({ startTime: sql`${calls.startTime} - ${toMidnight}`, endTime: sql`${calls.endTime} - ${toMidnight}` }).where(inArray(calls.id, some(20)));
    await file.db.update(calls).set({ logs: { isTest: true, transcript: [] } }).where(inArray(calls.id, some(10)));
    // Turns written later (an import's correction): the median moves with them.
    for (const id of some(10)) await file.db.update(calls).set({ logs: { isTest: false, transcript: [], ...randomTurns() } }).where(eq(calls.id, id));
    // An update that moves no figure.
    await file.db.update(calls).set({ variables: { a: "b" } }).where(inArray(calls.id, some(10)));
    // Retention and an owner's delete; an assistant renamed, another deleted (its calls keep its name).
    await file.db.delete(calls).where(and(eq(calls.organizationId, eve.organizationId), sql`${calls.startTime} < ${new Date(START + 5 * 86_400_000).toISOString()}::timestamptz`));
    await file.db.delete(calls).where(inArray(calls.id, some(5)));
    await file.db.update(assistants).set({ name: "Support desk" }).where(eq(assistants.id, assistantIds[0]!));
    await file.db.delete(assistants).where(eq(assistants.id, assistantIds[2]!));
    await compareOn(40, WHOLE_HOUR_ZONES, true);
  });

  it("fall back to the calls, with the same numbers, for zones off the whole hour and for extracted-data filters", async () => {
    await compareOn(15, PART_HOUR_ZONES, false);
    const filters: CallFilters = { from: "2026-03-01T00:00:00.000Z", data: { topic: "internet" } };
    expect(await callStats(file.db, eve.organizationId, filters, "UTC", true)).toEqual(await rawCallStats(file.db, eve.organizationId, filters, "UTC"));
    expect(await rolledUpStats(file.db, eve.organizationId, { from: "2026-03-01T00:00:00.000Z" }, "Asia/Kolkata")).toBeNull();
  });

  it("answer GET /api/calls/stats with the raw numbers, and rebuild to the same sums", async () => {
    const query = "from=2026-02-20T10:17:00.000Z&to=2026-03-22T08:45:30.000Z&tz=America/New_York";
    const res = await as(file.app, eve).get(`/api/calls/stats?${query}`);
    expect(res.statusCode, res.body).toBe(200);
    const raw = await rawCallStats(file.db, eve.organizationId, { from: "2026-02-20T10:17:00.000Z", to: "2026-03-22T08:45:30.000Z" }, "America/New_York");
    expect(res.json<CallStats>()).toEqual(raw);
    expect(raw.calls).toBeGreaterThan(0);
    expect(raw.median_turn_latency_ms).not.toBeNull();

    const sums = () =>
      file.db
        .select({ span: callRollups.span, bucket: callRollups.bucket, groupKey: callRollups.groupKey, calls: callRollups.calls, endedMs: sql<string>`trim_scale(${callRollups.endedMs})::text`, cost: sql<string>`trim_scale(${callRollups.cost})::text`, callsThroughHour: callRollups.callsThroughHour })
        .from(callRollups)
        .where(sql`${callRollups.calls} <> 0 OR ${callRollups.ended} <> 0 OR ${callRollups.endedMs} <> 0 OR ${callRollups.cost} <> 0`)
        .orderBy(callRollups.organizationId, callRollups.span, callRollups.bucket, callRollups.groupKey);
    const before = await sums();
    const countsBefore = await counts();
    await rebuildCallRollups(file.db);
    expect(await sums()).toEqual(before);
    expect(await counts()).toEqual(countsBefore);
    await compareOn(10, WHOLE_HOUR_ZONES, true);
  });

  it("count the day rows' calls through each hour before them (the migration) as the triggers do", async () => {
    const days = () =>
      file.db
        .select({ bucket: callRollups.bucket, groupKey: callRollups.groupKey, callsThroughHour: callRollups.callsThroughHour })
        .from(callRollups)
        .where(eq(callRollups.span, 24))
        .orderBy(callRollups.organizationId, callRollups.bucket, callRollups.groupKey);
    const before = await days();
    expect(before.filter((d) => d.callsThroughHour?.length === 24 && d.callsThroughHour[0] !== d.callsThroughHour[23]).length).toBeGreaterThan(20);
    // The migration's last statement counts the day rows' hours from the hour rows.
    const migration = readFileSync(join(ROOT_DIR, "drizzle/0038_day_rows_calls_through_hour.sql"), "utf8").split("--> statement-breakpoint");
    await file.db.update(callRollups).set({ callsThroughHour: null }).where(eq(callRollups.span, 24));
    await file.db.execute(sql.raw(migration.at(-1)!));
    expect(await days()).toEqual(before);
    await compareOn(10, WHOLE_HOUR_ZONES, true);
  });

  it("sum the weeks of the turns counted before them (the migration) to the triggers' very counts", async () => {
    const weeks = await counts(168);
    expect(weeks.length).toBeGreaterThan(0);
    // The migration's last statement sums the week rows from the day rows the earlier triggers wrote.
    const migration = readFileSync(join(ROOT_DIR, "drizzle/0036_latency_week_rollups.sql"), "utf8").split("--> statement-breakpoint");
    await file.db.delete(callLatencyRollups).where(eq(callLatencyRollups.span, 168));
    await file.db.execute(sql.raw(migration.at(-1)!));
    expect(await counts(168)).toEqual(weeks);
    await compareOn(10, WHOLE_HOUR_ZONES, true);
  });

  it("come back whole from the rebuild after they are emptied", async () => {
    const filters: CallFilters = { from: "2026-02-20T10:17:00.000Z", to: "2026-03-22T08:45:30.000Z" };
    const raw = await rawCallStats(file.db, eve.organizationId, filters, "Europe/Berlin");
    await file.db.execute(sql`TRUNCATE call_rollups, call_latency_rollups`);
    expect(await callStats(file.db, eve.organizationId, filters, "Europe/Berlin", true)).not.toEqual(raw);
    await rebuildCallRollups(file.db);
    expect(await callStats(file.db, eve.organizationId, filters, "Europe/Berlin", true)).toEqual(raw);
    await compareOn(20, WHOLE_HOUR_ZONES, true);
  });

  it("count a call once however often it ends, and when two instances end it at once", async () => {
    const zed = await signUpAndLogIn(file.app, "Zed");
    const [desk] = await file.db.insert(assistants).values({ organizationId: zed.organizationId, name: "Desk", model: "gpt-realtime" }).returning();
    // Two instances' call stores on the one database, as two servers behind one PostgreSQL.
    const [a, b] = [createDbCallStore(file.db, "instance-a"), createDbCallStore(file.db, "instance-b")];
    // 23:59:30 UTC: the call ends on the next UTC day, and in Berlin it is already that day.
    const start = Date.parse("2026-03-10T23:59:30.000Z");
    const id = await a.insert({ assistantId: desk!.id, organizationId: zed.organizationId, startTime: new Date(start).toISOString(), logs: { isTest: false, transcript: [], toolsUsed: [] } });
    const turns = [700, 900, 1000].map((ms) => ({ speechEndedAtMs: 1000, transcriptMs: 80, firstAudioSentMs: ms }));
    const end = { endTime: new Date(start + 95_000).toISOString(), endedReason: "Transferred to Billing", cost: 0.25, logs: { isTest: false, transcript: [], toolsUsed: [], turns }, recording: null };
    await Promise.all([a.finish(id, end), b.finish(id, end)]);
    await b.finish(id, end);

    const filters = { from: "2026-03-09T00:00:00.000Z", to: "2026-03-13T00:00:00.000Z" };
    const res = await as(file.app, zed).get(`/api/calls/stats?${new URLSearchParams({ ...filters, tz: "Europe/Berlin" })}`);
    expect(res.statusCode, res.body).toBe(200);
    expect(res.json<CallStats>()).toMatchObject({ calls: 1, average_duration_ms: 95_000, median_turn_latency_ms: 900, transfer_rate: 1, per_day: [{ day: "2026-03-11", calls: 1 }] });
    expect(res.json<CallStats>()).toEqual(await rawCallStats(file.db, zed.organizationId, filters, "Europe/Berlin"));
    expect(await rolledUpStats(file.db, zed.organizationId, filters, "Europe/Berlin")).not.toBeNull();
  });
});
