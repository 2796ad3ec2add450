import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { freshDatabase } from "../../../../tests/harness.ts";
import type { Database } from "../../db/client.ts";
import { createPgCounterStore } from "../../shared-state/pg-counter-store.ts";
import { createStreamTokens, STREAM_TOKEN_TTL_MS, type StreamClaims } from "./stream-tokens.ts";

let database: Database;
beforeAll(async () => {
  database = await freshDatabase();
});
afterAll(() => database.close());

const claims: StreamClaims = { numberId: "n-1", callSid: "CA1", from: "+15559876", to: "+15550100", callId: "" };

describe("stream tokens", () => {
  it("read their claims without being used up (so the stream's lookups start at once); only redeem makes one good, once", async () => {
    const tokens = createStreamTokens("stream-token-test-secret-0123456789", createPgCounterStore(database));
    const now = Date.now();
    const token = tokens.issue(claims, now);
    expect(tokens.verify(token, now + 1)).toEqual(claims);
    expect(tokens.verify(token, now + 2)).toEqual(claims);
    expect(await tokens.redeem(token, now + 3)).toMatchObject({ ok: true, claims });
    expect(await tokens.redeem(token, now + 4)).toEqual({ ok: false, reason: "used" });

    // Forged, from another secret, malformed or expired: nothing to read.
    const [payload] = token.split(".");
    expect(tokens.verify(`${payload}.${"A".repeat(43)}`, now)).toBeNull();
    expect(tokens.verify(createStreamTokens("another-secret-0123456789abcdefgh", createPgCounterStore(database)).issue(claims, now), now)).toBeNull();
    expect(tokens.verify("not-a-token", now)).toBeNull();
    expect(tokens.verify(undefined, now)).toBeNull();
    expect(tokens.verify(tokens.issue(claims, now), now + STREAM_TOKEN_TTL_MS)).toBeNull();
  });
});
