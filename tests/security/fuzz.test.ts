import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Db } from "../../src/server/db/client.ts";
import { startToolUpstream, type ToolUpstream } from "../fakes/tool-upstream.ts";
import { startFakeTwilioRest, type FakeTwilioRest } from "../fakes/twilio-rest.ts";
import { buildTestApp, signUpAndLogIn, type TestApp } from "../harness.ts";
import type { RouteOptions } from "fastify";
import { seededRandom } from "../seeded-random.ts";
import { badInputs, OUT_OF_BOUNDS_DATES, OUT_OF_RANGE_INTEGERS } from "./bad-inputs.ts";
import { ownedResources } from "./fixtures.ts";
import { JSON_ROUTES, QUERY_ROUTES, type Fixtures } from "./route-table.ts";
import { changedTables, snapshot } from "./snapshot.ts";

/**
 * Every JSON route, auth included, answers a fixed, seeded set of bad inputs with a 4xx
 * in the error shape `{ error: { code, message } }`, and stores nothing.
 */
const SEED = 9;

let upstream: ToolUpstream;
let twilio: FakeTwilioRest;
let app: TestApp;
let db: Db;
let cookie: string;
let fixtures: Fixtures;
/** Every route the app registered, as it registered them (for the path walk). */
const registered: RouteOptions[] = [];
const figures: { route: string; tried: number; answered5xx: number; wrongShape: number; stored: number }[] = [];

beforeAll(async () => {
  upstream = await startToolUpstream();
  // A real Twilio account at the fake: a bad input that slipped through would really buy or re-point a number.
  twilio = await startFakeTwilioRest();
  ({ app, db } = await buildTestApp({ config: { TOOL_ALLOWED_HOSTS: "127.0.0.1", WEBHOOK_ALLOWED_HOSTS: "127.0.0.1", TWILIO_API_BASE: twilio.baseUrl }, deps: { onRoute: (route) => void registered.push(route) } }));
  const user = await signUpAndLogIn(app);
  cookie = user.cookie;
  const upstreamUrl = `${upstream.origin}/echo`;
  fixtures = await ownedResources(app, twilio, user, {
    upstreamUrl,
    tool: JSON_ROUTES["create tool"]!.valid({ upstreamUrl } as Fixtures),
    assistant: { name: "Fuzz target" },
  });
  const campaign = await app.inject({
    method: "POST",
    url: "/api/campaigns",
    headers: { cookie, origin: app.ctx.config.publicUrl },
    payload: {
      name: "Fuzz campaign",
      assistant_id: fixtures.assistantId,
      phone_number_id: fixtures.phoneNumberId,
      max_concurrent_calls: 1,
      schedule: { timezone: "UTC", windows: [{ days: [1, 2, 3, 4, 5, 6, 7], start: "09:00", end: "17:00" }] },
    },
  });
  if (campaign.statusCode !== 201) throw new Error(`the fuzz's campaign: ${campaign.statusCode} ${campaign.body}`);
  fixtures.campaignId = (campaign.json() as { id: string }).id;
});

afterAll(async () => {
  const total = figures.reduce((t, f) => ({ tried: t.tried + f.tried, answered5xx: t.answered5xx + f.answered5xx }), { tried: 0, answered5xx: 0 });
  console.log(`\nFuzz (seed ${SEED}): bad inputs tried ${total.tried} / answered 5xx ${total.answered5xx}`);
  console.table(figures);
  await app?.close();
  await upstream?.close();
  await twilio?.close();
});

let address = 0;
// A fresh client address per request: per-address limits (demo requests, logins) must not turn
// a bad input into a 429 that hides how the route itself answers it.
const nextAddress = () => `10.99.${(++address >> 8) & 255}.${address & 255}`;

const errorShapeOk = (text: string) => {
  try {
    const body = JSON.parse(text) as { error?: { code?: unknown; message?: unknown } };
    return typeof body?.error?.code === "string" && typeof body.error.message === "string" && body.error.message.length > 0;
  } catch {
    return false;
  }
};

/** Bad values for one query parameter, already URL-encoded (as a client could send them). */
const BAD_QUERY_VALUES: Record<string, string> = {
  "U+0000": "a%00b",
  "lone surrogate (CESU bytes)": "x%ED%A0%80y",
  "invalid UTF-8": "x%C3%28y",
  "10 KB": "z".repeat(10_000),
  "a number too big": "123456789012345678901234567890",
  "not a date": "2026-13-45T99:99:99Z",
  "SQL-looking": "1'%20OR%20'1'%3D'1",
  "a zone that does not exist": "Mars%2FOlympus_Mons",
  ...Object.fromEntries(OUT_OF_RANGE_INTEGERS.map((n) => [`out-of-range integer ${n}`, n])),
  ...Object.fromEntries(OUT_OF_BOUNDS_DATES.map((d) => [`out-of-bounds date ${d}`, encodeURIComponent(d)])),
  "out-of-bounds day 9999-12-31": "9999-12-31",
};

describe("fuzz: bad inputs to every JSON route", () => {
  for (const [name, route] of Object.entries(JSON_ROUTES)) {
    it(`${route.method} ${name}: no 5xx, the error shape, nothing stored`, async () => {
      const random = seededRandom(SEED + name.length);
      const cases = badInputs(route.valid(fixtures), route.required, random, route.badIdPath, route.longText);
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

describe("fuzz: bad query strings to every filtered GET route", () => {
  for (const [name, route] of Object.entries(QUERY_ROUTES)) {
    it(`GET ${name}: typed parameters refused with a 4xx, free text never a 5xx, nothing stored`, async () => {
      const valid = route.valid(fixtures);
      const path = typeof route.path === "string" ? route.path : route.path(fixtures);
      const query = (params: Record<string, string>) => Object.entries(params).map(([k, v]) => `${k}=${v}`).join("&");
      const encoded = Object.fromEntries(Object.entries(valid).map(([k, v]) => [k, encodeURIComponent(v)]));
      const ok = await app.inject({ method: "GET", url: `${path}?${query(encoded)}`, headers: { cookie } });
      expect(ok.statusCode, ok.body).toBe(200);
      const cases: { label: string; url: string; typed: boolean }[] = [];
      for (const key of [...route.typed, ...route.text]) {
        const typed = route.typed.includes(key);
        for (const [label, value] of Object.entries(BAD_QUERY_VALUES)) {
          cases.push({ label: `${key}: ${label}`, url: `${path}?${query({ ...encoded, [key]: value })}`, typed });
        }
        // Sent twice, the parameter arrives as a list.
        cases.push({ label: `${key}: repeated`, url: `${path}?${query(encoded)}&${key}=${encoded[key] ?? "x"}`, typed });
      }
      // A range must run forwards: reversed, or from and to the same instant, it holds nothing.
      if (valid.from !== undefined && valid.to !== undefined) {
        const at = encodeURIComponent("2026-06-01T00:00:00Z");
        cases.push({ label: "inverted range", url: `${path}?${query({ ...encoded, from: encoded.to!, to: encoded.from! })}`, typed: true });
        cases.push({ label: "empty range (from = to)", url: `${path}?${query({ ...encoded, from: at, to: at })}`, typed: true });
      }
      const failures: string[] = [];
      const row = { route: `GET ${name}`, tried: cases.length, answered5xx: 0, wrongShape: 0, stored: 0 };
      for (const bad of cases) {
        const before = await snapshot(db);
        const res = await app.inject({ method: "GET", url: bad.url, headers: { cookie } });
        const changed = changedTables(before, await snapshot(db));
        const refused = res.statusCode >= 400 && res.statusCode < 500;
        const shapeOk = !refused || errorShapeOk(res.body);
        if (res.statusCode >= 500) row.answered5xx++;
        if (!shapeOk) row.wrongShape++;
        if (changed.length) row.stored++;
        if (res.statusCode >= 500 || !shapeOk || changed.length || (bad.typed && !refused) || (!refused && res.statusCode !== 200)) {
          failures.push(`${bad.label}: ${res.statusCode} ${res.body.slice(0, 160)}${changed.length ? ` (changed ${changed.join(", ")})` : ""}`);
        }
      }
      figures.push(row);
      expect(failures).toEqual([]);
    }, 120_000);
  }
});

/** Values for a path parameter that name nothing and must never reach a query as they are. */
const BAD_PATH_VALUES = ["%00", "a%00b", ...OUT_OF_RANGE_INTEGERS, "99999999999999999999", "1e400", "9999-12-31"];

describe("fuzz: bad path parameters to every route", () => {
  it("answers each with a 4xx in the error shape (or a 2xx for a path that is free text), never a 5xx, and stores nothing", async () => {
    const routes = registered.flatMap((route) =>
      [route.method].flat().flatMap((method) => {
        // Sockets and Twilio's signed callbacks have suites of their own; HEAD mirrors GET.
        if (method === "HEAD" || method === "OPTIONS" || !route.url.includes(":") || route.url.includes("*") || (route as { websocket?: boolean }).websocket) return [];
        return [{ method: method as "GET" | "POST" | "PUT" | "PATCH" | "DELETE", url: route.url }];
      }),
    );
    expect(routes.length).toBeGreaterThan(30);
    const failures: string[] = [];
    const row = { route: "every route with a path parameter", tried: 0, answered5xx: 0, wrongShape: 0, stored: 0 };
    for (const route of routes) {
      for (const value of BAD_PATH_VALUES) {
        const url = route.url.replace(/:[A-Za-z_]+/g, value);
        const before = await snapshot(db);
        const res = await app.inject({
          method: route.method,
          url,
          remoteAddress: nextAddress(),
          headers: { cookie, origin: app.ctx.config.publicUrl, ...(route.method === "GET" || route.method === "DELETE" ? {} : { "content-type": "application/json" }) },
          ...(route.method === "GET" || route.method === "DELETE" ? {} : { payload: "{}" }),
        });
        const changed = changedTables(before, await snapshot(db));
        row.tried++;
        const refused = res.statusCode >= 400 && res.statusCode < 500;
        const shapeOk = !refused || errorShapeOk(res.body);
        if (res.statusCode >= 500) row.answered5xx++;
        if (!shapeOk) row.wrongShape++;
        if (changed.length) row.stored++;
        if (res.statusCode >= 500 || !shapeOk || changed.length) failures.push(`${route.method} ${url}: ${res.statusCode} ${res.body.slice(0, 160)}${changed.length ? ` (changed ${changed.join(", ")})` : ""}`);
      }
    }
    figures.push(row);
    expect(failures).toEqual([]);
  }, 300_000);
});
