import { describe, expect, it } from "vitest";
import { useTestApp } from "../../../tests/harness.ts";
import { API_KEY_REQUESTS_PER_MINUTE } from "../../shared/api-keys.ts";
import { API_VERSION } from "../../shared/api-version.ts";
import { CALLS_STATS_PER_MINUTE } from "../modules/calls/calls-history.routes.ts";

/** What every answer tells a client about the limits it works under and the API version it speaks. */
const file = useTestApp({ users: ["Ada"] });

describe("API headers", () => {
  it("sends RateLimit-Limit, -Remaining and -Reset on every answer to an API key, counting down", async () => {
    const key = (await file.as(file.users.Ada).post("/api/api-keys", { name: "CRM" })).json().key as string;
    const get = (url: string) => file.app.inject({ method: "GET", url, headers: { authorization: `Bearer ${key}` } });
    const first = await get("/api/assistants");
    const second = await get("/api/assistants/not-an-id");
    expect(second.statusCode).toBe(404);
    for (const res of [first, second]) {
      expect(res.headers["ratelimit-limit"]).toBe(String(API_KEY_REQUESTS_PER_MINUTE));
      expect(Number(res.headers["ratelimit-reset"])).toBeGreaterThan(0);
      expect(Number(res.headers["ratelimit-reset"])).toBeLessThanOrEqual(60);
    }
    expect(Number(second.headers["ratelimit-remaining"])).toBe(Number(first.headers["ratelimit-remaining"]) - 1);
  });

  it("sends them on a route with its own limit for a signed-in session too", async () => {
    const res = await file.as(file.users.Ada).get("/api/calls/stats");
    expect(res.statusCode, res.body).toBe(200);
    expect(res.headers["ratelimit-limit"]).toBe(String(CALLS_STATS_PER_MINUTE));
    expect(Number(res.headers["ratelimit-remaining"])).toBeLessThan(CALLS_STATS_PER_MINUTE);
  });

  it("names the API version on every /api answer, errors included, and in the reference", async () => {
    for (const [url, who] of [["/api/assistants", file.users.Ada], ["/api/nope", null], ["/api/assistants", null]] as const) {
      const res = await file.as(who).get(url);
      expect(res.headers["api-version"], url).toBe(API_VERSION);
    }
    const doc = (await file.as(null).get("/api/openapi.json")).json() as { info: { version: string } };
    expect(doc.info.version).toBe(API_VERSION);
  });
});
