import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startFakeRealtime, type FakeRealtime } from "../../../tests/fakes/fake-realtime.ts";
import { createAssistant, openLiveSocket, requestTestSession, sessionIdFor, signUpCaller, startLiveApp, type Caller, type LiveApp } from "../../../tests/fakes/realtime-app.ts";
import { freshDatabase } from "../../../tests/harness.ts";
import type { Database } from "../db/client.ts";
import { drainCalls, DRAINING_MESSAGE } from "./drain.ts";

/** Readiness and draining on a real app with a live call over real sockets. */
let fake: FakeRealtime;
beforeAll(async () => {
  fake = await startFakeRealtime({ apiKey: "sk-drain-test" });
});
afterAll(() => fake.close());

async function appWithCaller(database?: Database): Promise<{ live: LiveApp; ada: Caller; assistantId: string }> {
  const live = await startLiveApp(fake, {}, database ? { database } : {});
  const ada = await signUpCaller(live.app, fake.apiKey);
  const { id } = await createAssistant(live.app, ada);
  return { live, ada, assistantId: id };
}

describe("GET /api/health", () => {
  it("is ready while the database answers, and says which instance answered", async () => {
    const { live } = await appWithCaller();
    try {
      const res = await live.app.inject({ url: "/api/health" });
      expect(res.statusCode).toBe(200);
      expect(res.json()).toEqual({ ok: true, database: expect.stringMatching(/^(pglite|postgres)$/), database_reachable: true, draining: false, instance: live.app.ctx.instance.id, calls: 0, max_calls: 50, has_room: true });
    } finally {
      await live.app.close();
    }
  });

  it("answers 503 once the database is gone", async () => {
    const database = await freshDatabase();
    const { live } = await appWithCaller(database);
    try {
      // Closed under the running app: every query fails from now on.
      await database.close();
      const res = await live.app.inject({ url: "/api/health" });
      expect(res.statusCode).toBe(503);
      expect(res.json()).toMatchObject({ ok: false, database_reachable: false, error: { code: "database_unreachable" } });
    } finally {
      await live.app.close().catch(() => undefined);
    }
  });
});

describe("draining", () => {
  it("refuses new calls with a retryable 503, lets the live call finish, and is done when it ends", async () => {
    const { live, ada, assistantId } = await appWithCaller();
    try {
      const browser = await openLiveSocket(live, ada, await sessionIdFor(live.app, ada, assistantId));
      await browser.until(() => browser.of("started").length > 0, "call record");
      const issuedBefore = await sessionIdFor(live.app, ada, assistantId);

      const drained = drainCalls(live.app.ctx.drain, live.app.ctx.liveCalls, 30_000);
      const health = await live.app.inject({ url: "/api/health" });
      expect(health.statusCode).toBe(503);
      expect(health.json()).toMatchObject({ ok: false, draining: true, error: { code: "draining" } });

      const refused = await requestTestSession(live.app, ada, { assistantId });
      expect(refused.statusCode).toBe(503);
      expect(refused.headers["retry-after"]).toBe("2");
      expect(refused.json()).toEqual({ error: { code: "draining", message: DRAINING_MESSAGE } });
      // A session id issued before the drain does not start a call here either.
      const late = await openLiveSocket(live, ada, issuedBefore);
      await late.untilClosed();
      expect(late.closed).toEqual({ code: 1001, reason: "Server shutting down" });

      // The call in progress carries on until the caller ends it; then the drain is complete.
      expect(browser.closed).toBeNull();
      browser.end();
      await browser.untilClosed();
      expect(browser.closed).toEqual({ code: 1000, reason: "User ended call" });
      expect(await drained).toBe(true);
    } finally {
      await live.app.close();
    }
  });

  it("gives up after the limit; the shutdown that follows ends the call", async () => {
    const { live, ada, assistantId } = await appWithCaller();
    const browser = await openLiveSocket(live, ada, await sessionIdFor(live.app, ada, assistantId));
    await browser.until(() => browser.of("started").length > 0, "call record");
    expect(await drainCalls(live.app.ctx.drain, live.app.ctx.liveCalls, 200)).toBe(false);
    expect(browser.closed).toBeNull();
    await live.app.close();
    await browser.untilClosed();
    expect(browser.closed).toEqual({ code: 1000, reason: "Server shutting down" });
  });
});
