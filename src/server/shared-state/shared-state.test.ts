import { randomBytes } from "node:crypto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { buildApp } from "../app.ts";
import { LOGIN_THROTTLE_DEFAULTS } from "../auth/login-throttle.ts";
import { freshDatabase, signUpAndLogIn, testConfig, type TestApp } from "../../../tests/harness.ts";
import type { Database } from "../db/client.ts";
import { DEMO_REQUESTS_PER_MINUTE } from "../modules/demo-requests/demo-requests.routes.ts";
import type { CounterStore } from "./counter-store.ts";
import { createPgCounterStore } from "./pg-counter-store.ts";
import { createRedisCounterStore } from "./redis-counter-store.ts";

const REDIS_URL = "redis://127.0.0.1:6379";
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
// Unique per run: Redis outlives the test, and keys must not meet a previous run's.
const unique = (name: string) => `${name}-${randomBytes(6).toString("hex")}`;

let database: Database;
beforeAll(async () => {
  database = await freshDatabase();
});
afterAll(() => database.close());

describe.each([
  ["PostgreSQL", () => createPgCounterStore(database)],
  ["Redis", () => createRedisCounterStore(REDIS_URL)],
] as const)("shared counters in %s", (_name, makeStore) => {
  // Two stores on one backend stand for two instances.
  let a: CounterStore;
  let b: CounterStore;
  beforeAll(() => {
    [a, b] = [makeStore(), makeStore()];
  });
  afterAll(async () => {
    await Promise.all([a.close(), b.close()]);
  });

  it("counts increments from both instances in one window, and starts again once it expires", async () => {
    const key = unique("count");
    expect(await a.get(key)).toBeNull();
    expect((await a.increment(key, 600)).count).toBe(1);
    const second = await b.increment(key, 600);
    expect(second.count).toBe(2);
    expect(second.resetInMs).toBeGreaterThan(0);
    expect(second.resetInMs).toBeLessThanOrEqual(600);
    expect(await a.get(key)).toMatchObject({ count: 2 });
    await sleep(700);
    expect(await b.get(key)).toBeNull();
    expect((await a.increment(key, 600)).count).toBe(1);
  });

  it("loses no increment when both instances count at once", async () => {
    const key = unique("race");
    await Promise.all(Array.from({ length: 20 }, (_, i) => (i % 2 ? a : b).increment(key, 10_000)));
    expect(await a.get(key)).toMatchObject({ count: 20 });
  });

  it("forgets a key on reset", async () => {
    const key = unique("reset");
    await a.increment(key, 10_000);
    await b.reset(key);
    expect(await a.get(key)).toBeNull();
  });

  it("lets exactly one instance consume a key until it expires", async () => {
    const key = unique("once");
    const results = await Promise.all([a.consumeOnce(key, 500), b.consumeOnce(key, 500), a.consumeOnce(key, 500)]);
    expect(results.filter(Boolean)).toHaveLength(1);
    expect(await b.consumeOnce(key, 500)).toBe(false);
    await sleep(600);
    expect(await b.consumeOnce(key, 500)).toBe(true);
  });
});

it("prunes expired PostgreSQL entries and keeps live ones", async () => {
  const store = createPgCounterStore(database);
  const [gone, kept] = [unique("gone"), unique("kept")];
  await store.increment(gone, 50);
  await store.increment(kept, 60_000);
  await sleep(100);
  expect(await store.prune()).toBeGreaterThanOrEqual(1);
  expect(await store.get(kept)).toMatchObject({ count: 1 });
  expect(await store.get(gone)).toBeNull();
});

/** Two apps on one database, each with its own store connection: two instances behind a balancer. */
async function withTwoApps(env: Record<string, string>, use: (apps: TestApp[]) => Promise<void>) {
  const shared = await freshDatabase();
  const apps = await Promise.all([0, 1].map(() => buildApp(testConfig(env), { database: shared })));
  try {
    await Promise.all(apps.map((app) => app.ready()));
    await use(apps);
  } finally {
    for (const app of apps) await app.close();
    await shared.close();
  }
}

// A client address of its own, so Redis keys from other runs never count.
const freshAddress = () => `10.${randomBytes(3).join(".")}`;

describe.each([
  ["PostgreSQL", {}],
  ["Redis", { REDIS_URL }],
] as const)("limits across two app instances (%s)", (_name, env) => {
  it(`refuses the ${DEMO_REQUESTS_PER_MINUTE + 1}th demo request of a minute, whichever instance receives it`, async () => {
    await withTwoApps(env, async (apps) => {
      const address = freshAddress();
      const send = (i: number) => apps[i % 2]!.inject({ method: "POST", url: "/api/demo-requests", payload: {}, remoteAddress: address });
      const statuses: number[] = [];
      for (let i = 0; i <= DEMO_REQUESTS_PER_MINUTE; i++) statuses.push((await send(i)).statusCode);
      // Invalid bodies (400) still count: the limit runs before validation.
      expect(statuses.slice(0, DEMO_REQUESTS_PER_MINUTE)).toEqual(Array(DEMO_REQUESTS_PER_MINUTE).fill(400));
      const refused = await send(1);
      expect(statuses.at(-1)).toBe(429);
      expect(refused.statusCode).toBe(429);
      expect(refused.json()).toMatchObject({ error: { code: "rate_limited" } });
    });
  });

  it("the login throttle counts failures made on both", async () => {
    await withTwoApps(env, async (apps) => {
      const { email, password } = await signUpAndLogIn(apps[0]!);
      const [guesser, owner] = [freshAddress(), freshAddress()];
      const signIn = (i: number, pass: string, remoteAddress = guesser) =>
        apps[i % 2]!.inject({ method: "POST", url: "/api/auth/sign-in/email", payload: { email, password: pass }, remoteAddress });
      const statuses: number[] = [];
      for (let i = 0; i < LOGIN_THROTTLE_DEFAULTS.pair.free; i++) statuses.push((await signIn(i, `guess-${i}`)).statusCode);
      expect(statuses).toEqual(Array(LOGIN_THROTTLE_DEFAULTS.pair.free).fill(401));
      // Neither instance lets the guesser try again yet, not even with the right password.
      for (const i of [0, 1]) {
        const refused = await signIn(i, password);
        expect(refused.statusCode).toBe(429);
        expect(refused.json().error.code).toBe("rate_limited");
        expect(refused.json().error.message).toMatch(/^Too many failed login attempts\. Please try again in \d+ seconds\.$/);
        expect(Number(refused.headers["retry-after"])).toBeGreaterThan(25);
      }
      // The owner, from their own address, gets in on either.
      for (const i of [0, 1]) expect((await signIn(i, password, owner)).statusCode).toBe(200);
    });
  });
});
