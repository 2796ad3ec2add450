import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createAssistant, openLiveSocket, sessionIdFor, setUpLiveApp, signUpCaller, type Caller } from "../../../../tests/fakes/realtime-app.ts";
import { startWebhookReceiver, type WebhookReceiver } from "../../../../tests/fakes/webhook-receiver.ts";
import { as, errorOf, expectBody } from "../../../../tests/harness.ts";
import { eq } from "drizzle-orm";
import { webhookEndpoints } from "../../db/schema.ts";
import type { Page } from "../../../shared/pages.ts";
import { MAX_WEBHOOK_ENDPOINTS, WEBHOOK_DISABLE_AFTER_MS, WEBHOOK_MESSAGES, type WebhookDelivery, type WebhookEndpoint, type WebhookWithSecret } from "../../../shared/webhooks.ts";

/**
 * Webhooks end to end: endpoints through the API, deliveries signed the Standard Webhooks way to
 * a real receiver verifying with the `standardwebhooks` package, retried through the job queue
 * (a short schedule here) while the receiver fails and is restarted, and call.* from a real call.
 */

const file = setUpLiveApp("sk-webhooks-test", { JOB_POLL_INTERVAL_MS: "500" }, { webhooks: { retryDelaysMs: [1000, 1000, 1000], attemptTimeoutMs: 2000, testsPerMinute: 1000 } });
let ada: Caller;
let bob: Caller;

beforeAll(async () => {
  ada = await signUpCaller(file.live.app, file.fake.apiKey);
  bob = await signUpCaller(file.live.app, file.fake.apiKey);
});

async function createEndpoint(who: Caller, body: Record<string, unknown>): Promise<WebhookWithSecret> {
  return expectBody(await as(file.live.app, who).post("/api/webhooks", body), 201);
}

const deliveriesOf = async (who: Caller, id: string): Promise<WebhookDelivery[]> => (await as(file.live.app, who).get(`/api/webhooks/${id}/deliveries`)).json<Page<WebhookDelivery>>().data;

describe("webhook endpoints", () => {
  it("create and rotate answer the whsec_ secret, once; list, get and no other route ever show it", async () => {
    const created = await createEndpoint(ada, { url: "https://hooks.example.com/in", events: ["call.ended"], description: "CRM" });
    expect(created).toMatchObject({ url: "https://hooks.example.com/in", events: ["call.ended"], description: "CRM", enabled: true });
    expect(created.secret).toMatch(/^whsec_[A-Za-z0-9+/]{40,}={0,2}$/);
    expect(Buffer.from(created.secret.slice(6), "base64").length).toBeGreaterThanOrEqual(24);

    const list = (await as(file.live.app, ada).get("/api/webhooks")).json().data as WebhookEndpoint[];
    expect(list.map((e) => e.id)).toContain(created.id);
    expect(JSON.stringify(list)).not.toContain(created.secret);
    expect((await as(file.live.app, ada).get(`/api/webhooks/${created.id}`)).json()).not.toHaveProperty("secret");

    // The former "Reveal" is gone: the secret cannot be read again, by a session or an API key.
    expect((await as(file.live.app, ada).post(`/api/webhooks/${created.id}/reveal`)).statusCode).toBe(404);
    const rotated = (await as(file.live.app, ada).post(`/api/webhooks/${created.id}/rotate`)).json() as WebhookWithSecret;
    expect(rotated.secret).toMatch(/^whsec_/);
    expect(rotated.secret).not.toBe(created.secret);
    const after = JSON.stringify([(await as(file.live.app, ada).get("/api/webhooks")).json().data, (await as(file.live.app, ada).get(`/api/webhooks/${created.id}`)).json()]);
    expect(after).not.toContain(rotated.secret);
    expect(after).not.toContain(created.secret);

    // An empty change is no change (as the other PATCH routes answer), never a server error.
    const empty = await as(file.live.app, ada).patch(`/api/webhooks/${created.id}`, {});
    expect(empty.statusCode, empty.body).toBe(200);
    expect(empty.json()).toMatchObject({ id: created.id, url: "https://hooks.example.com/in", events: ["call.ended"], description: "CRM", enabled: true });

    const patched = await as(file.live.app, ada).patch(`/api/webhooks/${created.id}`, { enabled: false, events: ["call.started", "call.ended"] });
    expect(patched.json()).toMatchObject({ enabled: false, events: ["call.started", "call.ended"] });

    // Another account's endpoint does not exist for Bob.
    for (const res of [
      await as(file.live.app, bob).get(`/api/webhooks/${created.id}`),
      await as(file.live.app, bob).post(`/api/webhooks/${created.id}/rotate`),
      await as(file.live.app, bob).patch(`/api/webhooks/${created.id}`, {}),
      await as(file.live.app, bob).get(`/api/webhooks/${created.id}/deliveries`),
      await as(file.live.app, bob).delete(`/api/webhooks/${created.id}`),
    ]) expect(res.statusCode).toBe(404);
    expect((await as(file.live.app, ada).delete(`/api/webhooks/${created.id}`)).statusCode).toBe(204);
    expect((await as(file.live.app, ada).get(`/api/webhooks/${created.id}`)).statusCode).toBe(404);
  });

  it("refuses unknown events, plain http, private addresses and a 21st endpoint in the user's words, storing nothing", async () => {
    const who = await signUpCaller(file.live.app);
    const refuse = async (body: unknown, status: number, message: string) => {
      const res = await as(file.live.app, who).post("/api/webhooks", body);
      expect(res.statusCode, res.body).toBe(status);
      expect(errorOf(res).message).toContain(message);
    };
    await refuse({ url: "https://hooks.example.com", events: ["call.exploded"] }, 400, WEBHOOK_MESSAGES.unknownEvent("call.exploded"));
    await refuse({ url: "https://hooks.example.com", events: [] }, 400, WEBHOOK_MESSAGES.eventsRequired);
    await refuse({ url: "not a url", events: ["call.ended"] }, 400, WEBHOOK_MESSAGES.invalidUrl);
    await refuse({ url: "http://hooks.example.com/in", events: ["call.ended"] }, 400, WEBHOOK_MESSAGES.httpsRequired);
    // Credentials in the URL would be stored and listed in clear.
    await refuse({ url: "https://user:pw@hooks.example.com/in", events: ["call.ended"] }, 400, WEBHOOK_MESSAGES.credentialsInUrl);
    await refuse({ url: "https://user@hooks.example.com/in", events: ["call.ended"] }, 400, WEBHOOK_MESSAGES.credentialsInUrl);
    // The tools' guard and its words.
    await refuse({ url: "https://10.1.2.3/in", events: ["call.ended"] }, 403, "Refused to connect to 10.1.2.3: it is a private network address.");
    await refuse({ url: "https://169.254.169.254/latest", events: ["call.ended"] }, 403, "it is a cloud metadata address");
    expect((await as(file.live.app, who).get("/api/webhooks")).json().data).toEqual([]);

    // Created all at once, the limit still holds: exactly MAX_WEBHOOK_ENDPOINTS, the rest refused.
    const burst = await Promise.all(
      Array.from({ length: MAX_WEBHOOK_ENDPOINTS + 10 }, (_, i) => as(file.live.app, who).post("/api/webhooks", { url: `https://hooks.example.com/${i}`, events: ["call.ended"] })),
    );
    expect(burst.filter((r) => r.statusCode === 201)).toHaveLength(MAX_WEBHOOK_ENDPOINTS);
    const refused = burst.filter((r) => r.statusCode !== 201);
    expect(refused.map((r) => [r.statusCode, errorOf(r).message])).toEqual(refused.map(() => [409, WEBHOOK_MESSAGES.tooMany]));
    await refuse({ url: "https://hooks.example.com/one-more", events: ["call.ended"] }, 409, WEBHOOK_MESSAGES.tooMany);
    const list = (await as(file.live.app, who).get("/api/webhooks")).json().data as WebhookEndpoint[];
    expect(list).toHaveLength(MAX_WEBHOOK_ENDPOINTS);

    // Nor can a change put credentials in: the endpoint keeps its URL, and the audit log never sees them.
    const changed = await as(file.live.app, who).patch(`/api/webhooks/${list[0]!.id}`, { url: "https://user:pw@hooks.example.com/in" });
    expect(changed.statusCode).toBe(400);
    expect(errorOf(changed).message).toBe(WEBHOOK_MESSAGES.credentialsInUrl);
    expect((await as(file.live.app, who).get(`/api/webhooks/${list[0]!.id}`)).json()).toMatchObject({ url: list[0]!.url });
    const audit = await as(file.live.app, who).get("/api/audit-log");
    expect(audit.statusCode).toBe(200);
    expect(audit.body).not.toContain("pw@");
  });
});

describe("deliveries", () => {
  let receiver: WebhookReceiver;
  beforeAll(async () => {
    receiver = await startWebhookReceiver();
  });
  afterAll(() => receiver.close());

  it("retries a failing receiver on the schedule, through its restart, until it verifies and accepts the event once", async () => {
    receiver.failFirst = 2;
    receiver.requests = [];
    const endpoint = await createEndpoint(ada, { url: receiver.url, events: ["call.ended"] });
    receiver.secret = endpoint.secret;
    const test = await as(file.live.app, ada).post(`/api/webhooks/${endpoint.id}/test`);
    expect(test.statusCode, test.body).toBe(202);

    // Two refusals (500), then the receiver is down for a while: those attempts find nobody.
    await expect.poll(() => receiver.requests.length, { timeout: 10_000, interval: 50 }).toBe(2);
    const [pending] = await deliveriesOf(ada, endpoint.id);
    expect(pending).toMatchObject({ event_type: "webhook.test", status: "pending", last_status_code: 500 });
    expect(pending!.next_attempt_at).not.toBeNull();
    await receiver.stop();
    await expect.poll(async () => (await deliveriesOf(ada, endpoint.id))[0]!.attempts, { timeout: 10_000, interval: 200 }).toBeGreaterThanOrEqual(3);
    await receiver.start();

    await expect.poll(async () => (await deliveriesOf(ada, endpoint.id))[0]!.status, { timeout: 15_000, interval: 200 }).toBe("delivered");
    const accepted = receiver.requests.filter((r) => r.status === 200);
    expect(accepted).toHaveLength(1);
    expect(receiver.requests.every((r) => r.verified)).toBe(true);
    // One event: the same webhook-id on every attempt.
    expect(new Set(receiver.requests.map((r) => r.id)).size).toBe(1);
    expect(accepted[0]).toMatchObject({ type: "webhook.test" });
    // Each retry waited at least the schedule's delay.
    expect(receiver.requests[1]!.at - receiver.requests[0]!.at).toBeGreaterThanOrEqual(900);

    // Resend: the same event, sent again.
    const [delivered] = await deliveriesOf(ada, endpoint.id);
    const resend = await as(file.live.app, ada).post(`/api/webhooks/deliveries/${delivered!.id}/resend`);
    expect(resend.statusCode, resend.body).toBe(202);
    await expect.poll(() => receiver.requests.filter((r) => r.status === 200).length, { timeout: 10_000, interval: 100 }).toBe(2);
    expect(new Set(receiver.requests.map((r) => r.id)).size).toBe(1);
    expect((await as(file.live.app, bob).post(`/api/webhooks/deliveries/${delivered!.id}/resend`)).statusCode).toBe(404);
    await as(file.live.app, ada).delete(`/api/webhooks/${endpoint.id}`);
  });

  it("times out a slow endpoint after the attempt timeout and retries it", async () => {
    const slow = await startWebhookReceiver({ delayMs: 3000 });
    const endpoint = await createEndpoint(ada, { url: slow.url, events: ["call.ended"] });
    slow.secret = endpoint.secret;
    await as(file.live.app, ada).post(`/api/webhooks/${endpoint.id}/test`);
    await expect.poll(async () => (await deliveriesOf(ada, endpoint.id))[0]!.attempts, { timeout: 10_000, interval: 200 }).toBeGreaterThanOrEqual(1);
    expect((await deliveriesOf(ada, endpoint.id))[0]).toMatchObject({ status: "pending", last_status_code: null });
    slow.delayMs = 0;
    await expect.poll(async () => (await deliveriesOf(ada, endpoint.id))[0]!.status, { timeout: 15_000, interval: 200 }).toBe("delivered");
    await slow.close();
    await as(file.live.app, ada).delete(`/api/webhooks/${endpoint.id}`);
  });

  it("keeps delivering to a healthy endpoint while a burst to a hanging one waits out its timeouts", async () => {
    // A never answers within the attempt timeout (2 s here); B answers at once.
    const hanging = await startWebhookReceiver({ delayMs: 20_000 });
    const healthy = await startWebhookReceiver();
    const a = await createEndpoint(ada, { url: hanging.url, events: ["call.ended"] });
    const b = await createEndpoint(ada, { url: healthy.url, events: ["call.ended"] });
    hanging.secret = a.secret;
    healthy.secret = b.secret;
    for (let i = 0; i < 20; i++) expect((await as(file.live.app, ada).post(`/api/webhooks/${a.id}/test`)).statusCode).toBe(202);
    // The burst takes all 8 delivery workers before A is known not to answer.
    await expect.poll(() => hanging.requests.length, { timeout: 10_000, interval: 50 }).toBeGreaterThanOrEqual(8);
    expect((await as(file.live.app, ada).post(`/api/webhooks/${b.id}/test`)).statusCode).toBe(202);
    await expect.poll(() => healthy.requests.length, { timeout: 15_000, interval: 20 }).toBe(1);
    // B's event went out once A's first attempts timed out, not behind the 12 A events queued
    // before it: these wait for the slow lane's 2 workers, so A has had at most a round or two of
    // those (workers shared first come first served would have started 8 more A attempts first).
    expect(hanging.requests.length).toBeLessThanOrEqual(12);
    expect(healthy.requests[0]).toMatchObject({ verified: true, status: 200 });
    const stuck = await deliveriesOf(ada, a.id);
    expect(stuck.filter((d) => d.status === "delivered")).toEqual([]);

    // Now that A is known not to answer, B's next event is not held by A's at all.
    for (let i = 0; i < 20; i++) await as(file.live.app, ada).post(`/api/webhooks/${a.id}/test`);
    const before = hanging.requests.length;
    await as(file.live.app, ada).post(`/api/webhooks/${b.id}/test`);
    await expect.poll(() => healthy.requests.length, { timeout: 15_000, interval: 20 }).toBe(2);
    expect(hanging.requests.length - before).toBeLessThanOrEqual(4);
    await as(file.live.app, ada).delete(`/api/webhooks/${a.id}`);
    await as(file.live.app, ada).delete(`/api/webhooks/${b.id}`);
    await hanging.close();
    await healthy.close();
  });

  it("delivers a healthy endpoint of one organisation before another organisation's burst to slow endpoints is through", async () => {
    // Two organisations: one whose 20 endpoints each take 1.5 s to answer (within the attempt
    // timeout: they are never moved to the slow lane), one with a healthy endpoint.
    const busy = await signUpCaller(file.live.app, file.fake.apiKey);
    const other = await signUpCaller(file.live.app);
    const slow = await startWebhookReceiver({ delayMs: 1500 });
    const healthy = await startWebhookReceiver();
    for (let i = 0; i < MAX_WEBHOOK_ENDPOINTS; i++) slow.moreSecrets.push((await createEndpoint(busy, { url: `${slow.url}?n=${i}`, events: ["call.started"] })).secret);
    const b = await createEndpoint(other, { url: healthy.url, events: ["call.ended"] });
    healthy.secret = b.secret;

    // One call of the busy organisation starts: 20 deliveries queued at once, before the other's one.
    const assistant = await createAssistant(file.live.app, busy, { name: "Busy" });
    file.fake.script = {};
    const browser = await openLiveSocket(file.live, busy, await sessionIdFor(file.live.app, busy, assistant.id));
    await expect.poll(() => slow.requests.length, { timeout: 10_000, interval: 20 }).toBeGreaterThan(0);
    expect((await as(file.live.app, other).post(`/api/webhooks/${b.id}/test`)).statusCode).toBe(202);

    await expect.poll(() => healthy.requests.length, { timeout: 15_000, interval: 20 }).toBe(1);
    expect(healthy.requests[0]).toMatchObject({ verified: true, status: 200 });
    // The 8 workers were all on the busy organisation's events; the other's went out as the first
    // of them finished, not after all 20 (first come first served: the 21st).
    const startedBefore = slow.requests.filter((r) => r.at <= healthy.requests[0]!.at).length;
    expect(startedBefore).toBeLessThan(MAX_WEBHOOK_ENDPOINTS);
    await expect.poll(() => slow.requests.length, { timeout: 20_000, interval: 100 }).toBeGreaterThanOrEqual(MAX_WEBHOOK_ENDPOINTS);
    expect(slow.requests.every((r) => r.verified && r.type === "call.started")).toBe(true);
    browser.end();
    await browser.untilClosed();
    await slow.close();
    await healthy.close();
  });

  it("counts any 2xx as delivered whatever its size, reading only its start; a failure keeps an excerpt as its error", async () => {
    const chatty = await startWebhookReceiver();
    const endpoint = await createEndpoint(ada, { url: chatty.url, events: ["call.ended"] });
    chatty.secret = endpoint.secret;
    chatty.answerBody = "x".repeat(200 * 1024);
    await as(file.live.app, ada).post(`/api/webhooks/${endpoint.id}/test`);
    await expect.poll(async () => (await deliveriesOf(ada, endpoint.id))[0]?.status, { timeout: 10_000, interval: 100 }).toBe("delivered");
    // Longer than a retry's delay: no second delivery of the event comes.
    await new Promise((r) => setTimeout(r, 2500));
    expect(chatty.requests).toHaveLength(1);
    expect((await deliveriesOf(ada, endpoint.id))[0]).toMatchObject({ status: "delivered", attempts: 1, last_status_code: 200, last_error: null });

    // A refusal's own words, cut short, say why it failed.
    chatty.failFirst = 100;
    chatty.answerBody = `database unavailable ${"y".repeat(100 * 1024)}`;
    await as(file.live.app, ada).post(`/api/webhooks/${endpoint.id}/test`);
    await expect.poll(async () => (await deliveriesOf(ada, endpoint.id))[0]?.attempts, { timeout: 10_000, interval: 100 }).toBeGreaterThanOrEqual(1);
    const [failing] = await deliveriesOf(ada, endpoint.id);
    expect(failing!.last_error).toMatch(/^HTTP 500: database unavailable y+…$/);
    expect(failing!.last_error!.length).toBeLessThan(300);
    await as(file.live.app, ada).delete(`/api/webhooks/${endpoint.id}`);
    await chatty.close();
  });

  it("after a rotation signs with both secrets for 24 hours, then with the new one only", async () => {
    const rx = await startWebhookReceiver();
    const endpoint = await createEndpoint(ada, { url: rx.url, events: ["call.ended"] });
    const rotated = (await as(file.live.app, ada).post(`/api/webhooks/${endpoint.id}/rotate`)).json() as WebhookWithSecret;
    const sendWith = async (secret: string) => {
      rx.secret = secret;
      const count = rx.requests.length;
      await as(file.live.app, ada).post(`/api/webhooks/${endpoint.id}/test`);
      await expect.poll(() => rx.requests.length, { timeout: 10_000, interval: 50 }).toBeGreaterThan(count);
      return rx.requests[count]!.verified;
    };
    // A receiver still holding the old secret, and one already updated, both verify.
    expect(await sendWith(endpoint.secret)).toBe(true);
    expect(await sendWith(rotated.secret)).toBe(true);

    // The grace period over (24 hours on): only the new secret verifies.
    await file.live.db.update(webhookEndpoints).set({ previousSecretExpiresAt: new Date(Date.now() - 1000) }).where(eq(webhookEndpoints.id, endpoint.id));
    expect(await sendWith(rotated.secret)).toBe(true);
    expect(await sendWith(endpoint.secret)).toBe(false);
    await as(file.live.app, ada).delete(`/api/webhooks/${endpoint.id}`);
    await rx.close();
  });

  it("marks a delivery failed after the last retry", async () => {
    const dead = await startWebhookReceiver({ failFirst: 100 });
    const endpoint = await createEndpoint(ada, { url: dead.url, events: ["call.ended"] });
    dead.secret = endpoint.secret;
    await as(file.live.app, ada).post(`/api/webhooks/${endpoint.id}/test`);
    await expect.poll(async () => (await deliveriesOf(ada, endpoint.id))[0]!.status, { timeout: 20_000, interval: 200 }).toBe("failed");
    const [failed] = await deliveriesOf(ada, endpoint.id);
    expect(failed).toMatchObject({ attempts: 4, last_status_code: 500, last_error: "HTTP 500: no", next_attempt_at: null });
    expect(dead.requests).toHaveLength(4);
    await dead.close();
    await as(file.live.app, ada).delete(`/api/webhooks/${endpoint.id}`);
  });

  it("disables an endpoint failing for 3 days and says why; enabling it again clears the notice", async () => {
    const dead = await startWebhookReceiver({ failFirst: 100 });
    const endpoint = await createEndpoint(ada, { url: dead.url, events: ["call.ended"] });
    dead.secret = endpoint.secret;
    // A failure less than 3 days into its failing period leaves the endpoint on.
    await file.live.db.update(webhookEndpoints).set({ failingSince: new Date(Date.now() - WEBHOOK_DISABLE_AFTER_MS + 3_600_000) }).where(eq(webhookEndpoints.id, endpoint.id));
    await as(file.live.app, ada).post(`/api/webhooks/${endpoint.id}/test`);
    await expect.poll(() => dead.requests.length, { timeout: 10_000, interval: 100 }).toBe(1);
    await expect.poll(async () => (await deliveriesOf(ada, endpoint.id))[0]!.attempts, { timeout: 10_000, interval: 100 }).toBe(1);
    expect((await as(file.live.app, ada).get(`/api/webhooks/${endpoint.id}`)).json()).toMatchObject({ enabled: true, disabled_reason: null });

    // Its failing period began 3 days ago: the next failure turns it off, with no retry.
    await file.live.db.update(webhookEndpoints).set({ failingSince: new Date(Date.now() - WEBHOOK_DISABLE_AFTER_MS - 60_000) }).where(eq(webhookEndpoints.id, endpoint.id));
    await expect.poll(async () => ((await as(file.live.app, ada).get(`/api/webhooks/${endpoint.id}`)).json() as WebhookEndpoint).enabled, { timeout: 15_000, interval: 200 }).toBe(false);
    expect((await as(file.live.app, ada).get("/api/webhooks")).json().data).toContainEqual(expect.objectContaining({ id: endpoint.id, enabled: false, disabled_reason: WEBHOOK_MESSAGES.disabledForFailures }));
    await expect.poll(async () => (await deliveriesOf(ada, endpoint.id))[0]!.status, { timeout: 10_000, interval: 200 }).toBe("failed");
    const attempts = dead.requests.length;
    await new Promise((r) => setTimeout(r, 2500));
    expect(dead.requests).toHaveLength(attempts);

    const enabled = await as(file.live.app, ada).patch(`/api/webhooks/${endpoint.id}`, { enabled: true });
    expect(enabled.json()).toMatchObject({ enabled: true, disabled_reason: null });
    await dead.close();
    await as(file.live.app, ada).delete(`/api/webhooks/${endpoint.id}`);
  });

  it("sends call.started and call.ended of a real call, with the report and a recording URL the owner can fetch", async () => {
    receiver.failFirst = 0;
    receiver.requests = [];
    const endpoint = await createEndpoint(ada, { url: receiver.url, events: ["call.started", "call.ended"] });
    receiver.secret = endpoint.secret;
    const assistant = await createAssistant(file.live.app, ada, { name: "Ava" });
    file.fake.script = {};
    const browser = await openLiveSocket(file.live, ada, await sessionIdFor(file.live.app, ada, assistant.id));
    await browser.until(() => browser.of("started").length > 0, "call record");
    const callId = browser.of("started")[0]!.callId;
    await browser.until(() => browser.statuses().includes("Assistant finished responding"), "first message");
    browser.end();
    await browser.untilClosed();

    await expect.poll(() => receiver.requests.map((r) => r.type).sort(), { timeout: 10_000, interval: 100 }).toEqual(["call.ended", "call.started"]);
    const started = receiver.requests.find((r) => r.type === "call.started")!;
    expect(started.data).toMatchObject({ call_id: callId, assistant_id: assistant.id, type: "test", direction: "inbound" });
    const ended = receiver.requests.find((r) => r.type === "call.ended")!;
    const record = (await as(file.live.app, ada).get(`/api/calls/${callId}`)).json();
    expect(ended.data).toMatchObject({
      call_id: callId,
      assistant_id: assistant.id,
      assistant_name: "Ava",
      type: "test",
      start_time: record.start_time,
      end_time: record.end_time,
      duration_ms: record.duration_ms,
      ended_reason: record.ended_reason,
      cost: record.cost,
      transcript: record.logs.transcript,
      tool_calls: [],
    });
    expect(receiver.requests.every((r) => r.verified)).toBe(true);
    const recordingUrl = String(ended.data.recording_url);
    const path = new URL(recordingUrl).pathname;
    expect(path).toBe(`/api/calls/${callId}/recording`);
    const fetched = await as(file.live.app, ada).get(path);
    expect(fetched.statusCode).toBe(302);
    expect((await file.live.app.inject({ method: "GET", url: String(fetched.headers.location) })).statusCode).toBe(200);
    expect((await as(file.live.app, bob).get(path)).statusCode).toBe(404);
  });
});
