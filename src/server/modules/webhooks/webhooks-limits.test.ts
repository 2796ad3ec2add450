import { describe, expect, it } from "vitest";
import { errorOf, useTestApp, expectBody } from "../../../../tests/harness.ts";
import { WEBHOOK_MESSAGES, WEBHOOK_TESTS_PER_MINUTE, type WebhookWithSecret } from "../../../shared/webhooks.ts";

/**
 * The brakes with the server's own settings: test events per organisation and minute, and the
 * hosts webhooks may reach (TOOL_ALLOWED_HOSTS opens 127.0.0.1 to tools here, not to webhooks).
 */

const file = useTestApp({ users: ["Alice", "Bob"], config: { TOOL_ALLOWED_HOSTS: "127.0.0.1" } });

async function endpointOf(who: "Alice" | "Bob"): Promise<WebhookWithSecret> {
  return expectBody(await file.as(file.users[who]).post("/api/webhooks", { url: "https://hooks.example.com/in", events: ["call.ended"] }), 201);
}

describe("webhook limits", () => {
  it("answers 429 with Retry-After past the test events a minute, per organisation", async () => {
    const mine = await endpointOf("Alice");
    for (let i = 0; i < WEBHOOK_TESTS_PER_MINUTE; i++) expect((await file.as(file.users.Alice).post(`/api/webhooks/${mine.id}/test`)).statusCode).toBe(202);
    const refused = await file.as(file.users.Alice).post(`/api/webhooks/${mine.id}/test`);
    expect(refused.statusCode).toBe(429);
    expect(Number(refused.headers["retry-after"])).toBeGreaterThan(0);
    expect(errorOf(refused).code).toBe("rate_limited");
    expect(errorOf(refused).message).toMatch(/^Too many test events\. Please try again in \d+ (second|minute)s?\.$/);
    expect((await file.as(file.users.Alice).get(`/api/webhooks/${mine.id}/deliveries`)).json().data).toHaveLength(WEBHOOK_TESTS_PER_MINUTE);

    // Another organisation has its own budget.
    const theirs = await endpointOf("Bob");
    expect((await file.as(file.users.Bob).post(`/api/webhooks/${theirs.id}/test`)).statusCode).toBe(202);
  });

  it("does not let TOOL_ALLOWED_HOSTS open private addresses to webhooks", async () => {
    const plain = await file.as(file.users.Bob).post("/api/webhooks", { url: "http://127.0.0.1:9/hooks", events: ["call.ended"] });
    expect(plain.statusCode).toBe(400);
    expect(errorOf(plain).message).toBe(WEBHOOK_MESSAGES.httpsRequired);
    const loopback = await file.as(file.users.Bob).post("/api/webhooks", { url: "https://127.0.0.1/hooks", events: ["call.ended"] });
    expect(loopback.statusCode).toBe(403);
    expect(errorOf(loopback).message).toContain("Refused to connect to 127.0.0.1");
    expect(errorOf(loopback).message).toContain("an administrator can allow this host in WEBHOOK_ALLOWED_HOSTS.");
  });
});
