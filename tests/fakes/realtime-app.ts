/**
 * The real app on a real port with the fake OpenAI behind it, for live-call tests: a signed-in
 * user with a stored key, an assistant (and tools), a test-session id, and a browser socket on
 * WS /api/calls/live carrying that user's cookie.
 */
import type { AddressInfo } from "node:net";
import { expect } from "vitest";
import type { AppDeps } from "../../src/server/app.ts";
import { buildTestApp, signUpAndLogIn, type TestApp } from "../harness.ts";
import type { FakeRealtime } from "./fake-realtime.ts";
import { TestBrowser } from "./realtime-browser-client.ts";

export interface LiveApp extends Awaited<ReturnType<typeof buildTestApp>> {
  /** ws://127.0.0.1:<port>/api/calls/live?session_id=… */
  liveUrl(sessionId: string): string;
}

/** `deps.database` lets a test keep reading the database after `app.close()` (which closes the harness's own). */
export async function startLiveApp(fake: FakeRealtime, config: Record<string, string> = {}, deps: Partial<AppDeps> = {}): Promise<LiveApp> {
  const built = await buildTestApp({ config: { OPENAI_BASE_URL: fake.baseUrl, TOOL_ALLOWED_HOSTS: "127.0.0.1", WEBHOOK_ALLOWED_HOSTS: "127.0.0.1", ...config }, deps });
  await built.app.listen({ port: 0, host: "127.0.0.1" });
  const { port } = built.app.server.address() as AddressInfo;
  return { ...built, liveUrl: (sessionId) => `ws://127.0.0.1:${port}/api/calls/live?session_id=${encodeURIComponent(sessionId)}` };
}

export interface Caller {
  cookie: string;
  userId: string;
  /** The caller's own team (it takes the user's id). */
  organizationId: string;
}

/** A new user; with `apiKey`, their OpenAI key is stored through Settings' route. */
export async function signUpCaller(app: TestApp, apiKey?: string): Promise<Caller> {
  const { cookie, userId, organizationId } = await signUpAndLogIn(app);
  if (apiKey !== undefined) {
    const res = await app.inject({ method: "PUT", url: "/api/credentials/openai_api_key", headers: { cookie }, payload: { value: apiKey } });
    expect(res.statusCode, res.body).toBe(200);
  }
  return { cookie, userId, organizationId };
}

export async function createTool(app: TestApp, who: Caller, payload: Record<string, unknown>): Promise<{ id: string; name: string }> {
  const res = await app.inject({
    method: "POST",
    url: "/api/tools",
    headers: { cookie: who.cookie },
    payload: { type: "API", http_method: "GET", parameter_format: "standard", ...payload },
  });
  expect(res.statusCode, res.body).toBe(201);
  return res.json();
}

export async function createAssistant(app: TestApp, who: Caller, payload: Record<string, unknown> = {}): Promise<{ id: string; name: string }> {
  const res = await app.inject({
    method: "POST",
    url: "/api/assistants",
    headers: { cookie: who.cookie },
    payload: { name: "Ava", instructions: "You are Ava.", first_message: "Hello, this is Ava. How can I help?", ...payload },
  });
  expect(res.statusCode, res.body).toBe(201);
  return res.json();
}

export function requestTestSession(app: TestApp, who: Caller | null, body: unknown) {
  return app.inject({
    method: "POST",
    url: "/api/calls/test-session",
    headers: who ? { cookie: who.cookie } : {},
    payload: body as object,
  });
}

export async function sessionIdFor(app: TestApp, who: Caller, assistantId: string): Promise<string> {
  const res = await requestTestSession(app, who, { assistantId });
  expect(res.statusCode, res.body).toBe(200);
  return (res.json() as { session_id: string }).session_id;
}

/** The browser's socket: the session id in the query, the user's cookie on the upgrade. */
export function openLiveSocket(live: LiveApp, who: Caller | null, sessionId: string): Promise<TestBrowser> {
  return TestBrowser.connect(live.liveUrl(sessionId), { headers: who ? { cookie: who.cookie } : {} });
}
