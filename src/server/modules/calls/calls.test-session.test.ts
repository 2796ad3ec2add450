import { eq } from "drizzle-orm";
import { describe, expect, it } from "vitest";
import { createAssistant, openLiveSocket, requestTestSession, sessionIdFor, signUpCaller, setUpLiveOwner } from "../../../../tests/fakes/realtime-app.ts";
import { calls } from "../../db/schema.ts";
import { CALL_TOKEN_TTL_MS, createCallTokens } from "./call-tokens.ts";
import { errorOf } from "../../../../tests/harness.ts";

/**
 * POST /api/calls/test-session and the doors of WS /api/calls/live: who may open a call, with
 * which session id, and what a refused browser sees. The full conversation is in calls.live.test.ts.
 */

const file = setUpLiveOwner("sk-live-test", { name: "Front desk" });

const callRows = (organizationId: string) => file.live.db.select().from(calls).where(eq(calls.organizationId, organizationId));

describe("POST /api/calls/test-session", () => {
  it("returns a session id, the model and the assistant, and creates no call record", async () => {
    const res = await requestTestSession(file.live.app, file.owner, { assistantId: file.assistantId });
    expect(res.statusCode).toBe(200);
    const body = res.json() as { session_id: string; model: string; assistant: unknown };
    expect(body).toEqual({ session_id: expect.any(String), model: "gpt-realtime-2.1", assistant: { id: file.assistantId, name: "Front desk" } });
    expect(body.session_id.length).toBeGreaterThan(40);
    // Two requests, two different ids.
    expect(await sessionIdFor(file.live.app, file.owner, file.assistantId)).not.toBe(body.session_id);
    expect(await callRows(file.owner.organizationId)).toEqual([]);
  });

  it("refuses a user without an OpenAI key with missing_api_key, and writes nothing", async () => {
    const bob = await signUpCaller(file.live.app);
    const own = await createAssistant(file.live.app, bob);
    const res = await requestTestSession(file.live.app, bob, { assistantId: own.id });
    expect(res.statusCode).toBe(400);
    expect(errorOf(res)).toEqual({ code: "missing_api_key", message: "Add your OpenAI API key in Settings before starting a call." });
    expect(await callRows(bob.organizationId)).toEqual([]);
  });

  it("answers 404 for another user's assistant, an unknown id and a malformed id", async () => {
    const eve = await signUpCaller(file.live.app, file.fake.apiKey);
    for (const id of [file.assistantId, "7f1c1d7e-4a4b-4c55-9d2e-0c8a0d7f0e11", "not-a-uuid"]) {
      const res = await requestTestSession(file.live.app, eve, { assistantId: id });
      expect(res.statusCode).toBe(404);
      expect(errorOf(res)).toEqual({ code: "not_found", message: "Assistant not found" });
    }
    expect(await callRows(eve.organizationId)).toEqual([]);
  });

  it("says No assistant selected when the id is missing or blank", async () => {
    for (const body of [{}, { assistantId: "  " }]) {
      const res = await requestTestSession(file.live.app, file.owner, body);
      expect(res.statusCode).toBe(400);
      expect(errorOf(res).message).toBe("No assistant selected");
    }
  });

  it("needs a session", async () => {
    const res = await requestTestSession(file.live.app, null, { assistantId: file.assistantId });
    expect(res.statusCode).toBe(401);
  });
});

describe("WS /api/calls/live refuses", () => {
  it("an upgrade without the session cookie, with HTTP 401", async () => {
    const sessionId = await sessionIdFor(file.live.app, file.owner, file.assistantId);
    await expect(openLiveSocket(file.live, null, sessionId)).rejects.toThrow("Unexpected server response: 401");
  });

  it.each([
    ["a missing session id", ""],
    ["a made-up session id", "not-a-session"],
    ["a tampered session id", "tampered"],
  ])("%s: closes with 4404 and a reason, and starts no call", async (_, kind) => {
    let sessionId = kind;
    if (kind === "tampered") {
      const real = await sessionIdFor(file.live.app, file.owner, file.assistantId);
      const [payload, mac] = real.split(".");
      const claims = JSON.parse(Buffer.from(payload!, "base64url").toString()) as Record<string, unknown>;
      sessionId = `${Buffer.from(JSON.stringify({ ...claims, e: Date.now() + 3_600_000 })).toString("base64url")}.${mac}`;
    }
    const browser = await openLiveSocket(file.live, file.owner, sessionId);
    await browser.untilClosed();
    expect(browser.closed).toEqual({ code: 4404, reason: "Call session not found" });
    expect(browser.messages).toEqual([]);
  });

  it("a session id issued to another user, even with a valid cookie", async () => {
    const eve = await signUpCaller(file.live.app, file.fake.apiKey);
    const sessionId = await sessionIdFor(file.live.app, file.owner, file.assistantId);
    const browser = await openLiveSocket(file.live, eve, sessionId);
    await browser.untilClosed();
    expect(browser.closed).toEqual({ code: 4404, reason: "Call session not found" });
    expect(await callRows(eve.organizationId)).toEqual([]);
  });

  it("a session id older than 60 s", async () => {
    // What the server would have issued 61 s ago: same key, same format.
    const tokens = createCallTokens(file.live.config.appSecret, { counters: file.live.app.ctx.counters });
    const stale = tokens.issue(file.owner.organizationId, file.assistantId, Date.now() - CALL_TOKEN_TTL_MS - 1000);
    const browser = await openLiveSocket(file.live, file.owner, stale);
    await browser.untilClosed();
    expect(browser.closed).toEqual({ code: 4401, reason: "Call session expired" });
  });

  it("a session id used once already", async () => {
    const before = (await callRows(file.owner.organizationId)).length;
    const sessionId = await sessionIdFor(file.live.app, file.owner, file.assistantId);
    const first = await openLiveSocket(file.live, file.owner, sessionId);
    await first.untilStatus(`Connected to Front desk`);
    const second = await openLiveSocket(file.live, file.owner, sessionId);
    await second.untilClosed();
    expect(second.closed).toEqual({ code: 4401, reason: "Call session already used" });
    first.end();
    await first.untilClosed();
    expect(await callRows(file.owner.organizationId)).toHaveLength(before + 1);
  });

  it("a session id whose user has removed the key since", async () => {
    const cara = await signUpCaller(file.live.app, file.fake.apiKey);
    const own = await createAssistant(file.live.app, cara);
    const sessionId = await sessionIdFor(file.live.app, cara, own.id);
    await file.live.app.inject({ method: "DELETE", url: "/api/credentials/openai_api_key", headers: { cookie: cara.cookie } });
    const browser = await openLiveSocket(file.live, cara, sessionId);
    await browser.untilClosed();
    expect(browser.closed).toEqual({ code: 4400, reason: "Add your OpenAI API key in Settings before starting a call." });
    expect(await callRows(cara.organizationId)).toEqual([]);
  });
});
