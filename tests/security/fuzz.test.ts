import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Db } from "../../src/server/db/client.ts";
import { startToolUpstream, type ToolUpstream } from "../fakes/tool-upstream.ts";
import { startFakeTwilioRest, type FakeTwilioRest } from "../fakes/twilio-rest.ts";
import { buildTestApp, signUpAndLogIn, type TestApp } from "../harness.ts";
import { badInputs, seededRandom } from "./bad-inputs.ts";
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
const figures: { route: string; tried: number; answered5xx: number; wrongShape: number; stored: number }[] = [];

beforeAll(async () => {
  upstream = await startToolUpstream();
  // A real Twilio account at the fake: a bad input that slipped through would really buy or re-point a number.
  twilio = await startFakeTwilioRest();
  ({ app, db } = await buildTestApp({ config: { TOOL_ALLOWED_HOSTS: "127.0.0.1", WEBHOOK_ALLOWED_HOSTS: "127.0.0.1", TWILIO_API_BASE: twilio.baseUrl } }));
  const user = await signUpAndLogIn(app);
  cookie = user.cookie;
  const upstreamUrl = `${upstream.origin}/echo`;
  fixtures = await ownedResources(app, twilio, user, {
    upstreamUrl,
    tool: JSON_ROUTES["create tool"]!.valid({ upstreamUrl } as Fixtures),
    assistant: { name: "Fuzz target" },
  });
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
};

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

describe("fuzz: bad query strings to every filtered GET route", () => {
  for (const [name, route] of Object.entries(QUERY_ROUTES)) {
    it(`GET ${name}: typed parameters refused with a 4xx, free text never a 5xx, nothing stored`, async () => {
      const valid = route.valid(fixtures);
      const query = (params: Record<string, string>) => Object.entries(params).map(([k, v]) => `${k}=${v}`).join("&");
      const encoded = Object.fromEntries(Object.entries(valid).map(([k, v]) => [k, encodeURIComponent(v)]));
      const ok = await app.inject({ method: "GET", url: `${route.path}?${query(encoded)}`, headers: { cookie } });
      expect(ok.statusCode, ok.body).toBe(200);
      const cases: { label: string; url: string; typed: boolean }[] = [];
      for (const key of [...route.typed, ...route.text]) {
        const typed = route.typed.includes(key);
        for (const [label, value] of Object.entries(BAD_QUERY_VALUES)) {
          cases.push({ label: `${key}: ${label}`, url: `${route.path}?${query({ ...encoded, [key]: value })}`, typed });
        }
        // Sent twice, the parameter arrives as a list.
        cases.push({ label: `${key}: repeated`, url: `${route.path}?${query(encoded)}&${key}=${encoded[key] ?? "x"}`, typed });
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
