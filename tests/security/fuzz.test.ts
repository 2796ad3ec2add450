import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { calls } from "../../src/server/db/schema.ts";
import type { Db } from "../../src/server/db/client.ts";
import { startToolUpstream, type ToolUpstream } from "../fakes/tool-upstream.ts";
import { buildTestApp, signUpAndLogIn, type TestApp } from "../harness.ts";
import { badInputs, seededRandom } from "./bad-inputs.ts";
import { JSON_ROUTES, type Fixtures } from "./route-table.ts";
import { changedTables, snapshot } from "./snapshot.ts";

/**
 * Issue 9: every JSON route, auth included, answers a fixed, seeded set of bad inputs with a 4xx
 * in the error shape `{ error: { code, message } }`, and stores nothing.
 */
const SEED = 9;

let upstream: ToolUpstream;
let app: TestApp;
let db: Db;
let cookie: string;
let fixtures: Fixtures;
const figures: { route: string; tried: number; answered5xx: number; wrongShape: number; stored: number }[] = [];

beforeAll(async () => {
  upstream = await startToolUpstream();
  ({ app, db } = await buildTestApp({ config: { TOOL_ALLOWED_HOSTS: "127.0.0.1" } }));
  const user = await signUpAndLogIn(app);
  cookie = user.cookie;
  const upstreamUrl = `${upstream.origin}/echo`;
  const tool = await app.inject({ method: "POST", url: "/api/tools", headers: { cookie }, payload: JSON_ROUTES["create tool"]!.valid({ upstreamUrl } as Fixtures) });
  const assistant = await app.inject({ method: "POST", url: "/api/assistants", headers: { cookie }, payload: { name: "Fuzz target" } });
  const [call] = await db.insert(calls).values({ userId: user.userId, assistantName: "Fuzz target" }).returning();
  fixtures = { toolId: tool.json().id, assistantId: assistant.json().id, callId: call!.id, upstreamUrl };
});

afterAll(async () => {
  const total = figures.reduce((t, f) => ({ tried: t.tried + f.tried, answered5xx: t.answered5xx + f.answered5xx }), { tried: 0, answered5xx: 0 });
  console.log(`\nFuzz (seed ${SEED}): bad inputs tried ${total.tried} / answered 5xx ${total.answered5xx}`);
  console.table(figures);
  await app?.close();
  await upstream?.close();
});

let address = 0;
// A fresh client address per request: per-address limits (demo requests, logins) must not turn
// a bad input into a 429 that hides how the route itself answers it.
const nextAddress = () => `10.99.${(++address >> 8) & 255}.${address & 255}`;

describe("fuzz: bad inputs to every JSON route", () => {
  for (const [name, route] of Object.entries(JSON_ROUTES)) {
    it(`${route.method} ${name}: no 5xx, the error shape, nothing stored`, async () => {
      const random = seededRandom(SEED + name.length);
      const cases = badInputs(route.valid(fixtures), route.required, random, route.badIdPath);
      const failures: string[] = [];
      const row = { route: `${route.method} ${name}`, tried: cases.length, answered5xx: 0, wrongShape: 0, stored: 0 };
      for (const bad of cases) {
        const before = await snapshot(db);
        const res = await app.inject({
          method: route.method,
          url: bad.path ?? route.path(fixtures),
          remoteAddress: nextAddress(),
          headers: {
            ...(route.auth ? { cookie } : {}),
            origin: app.ctx.config.publicUrl,
            "content-type": bad.contentType ?? "application/json",
          },
          ...(bad.payload === undefined ? {} : { payload: bad.payload }),
        });
        const body = (() => {
          try {
            return res.json() as { error?: { code?: unknown; message?: unknown } };
          } catch {
            return null;
          }
        })();
        const shapeOk = typeof body?.error?.code === "string" && typeof body.error.message === "string" && body.error.message.length > 0;
        const changed = changedTables(before, await snapshot(db));
        if (res.statusCode >= 500) row.answered5xx++;
        if (!shapeOk) row.wrongShape++;
        if (changed.length) row.stored++;
        if (res.statusCode >= 500 || res.statusCode < 400 || !shapeOk || changed.length) {
          failures.push(`${bad.label}: ${res.statusCode} ${res.body.slice(0, 160)}${changed.length ? ` (changed ${changed.join(", ")})` : ""}`);
        }
      }
      figures.push(row);
      expect(failures).toEqual([]);
    }, 120_000);
  }
});
