import { eq, sql } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startWebhookReceiver, type WebhookReceiver } from "../../../../tests/fakes/webhook-receiver.ts";
import { signUpCaller, type Caller } from "../../../../tests/fakes/realtime-app.ts";
import { as, buildTestApp, freshDatabase, type TestApp } from "../../../../tests/harness.ts";
import type { Page } from "../../../shared/pages.ts";
import type { WebhookDelivery, WebhookWithSecret } from "../../../shared/webhooks.ts";
import type { Database } from "../../db/client.ts";
import { webhookEndpoints } from "../../db/schema.ts";
import { JOB_SCHEMA } from "../../jobs/job-queue.ts";
import { newMessageId } from "./webhook-signature.ts";
import * as repo from "./webhooks.repo.ts";
import { DELIVER_JOB, DELIVER_SLOW_JOB } from "./webhooks.service.ts";

/**
 * A delivery row whose job was never queued (its instance died between the two writes) is still
 * sent: by the next start's sweep, and by the periodic sweep while the app runs; each once.
 */

let database: Database;
let receiver: WebhookReceiver;

beforeAll(async () => {
  database = await freshDatabase();
  receiver = await startWebhookReceiver();
});
afterAll(async () => {
  await receiver.close();
  await database.close();
});

const start = async (webhooks: { recoverEveryMs?: number } = {}) =>
  (await buildTestApp({ config: { TOOL_ALLOWED_HOSTS: "127.0.0.1", WEBHOOK_ALLOWED_HOSTS: "127.0.0.1", JOB_POLL_INTERVAL_MS: "500" }, deps: { database, webhooks } })).app;

/** What `emit` stores, without the job it queues next: the state a crash between them leaves. */
async function orphanDelivery(who: Caller, endpointId: string, n: number): Promise<string> {
  const payload = JSON.stringify({ type: "call.ended", timestamp: new Date().toISOString(), data: { call_id: `orphan-${n}` } });
  const [row] = await repo.insertDeliveries(database.db, [{ organizationId: who.organizationId, endpointId, messageId: newMessageId(), eventType: "call.ended", payload }]);
  return row!.id;
}

const statusOf = async (app: TestApp, who: Caller, endpointId: string, deliveryId: string) =>
  ((await as(app, who).get(`/api/webhooks/${endpointId}/deliveries`)).json() as Page<WebhookDelivery>).data.find((d) => d.id === deliveryId)?.status;

describe("webhook delivery recovery", () => {
  it("delivers a pending delivery with no job after a restart, and through the periodic sweep, each once", async () => {
    const first = await start({ recoverEveryMs: 3_600_000 });
    const ada = await signUpCaller(first);
    const created = await as(first, ada).post("/api/webhooks", { url: receiver.url, events: ["call.ended"] });
    expect(created.statusCode, created.body).toBe(201);
    const endpoint = created.json() as WebhookWithSecret;
    receiver.secret = endpoint.secret;

    const lost = await orphanDelivery(ada, endpoint.id, 1);
    await new Promise((r) => setTimeout(r, 1500));
    // No job carries it: this instance, started before it, does not send it (its next sweep is an hour away).
    expect(receiver.requests).toHaveLength(0);
    await first.close();

    const second = await start({ recoverEveryMs: 1500 });
    try {
      await expect.poll(() => statusOf(second, ada, endpoint.id, lost), { timeout: 10_000, interval: 200 }).toBe("delivered");

      // While running: an orphan found by the periodic sweep, next to an ordinary test event.
      const later = await orphanDelivery(ada, endpoint.id, 2);
      const test = await as(second, ada).post(`/api/webhooks/${endpoint.id}/test`);
      expect(test.statusCode, test.body).toBe(202);
      await expect.poll(() => statusOf(second, ada, endpoint.id, later), { timeout: 10_000, interval: 200 }).toBe("delivered");
      await expect.poll(() => receiver.requests.length, { timeout: 10_000, interval: 100 }).toBe(3);

      // Two more sweeps pass: nothing is sent twice.
      await new Promise((r) => setTimeout(r, 3500));
      expect(receiver.requests.map((r) => r.type).sort()).toEqual(["call.ended", "call.ended", "webhook.test"]);
      expect(new Set(receiver.requests.map((r) => r.id)).size).toBe(3);
      expect(receiver.requests.every((r) => r.verified && r.status === 200)).toBe(true);
    } finally {
      await second.close();
    }
    // Two app starts, several sweeps and fixed waits: longer than the default on a loaded machine,
    // and a timed-out test would go on sending into the next test's receiver.
  }, 60_000);

  it("sends an orphan of an endpoint that stopped answering through the slow lane, once, and the endpoint's 2xx ends its slow period", async () => {
    const app = await start({ recoverEveryMs: 3_600_000 });
    const ada = await signUpCaller(app);
    const created = await as(app, ada).post("/api/webhooks", { url: receiver.url, events: ["call.ended"] });
    const endpoint = created.json() as WebhookWithSecret;
    receiver.secret = endpoint.secret;
    receiver.requests = [];
    await database.db.update(webhookEndpoints).set({ slowSince: new Date(), failingSince: new Date() }).where(eq(webhookEndpoints.id, endpoint.id));
    const lost = await orphanDelivery(ada, endpoint.id, 3);
    await app.close();

    const again = await start({ recoverEveryMs: 3_600_000 });
    try {
      await expect.poll(() => statusOf(again, ada, endpoint.id, lost), { timeout: 10_000, interval: 200 }).toBe("delivered");
      expect(receiver.requests).toHaveLength(1);
      // Queued into the normal lane, which handed it to the slow lane's workers unattempted. The
      // queue records a job completed just after its handler returns: a moment after "delivered".
      const completed = async () =>
        (await database.sql(`SELECT name FROM ${JOB_SCHEMA}.job WHERE data->>'deliveryId' = $1 AND state = 'completed' ORDER BY name`, [lost])).rows.map((r) => r.name);
      await expect.poll(completed, { timeout: 5_000, interval: 100 }).toEqual([DELIVER_JOB, DELIVER_SLOW_JOB]);
      const [row] = await database.db.select().from(webhookEndpoints).where(eq(webhookEndpoints.id, endpoint.id));
      expect(row).toMatchObject({ slowSince: null, failingSince: null });
    } finally {
      await again.close();
    }
  }, 60_000);

  it("finds the pending deliveries through the status index, not by reading every delivery", async () => {
    // With sequential scans priced out, the planner shows whether an index can answer the sweep's query.
    const plan = await database.db.transaction(async (tx) => {
      await tx.execute(sql`SET LOCAL enable_seqscan = off`);
      const result = (await tx.execute(sql`EXPLAIN ${repo.pendingDeliveries(tx).getSQL()}`)) as unknown as { rows: { "QUERY PLAN": string }[] };
      return result.rows.map((r) => r["QUERY PLAN"]).join("\n");
    });
    expect(plan).toContain("webhook_deliveries_status_idx");
  });
});
