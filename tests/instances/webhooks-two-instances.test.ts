/**
 * Two real server processes on one fresh PostgreSQL database delivering webhooks: events emitted
 * on either instance reach a real receiver (verifying with the `standardwebhooks` package)
 * exactly once each, whichever instance's worker takes each delivery.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Page } from "../../src/shared/pages.ts";
import { WEBHOOK_TESTS_PER_MINUTE, type WebhookDelivery, type WebhookWithSecret } from "../../src/shared/webhooks.ts";
import { startServerProcess, type ServerProcess } from "../fakes/server-process.ts";
import { startWebhookReceiver, type WebhookReceiver } from "../fakes/webhook-receiver.ts";
import { fetchPost, newAccount, signUp } from "../sign-up.ts";
import { createScratchDatabase, dropScratchDatabase, killServers, type ScratchDatabase } from "./scratch-database.ts";

// As many test events as an organisation may send in a minute, counted across both instances.
const EVENTS = WEBHOOK_TESTS_PER_MINUTE;

let database: ScratchDatabase;
let receiver: WebhookReceiver;
const servers: ServerProcess[] = [];

beforeAll(async () => {
  database = await createScratchDatabase("switchboard_webhooks");
  // A little slow, so both instances' workers have deliveries in flight at once.
  receiver = await startWebhookReceiver({ delayMs: 50 });
}, 60_000);

afterAll(async () => {
  await killServers(servers);
  await receiver?.close();
  await dropScratchDatabase(database);
});

async function start(): Promise<ServerProcess> {
  const server = await startServerProcess({
    DATABASE_URL: database.url,
    APP_SECRET: "webhooks-instances-secret-0123456789abcdef",
    TOOL_ALLOWED_HOSTS: "127.0.0.1", WEBHOOK_ALLOWED_HOSTS: "127.0.0.1",
    JOB_POLL_INTERVAL_MS: "500",
  });
  servers.push(server);
  return server;
}

async function api<T>(server: ServerProcess, path: string, cookie: string, init: { method?: string; body?: unknown; status?: number } = {}): Promise<T> {
  const res = await fetch(`${server.origin}${path}`, {
    method: init.method ?? "GET",
    headers: { origin: server.origin, cookie, ...(init.body !== undefined ? { "content-type": "application/json" } : {}) },
    body: init.body === undefined ? undefined : JSON.stringify(init.body),
  });
  const text = await res.text();
  expect(res.status, text).toBe(init.status ?? 200);
  return (text ? JSON.parse(text) : null) as T;
}

describe("webhooks on two instances", () => {
  it("deliver each event exactly once between them", async () => {
    const one = await start();
    const two = await start();
    const { cookie } = await signUp(fetchPost(one.origin), newAccount("Grace Hopper", "hooks-"));
    const endpoint = await api<WebhookWithSecret>(one, "/api/webhooks", cookie, { method: "POST", body: { url: receiver.url, events: ["call.ended"] }, status: 201 });
    receiver.secret = endpoint.secret;

    // Events emitted on both instances, concurrently.
    const sent = await Promise.all(
      Array.from({ length: EVENTS }, (_, n) => api<WebhookDelivery>(n % 2 ? two : one, `/api/webhooks/${endpoint.id}/test`, cookie, { method: "POST", status: 202 })),
    );
    expect(new Set(sent.map((d) => d.id)).size).toBe(EVENTS);

    await expect.poll(() => new Set(receiver.requests.map((r) => r.id)).size, { timeout: 30_000, interval: 200 }).toBe(EVENTS);
    // Long enough for a second (wrong) delivery to arrive: over two poll intervals.
    await new Promise((r) => setTimeout(r, 2000));
    const perId = new Map<string, number>();
    for (const r of receiver.requests) perId.set(r.id, (perId.get(r.id) ?? 0) + 1);
    expect([...perId.values()].filter((n) => n !== 1)).toEqual([]);
    expect(receiver.requests).toHaveLength(EVENTS);
    expect(receiver.requests.every((r) => r.verified && r.status === 200 && r.type === "webhook.test")).toBe(true);

    // Both instances see every delivery as delivered, once.
    for (const server of [one, two]) {
      const deliveries = (await api<Page<WebhookDelivery>>(server, `/api/webhooks/${endpoint.id}/deliveries`, cookie)).data;
      expect(deliveries).toHaveLength(EVENTS);
      expect(deliveries.filter((d) => d.status !== "delivered" || d.attempts !== 1)).toEqual([]);
    }
  }, 120_000);
});
