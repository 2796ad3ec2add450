import { eq } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startFakeRealtime, type FakeRealtime } from "../../../../tests/fakes/fake-realtime.ts";
import { startFakeResponses, type FakeResponses } from "../../../../tests/fakes/fake-responses.ts";
import { createAssistant, signUpCaller, startLiveApp, type Caller } from "../../../../tests/fakes/realtime-app.ts";
import { as, freshDatabase, type TestApp } from "../../../../tests/harness.ts";
import { insertOrphanedCall } from "../../../../tests/orphaned-call.ts";
import type { CallRecord } from "../../../shared/call-records.ts";
import type { CallLogs } from "../../../shared/calls.ts";
import type { Database } from "../../db/client.ts";
import { calls } from "../../db/schema.ts";
import { closeOrphanedCalls } from "../../instances/instance-lease.ts";
import { createDbCallStore } from "../calls/calls.repo.ts";

/**
 * The crash window: an instance closes a call's record (its engine's final write, or a lease
 * sweep closing a dead instance's call) and dies before it queues the call's analysis. Done
 * here with the very functions that close a record, and no app running; the next start finds
 * the pending analysis with no job and runs it, once.
 */

let database: Database;
let realtime: FakeRealtime;
let responses: FakeResponses;

const ANSWER = {
  summary: "The caller asked where order 42 is.",
  data: { order_id: "42" },
  success: { reason: "The status was given.", value: "pass" },
};
const at = "2026-11-26T10:00:00.000Z";
const spoken: CallLogs = {
  isTest: true,
  transcript: [
    { type: "assistant", content: "Hello, how can I help?", timestamp: at },
    { type: "user", content: "Where is my order 42?", timestamp: at },
  ],
  toolsUsed: [],
};

beforeAll(async () => {
  database = await freshDatabase();
  realtime = await startFakeRealtime({ apiKey: "sk-analysis-recovery" });
  responses = await startFakeResponses({ apiKey: realtime.apiKey, serveOn: realtime });
  responses.script = () => ({ kind: "answer", json: ANSWER });
});
afterAll(async () => {
  await responses.close();
  await realtime.close();
  await database.close();
});

const start = async () => (await startLiveApp(realtime, { JOB_POLL_INTERVAL_MS: "500", INSTANCE_LEASE_MS: "1500" }, { database })).app;

async function analysisOf(app: TestApp, who: Caller, callId: string): Promise<CallRecord["analysis"]> {
  const res = await as(app, who).get(`/api/calls/${callId}`);
  expect(res.statusCode, res.body).toBe(200);
  return (res.json() as CallRecord).analysis;
}

const requestsFor = (text: string) => responses.requests.filter((r) => JSON.stringify(r.body?.input ?? "").includes(text));

describe("an analysis whose instance died after closing the call", () => {
  it("is run by the next start, once, whether the engine or a sweep closed the call", async () => {
    const first = await start();
    const ada = await signUpCaller(first, realtime.apiKey);
    const assistantId = (await createAssistant(first, ada, { analysis: { fields: [{ name: "order_id", type: "string", description: "The order number", required: false }] } })).id;
    await first.close();

    // The engine's close (its final write), by an instance that dies before queueing the analysis.
    const store = createDbCallStore(database.db, "died-engine");
    const ended = await store.insert({ assistantId, organizationId: ada.organizationId, startTime: new Date().toISOString(), logs: { isTest: true, transcript: [], toolsUsed: [] } });
    await store.finish(ended, { endTime: new Date().toISOString(), endedReason: "User ended call", cost: 0.05, logs: { ...spoken, transcript: [...spoken.transcript!, { type: "user", content: "It is order 42 by the engine", timestamp: at }] }, recording: null });

    // A sweep's close of a call whose instance is gone (its lease lapsed), by a sweeper that dies before queueing.
    const orphan = await insertOrphanedCall(database.db, { organizationId: ada.organizationId, assistantId, instanceId: "died-carrier" }, [
      spoken.transcript![0]!,
      { type: "user", content: "It is order 42 by the sweep", timestamp: at },
    ]);
    expect(await closeOrphanedCalls(database.db)).toEqual([orphan]);

    // Both closed records already say their analysis is pending, and no job carries it yet.
    const rows = await database.db.select({ id: calls.id, analysis: calls.analysis, endTime: calls.endTime }).from(calls).where(eq(calls.organizationId, ada.organizationId));
    expect(rows.map((r) => [r.endTime !== null, r.analysis?.status]).sort()).toEqual([
      [true, "pending"],
      [true, "pending"],
    ]);
    expect(responses.requests).toHaveLength(0);

    const second = await start();
    try {
      for (const id of [ended, orphan]) {
        await expect.poll(() => analysisOf(second, ada, id).then((a) => a?.status), { timeout: 20_000, interval: 200 }).toBe("done");
        expect(await analysisOf(second, ada, id)).toMatchObject({ status: "done", summary: ANSWER.summary, data: { order_id: "42" }, success: { value: "pass" } });
      }
      // Later recoveries and sweeps leave them alone: one request each.
      await new Promise((r) => setTimeout(r, 2000));
      expect(requestsFor("by the engine").map((r) => r.status)).toEqual([200]);
      expect(requestsFor("by the sweep").map((r) => r.status)).toEqual([200]);
    } finally {
      await second.close();
    }
  });
});
