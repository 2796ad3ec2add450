/**
 * The real app on a real port with the fake OpenAI behind it, for live-call tests: a signed-in
 * user with a stored key, an assistant (and tools), a test-session id, and a browser socket on
 * WS /api/calls/live carrying that user's cookie.
 */
import type { AddressInfo } from "node:net";
import { afterAll, beforeAll, expect } from "vitest";
import type { AppDeps } from "../../src/server/app.ts";
import type { Database } from "../../src/server/db/client.ts";
import { closeInOrder } from "../close.ts";
import { buildTestApp, freshDatabase, signUpAndLogIn, type TestApp, expectBody } from "../harness.ts";
import { startFakeRealtime, type FakeRealtime } from "./fake-realtime.ts";
import { TestBrowser } from "./realtime-browser-client.ts";

export interface LiveApp extends Awaited<ReturnType<typeof buildTestApp>> {
  /** ws://127.0.0.1:<port>/api/calls/live?session_id=… */
  liveUrl(sessionId: string): string;
  /** ws://127.0.0.1:<port>: where the live board's and a watched call's sockets open. */
  wsOrigin: string;
}

/** `deps.database` lets a test keep reading the database after `app.close()` (which closes the harness's own). */
export async function startLiveApp(fake: FakeRealtime, config: Record<string, string> = {}, deps: Partial<AppDeps> = {}): Promise<LiveApp> {
  const built = await buildTestApp({ config: { OPENAI_BASE_URL: fake.baseUrl, TOOL_ALLOWED_HOSTS: "127.0.0.1", WEBHOOK_ALLOWED_HOSTS: "127.0.0.1", ...config }, deps });
  await built.app.listen({ port: 0, host: "127.0.0.1" });
  const { port } = built.app.server.address() as AddressInfo;
  const wsOrigin = `ws://127.0.0.1:${port}`;
  return { ...built, wsOrigin, liveUrl: (sessionId) => `${wsOrigin}/api/calls/live?session_id=${encodeURIComponent(sessionId)}` };
}

/** The fake OpenAI server and the app on it. */
export interface LiveFile {
  fake: FakeRealtime;
  live: LiveApp;
}

/**
 * What most live-socket test files start from, made before the file's first test and closed after
 * its last (like `useTestApp`): `const file = setUpLiveApp("sk-…")`, then `file.live` in tests.
 */
export function setUpLiveApp(apiKey: string, config: Record<string, string> = {}, deps: Partial<AppDeps> = {}): LiveFile {
  const file = {} as LiveFile;
  beforeAll(async () => {
    file.fake = await startFakeRealtime({ apiKey });
    file.live = await startLiveApp(file.fake, config, deps);
  });
  afterAll(() => closeInOrder(file.live?.app, file.fake));
  return file;
}

/** `setUpLiveApp` with an owner who stored the key and made an assistant (`assistant` overrides its fields). */
export function setUpLiveOwner(
  apiKey: string,
  /** The assistant's fields, or what makes them once the owner exists (e.g. the owner's tools). */
  assistant: Record<string, unknown> | ((live: LiveApp, owner: Caller) => Promise<Record<string, unknown>>) = {},
  config: Record<string, string> = {},
): LiveFile & { owner: Caller; assistantId: string } {
  const file = setUpLiveApp(apiKey, config) as LiveFile & { owner: Caller; assistantId: string };
  beforeAll(async () => {
    file.owner = await signUpCaller(file.live.app, apiKey);
    const fields = typeof assistant === "function" ? await assistant(file.live, file.owner) : assistant;
    file.assistantId = (await createAssistant(file.live.app, file.owner, fields)).id;
  });
  return file;
}

/** Two instances (apps) on one database, as two workers or two machines, on one fake OpenAI server. */
export interface TwoInstances {
  fake: FakeRealtime;
  /** The file's own, so that it outlives both apps (an app leaves a database it was given open). */
  database: Database;
  a: LiveApp;
  b: LiveApp;
}

/** Made before the file's first test and closed after its last, like `setUpLiveOwner`. */
export function setUpTwoInstances(apiKey: string): TwoInstances {
  const file = {} as TwoInstances;
  beforeAll(async () => {
    file.fake = await startFakeRealtime({ apiKey });
    file.database = await freshDatabase();
    file.a = await startLiveApp(file.fake, {}, { database: file.database });
    file.b = await startLiveApp(file.fake, {}, { database: file.database });
  });
  afterAll(() => closeInOrder(file.b?.app, file.a?.app, file.database, file.fake));
  return file;
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

/** POSTs `payload` to `url` as `who` and expects the 201 with the created row. */
async function created(app: TestApp, who: Caller, url: string, payload: Record<string, unknown>): Promise<{ id: string; name: string }> {
  return expectBody(await app.inject({ method: "POST", url, headers: { cookie: who.cookie }, payload }), 201);
}

export const createTool = (app: TestApp, who: Caller, payload: Record<string, unknown>) =>
  created(app, who, "/api/tools", { type: "API", http_method: "GET", parameter_format: "standard", ...payload });

export const createAssistant = (app: TestApp, who: Caller, payload: Record<string, unknown> = {}) =>
  created(app, who, "/api/assistants", { name: "Ava", instructions: "You are Ava.", first_message: "Hello, this is Ava. How can I help?", ...payload });

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
export function openLiveSocket(live: Pick<LiveApp, "liveUrl">, who: Caller | null, sessionId: string): Promise<TestBrowser> {
  return TestBrowser.connect(live.liveUrl(sessionId), { headers: who ? { cookie: who.cookie } : {} });
}
