import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { freshDatabase } from "../../../../tests/harness.ts";
import type { Database } from "../../db/client.ts";
import { createPgCounterStore } from "../../shared-state/pg-counter-store.ts";
import { createRedisCounterStore } from "../../shared-state/redis-counter-store.ts";
import type { CounterStore } from "../../shared-state/index.ts";
import { CALL_TOKEN_TTL_MS, createCallTokens as createWithStore } from "./call-tokens.ts";

const SECRET = "call-token-test-secret-0123456789abcdef";
// Near the real clock: used nonces are kept for the token's remaining life by the store's clock.
const T0 = Date.now();

let database: Database;
let counters: CounterStore;
const createCallTokens = (secret: string) => createWithStore(secret, { counters });

beforeAll(async () => {
  database = await freshDatabase();
  counters = createPgCounterStore(database);
});
afterAll(() => database.close());

describe("call session tokens", () => {
  it("are accepted once, for their user, within 60 s", async () => {
    const tokens = createCallTokens(SECRET);
    const token = tokens.issue("user-1", "asst-1", T0);
    expect(await tokens.redeem(token, "user-2", T0 + 1)).toEqual({ ok: false, reason: "wrong_user" });
    const first = await tokens.redeem(token, "user-1", T0 + CALL_TOKEN_TTL_MS - 1);
    expect(first).toMatchObject({ ok: true, claims: { organizationId: "user-1", assistantId: "asst-1", expiresAt: T0 + CALL_TOKEN_TTL_MS } });
    expect(await tokens.redeem(token, "user-1", T0 + 2)).toEqual({ ok: false, reason: "used" });
  });

  it("expire at 60 s", async () => {
    const tokens = createCallTokens(SECRET);
    expect(await tokens.redeem(tokens.issue("u", "a", T0), "u", T0 + CALL_TOKEN_TTL_MS)).toEqual({ ok: false, reason: "expired" });
  });

  it("verify on another instance with the same APP_SECRET, and not with another secret", async () => {
    const token = createCallTokens(SECRET).issue("u", "a", T0);
    expect((await createCallTokens(SECRET).redeem(token, "u", T0 + 1)).ok).toBe(true);
    expect(await createCallTokens(`${SECRET}-rotated`).redeem(token, "u", T0 + 1)).toEqual({ ok: false, reason: "bad_signature" });
  });

  it("refuse edited claims and anything that is not a token", async () => {
    const tokens = createCallTokens(SECRET);
    const [payload, mac] = tokens.issue("u", "a", T0).split(".");
    const claims = JSON.parse(Buffer.from(payload!, "base64url").toString()) as Record<string, unknown>;
    const forged = `${Buffer.from(JSON.stringify({ ...claims, c: { u: "someone-else", a: "a" } })).toString("base64url")}.${mac}`;
    expect(await tokens.redeem(forged, "someone-else", T0 + 1)).toEqual({ ok: false, reason: "bad_signature" });
    for (const junk of [undefined, "", "abc", `${payload}.short`, ["a", "b"], 42]) {
      expect(await tokens.redeem(junk, "u", T0 + 1)).toEqual({ ok: false, reason: "malformed" });
    }
  });
});

describe.each([
  ["PostgreSQL", () => createPgCounterStore(database)],
  ["Redis", () => createRedisCounterStore("redis://127.0.0.1:6379")],
])("call session tokens across instances (%s)", (_name, makeStore) => {
  it("are refused on a second instance once redeemed on the first, even when both try at once", async () => {
    const [storeA, storeB] = [makeStore(), makeStore()];
    try {
      const instanceA = createWithStore(SECRET, { counters: storeA });
      const instanceB = createWithStore(SECRET, { counters: storeB });
      const token = instanceA.issue("u", "a");
      expect((await instanceA.redeem(token, "u")).ok).toBe(true);
      expect(await instanceB.redeem(token, "u")).toEqual({ ok: false, reason: "used" });

      const raced = instanceB.issue("u", "a");
      const results = await Promise.all([instanceA.redeem(raced, "u"), instanceB.redeem(raced, "u"), instanceA.redeem(raced, "u")]);
      expect(results.filter((r) => r.ok)).toHaveLength(1);
    } finally {
      await Promise.all([storeA.close(), storeB.close()]);
    }
  });
});
