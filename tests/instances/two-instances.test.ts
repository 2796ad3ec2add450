/**
 * Two real server processes on one fresh PostgreSQL database, sharing S3 storage (a real local
 * S3-compatible server) and the fake OpenAI Realtime server: what a deployment behind a load
 * balancer relies on. Short leases keep it quick.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { callRecordSchema, type CallRecord } from "../../src/shared/call-records.ts";
import { LOGIN_THROTTLE_DEFAULTS } from "../../src/server/auth/login-throttle.ts";
import { ORPHANED_CALL_REASON } from "../../src/server/instances/instance-lease.ts";
import { DEMO_REQUESTS_PER_MINUTE } from "../../src/server/modules/demo-requests/demo-requests.routes.ts";
import { startFakeRealtime, type FakeRealtime } from "../fakes/fake-realtime.ts";
import { TestBrowser } from "../fakes/realtime-browser-client.ts";
import { startLocalS3, type LocalS3 } from "../fakes/s3-server.ts";
import { startServerProcess, type ServerProcess } from "../fakes/server-process.ts";
import { closeInOrder } from "../close.ts";
import { fetchPost, newAccount, signUp } from "../sign-up.ts";
import { createScratchDatabase, dropScratchDatabase, killServers, type ScratchDatabase } from "./scratch-database.ts";

const LEASE_MS = 1500;
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

let database: ScratchDatabase;
let fake: FakeRealtime;
let s3: LocalS3;
let env: Record<string, string>;
const servers: ServerProcess[] = [];

beforeAll(async () => {
  database = await createScratchDatabase("switchboard_instances");
  fake = await startFakeRealtime({ apiKey: "sk-two-instances" });
  s3 = await startLocalS3();
  env = {
    DATABASE_URL: database.url,
    APP_SECRET: "two-instances-secret-0123456789abcdef0123",
    OPENAI_BASE_URL: fake.baseUrl,
    INSTANCE_LEASE_MS: String(LEASE_MS),
    DRAIN_TIMEOUT_MS: "2000",
    ...s3.env,
  };
}, 60_000);

afterAll(async () => {
  await killServers(servers);
  await closeInOrder(fake, s3);
  await dropScratchDatabase(database);
});

async function start(): Promise<ServerProcess> {
  const server = await startServerProcess(env);
  servers.push(server);
  return server;
}

async function api(server: ServerProcess, path: string, init: { method?: string; cookie?: string; body?: unknown } = {}) {
  const res = await fetch(`${server.origin}${path}`, {
    method: init.method ?? "GET",
    // Origin as a browser on the page sends it: the auth library refuses a POST without one.
    headers: { origin: server.origin, ...(init.cookie ? { cookie: init.cookie } : {}), ...(init.body !== undefined ? { "content-type": "application/json" } : {}) },
    body: init.body === undefined ? undefined : JSON.stringify(init.body),
  });
  return res;
}

async function json<T>(res: Response, status = 200): Promise<T> {
  const text = await res.text();
  expect(res.status, text).toBe(status);
  return JSON.parse(text) as T;
}


async function openCall(server: ServerProcess, cookie: string, sessionId: string): Promise<TestBrowser> {
  const url = `${server.origin.replace("http:", "ws:")}/api/calls/live?session_id=${encodeURIComponent(sessionId)}`;
  return TestBrowser.connect(url, { headers: { cookie } });
}

const responsesDone = (b: TestBrowser) => b.statuses().filter((s) => s === "Assistant finished responding").length;

async function callRecord(server: ServerProcess, cookie: string, id: string): Promise<CallRecord> {
  return callRecordSchema.parse(await json(await api(server, `/api/calls/${id}`, { cookie })));
}

describe("two instances on one PostgreSQL", () => {
  it("share calls, tokens, limits and recordings, and close only a dead instance's calls", async () => {
    const one = await start();
    const { cookie, email, password } = await signUp(fetchPost(one.origin), newAccount("Grace Hopper", "ops-"));
    await json(await api(one, "/api/credentials/openai_api_key", { method: "PUT", cookie, body: { value: fake.apiKey } }));
    const assistant = await json<{ id: string }>(
      await api(one, "/api/assistants", { method: "POST", cookie, body: { name: "Ava", instructions: "You are Ava.", first_message: "Hello, this is Ava. How can I help?" } }),
      201,
    );
    const newSession = async (server: ServerProcess) =>
      (await json<{ session_id: string }>(await api(server, "/api/calls/test-session", { method: "POST", cookie, body: { assistantId: assistant.id } }))).session_id;

    // Call A on instance 1, ended normally: its recording goes to the shared bucket.
    const sessionA = await newSession(one);
    const callA = await openCall(one, cookie, sessionA);
    await callA.until(() => responsesDone(callA) >= 1 && callA.of("started").length > 0, "greeting of call A");
    const callAId = callA.of("started")[0]!.callId;
    callA.end();
    await callA.untilClosed();

    // Call B on instance 1 stays live; its greeting (a finished turn) is saved as it goes.
    const callB = await openCall(one, cookie, await newSession(one));
    await callB.until(() => responsesDone(callB) >= 1 && callB.of("started").length > 0, "greeting of call B");
    const callBId = callB.of("started")[0]!.callId;
    await expect.poll(async () => (await callRecord(one, cookie, callBId)).logs?.transcript?.length ?? 0).toBeGreaterThan(0);

    // Instance 2 starts: call B is not closed by its start, nor by its sweeps over two leases.
    const two = await start();
    expect(two.instanceId).not.toBe(one.instanceId);
    expect((await callRecord(two, cookie, callBId)).end_time).toBeNull();
    await sleep(2 * LEASE_MS);
    expect((await callRecord(two, cookie, callBId)).end_time).toBeNull();
    expect(callB.closed).toBeNull();

    // A session id used on instance 1 is refused on instance 2.
    const replay = await openCall(two, cookie, sessionA);
    await replay.untilClosed();
    expect(replay.closed).toEqual({ code: 4401, reason: "Call session already used" });

    // The recording written through instance 1 plays through instance 2 (its own DATA_DIR is empty).
    const recordA = await callRecord(two, cookie, callAId);
    expect(recordA.recording_url).toMatch(/^\/api\/media\/recordings\//);
    const audio = await fetch(`${two.origin}${recordA.recording_url}`);
    expect(audio.status).toBe(200);
    expect(audio.headers.get("content-type")).toBe("audio/wav");
    const wav = Buffer.from(await audio.arrayBuffer());
    expect(wav.subarray(0, 4).toString()).toBe("RIFF");
    expect(wav.length).toBeGreaterThan(44);

    // The demo-request limit counts requests to both instances together.
    const statuses: number[] = [];
    for (let i = 0; i <= DEMO_REQUESTS_PER_MINUTE; i++) statuses.push((await api(i % 2 ? two : one, "/api/demo-requests", { method: "POST", body: {} })).status);
    expect(statuses).toEqual([...Array(DEMO_REQUESTS_PER_MINUTE).fill(400), 429]);

    // The login throttle counts failures made on both: the free wrong passwords spread over the
    // two, then neither lets this address try again, not even with the right password.
    const signIn = (server: ServerProcess, pass: string) => api(server, "/api/auth/sign-in/email", { method: "POST", body: { email, password: pass } });
    const failures: number[] = [];
    for (let i = 0; i < LOGIN_THROTTLE_DEFAULTS.pair.free; i++) failures.push((await signIn(i % 2 ? two : one, `guess-${i}`)).status);
    expect(failures).toEqual(Array(LOGIN_THROTTLE_DEFAULTS.pair.free).fill(401));
    expect((await signIn(one, password)).status).toBe(429);
    expect((await signIn(two, password)).status).toBe(429);

    // Instance 1 dies without a word: instance 2 closes its call once the lease lapses,
    // keeping the transcript saved so far.
    const transcriptBefore = (await callRecord(two, cookie, callBId)).logs?.transcript;
    one.kill("SIGKILL");
    expect(await one.exited).toBeNull();
    await expect.poll(async () => (await callRecord(two, cookie, callBId)).end_time, { timeout: 6 * LEASE_MS, interval: 100 }).not.toBeNull();
    const orphan = await callRecord(two, cookie, callBId);
    expect(orphan.ended_reason).toBe(ORPHANED_CALL_REASON);
    expect(orphan.logs?.transcript).toEqual(transcriptBefore);
    expect(orphan.logs?.transcript?.map((e) => e.content)).toContain("Hello, this is Ava. How can I help?");
    // Call A, finished before, is untouched.
    expect((await callRecord(two, cookie, callAId)).ended_reason).toBe("User ended call");

    // A planned stop of instance 2: health turns 503 while draining, and the process exits cleanly.
    expect((await api(two, "/api/health")).status).toBe(200);
    two.kill("SIGTERM");
    expect(await two.exited).toBe(0);
  }, 120_000);
});
