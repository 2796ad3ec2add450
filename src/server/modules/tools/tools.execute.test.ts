import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { RecordedRequest, ToolUpstream } from "../../../../tests/fakes/tool-upstream.ts";
import { startToolUpstream, statusBody } from "../../../../tests/fakes/tool-upstream.ts";
import { buildTestApp, errorOf, signUpAndLogIn, type TestApp } from "../../../../tests/harness.ts";
import type { HttpMethod, ParameterFormat, Tool, ToolExecutionResponse } from "../../../shared/tools.ts";

/**
 * POST /api/tools/:id/execute against a real local upstream. The app allow-lists 127.0.0.1 (as
 * a deployment would with TOOL_ALLOWED_HOSTS); a second app without the allow list shows the
 * SSRF guard as a user meets it.
 */

let upstream: ToolUpstream;
let app: TestApp;
let user: Awaited<ReturnType<typeof signUpAndLogIn>>;

beforeAll(async () => {
  upstream = await startToolUpstream();
  ({ app } = await buildTestApp({ config: { TOOL_ALLOWED_HOSTS: "127.0.0.1" } }));
  user = await signUpAndLogIn(app);
});
afterAll(async () => {
  await app.close();
  await upstream.close();
});

const API_KEY = "sk-tool-key-0123456789-abcd";

async function createTool(target: TestApp, cookie: string, overrides: Record<string, unknown>): Promise<Tool> {
  const res = await target.inject({
    method: "POST",
    url: "/api/tools",
    headers: { cookie },
    payload: {
      name: "Upstream tool",
      type: "API",
      http_method: "GET",
      parameter_format: "standard",
      end_point_url: `${upstream.origin}/echo`,
      ...overrides,
    },
  });
  expect(res.statusCode, res.body).toBe(201);
  return res.json();
}

async function execute(target: TestApp, cookie: string, id: string, parameters: unknown = {}) {
  return target.inject({ method: "POST", url: `/api/tools/${id}/execute`, headers: { cookie }, payload: { parameters } });
}

/** Creates a tool on the allow-listing app and runs it, expecting an answer (not an engine error). */
async function run(overrides: Record<string, unknown>, parameters: Record<string, unknown> = {}) {
  const tool = await createTool(app, user.cookie, overrides);
  const res = await execute(app, user.cookie, tool.id, parameters);
  expect(res.statusCode, res.body).toBe(200);
  return res.json() as ToolExecutionResponse;
}


/** Requests the upstream received from now on. */
function requestsSince() {
  const start = upstream.requests.length;
  return () => upstream.requests.slice(start);
}

describe("each method × each format", () => {
  const parameters = { city: "Paris", age: "gt.30", id: 7 };
  const template = { fixed: "x", city: "template value" };
  const merged = { fixed: "x", city: "Paris", age: "gt.30", id: 7 };
  const cases: [HttpMethod, ParameterFormat, string, unknown][] = [
    ["GET", "standard", "source=app&city=Paris&age=gt.30&id=7", null],
    ["DELETE", "standard", "source=app&city=Paris&age=gt.30&id=7", null],
    ["GET", "database-query", "source=app&city=eq.Paris&age=gt.30&id=eq.7", null],
    ["DELETE", "database-query", "source=app&city=eq.Paris&age=gt.30&id=eq.7", null],
    ["POST", "standard", "source=app", merged],
    ["PUT", "standard", "source=app", merged],
    ["POST", "database-query", "source=app", merged],
    ["PUT", "database-query", "source=app", merged],
  ];

  it.each(cases)("%s with the %s format", async (method, format, rawQuery, body) => {
    const result = await run(
      { http_method: method, parameter_format: format, end_point_url: `${upstream.origin}/echo?source=app`, request_body: template },
      parameters,
    );
    const seen = result.data as RecordedRequest;
    expect(result).toMatchObject({
      success: true,
      status: 200,
      statusText: "OK",
      method,
      url: `${upstream.origin}/echo?${rawQuery}`,
    });
    expect(seen.method).toBe(method);
    expect(seen.rawQuery).toBe(rawQuery);
    expect(seen.body).toEqual(body);
    if (body !== null) expect(seen.headers["content-type"]).toBe("application/json");
  });

  it("applies every database-query prefix the help box lists, and eq. by default", async () => {
    const result = await run(
      { parameter_format: "database-query" },
      { a: "eq.1", b: "gt.2", c: "lt.3", d: "gte.4", e: "lte.5", f: "neq.6", g: "like.*x*", h: "plain" },
    );
    expect((result.data as RecordedRequest).query).toEqual({
      a: "eq.1",
      b: "gt.2",
      c: "lt.3",
      d: "gte.4",
      e: "lte.5",
      f: "neq.6",
      g: "like.*x*",
      h: "eq.plain",
    });
  });
});

describe("headers and API key", () => {
  it("sends the configured headers and the stored API key as a bearer token", async () => {
    const result = await run({ http_headers: { "X-Tenant": "acme", "X-Trace": "t-1" }, api_key: API_KEY });
    const { headers } = result.data as RecordedRequest;
    expect(headers["x-tenant"]).toBe("acme");
    expect(headers["x-trace"]).toBe("t-1");
    expect(headers.authorization).toBe(`Bearer ${API_KEY}`);
  });

  it("lets a configured Authorization header win over the API key", async () => {
    const result = await run({ http_headers: { Authorization: "Token custom" }, api_key: API_KEY });
    expect((result.data as RecordedRequest).headers.authorization).toBe("Token custom");
  });

  it("keeps using the stored key after an edit that leaves the key blank, and stops after it is removed", async () => {
    const tool = await createTool(app, user.cookie, { api_key: API_KEY });
    const patch = (body: object) => app.inject({ method: "PATCH", url: `/api/tools/${tool.id}`, headers: { cookie: user.cookie }, payload: body });
    const authorization = async () => ((await execute(app, user.cookie, tool.id)).json().data as RecordedRequest).headers.authorization;

    await patch({ name: "Renamed", api_key: "" });
    expect(await authorization()).toBe(`Bearer ${API_KEY}`);
    await patch({ api_key: "sk-replaced-key-000000" });
    expect(await authorization()).toBe("Bearer sk-replaced-key-000000");
    await patch({ api_key: null });
    expect(await authorization()).toBeUndefined();
  });
});

describe("answers", () => {
  it("returns a JSON answer parsed", async () => {
    // The engine's whole answer is pinned in execute-tool.test.ts; here, that the route passes it on.
    const result = await run({ end_point_url: `${upstream.origin}/json` });
    expect(result).toMatchObject({ success: true, status: 200, data: { ok: true, items: [{ id: 1, name: "Widget" }] } });
  });

  it("returns a text answer as text", async () => {
    const result = await run({ end_point_url: `${upstream.origin}/text` });
    expect(result).toMatchObject({ success: true, status: 200, data: "plain text answer" });
  });

  it("reports an upstream 404 as success false with its status and body", async () => {
    const result = await run({ end_point_url: `${upstream.origin}/status/404` });
    expect(result).toMatchObject({ success: false, status: 404, statusText: "Not Found", data: { message: "No such order" } });
  });

  it("reports an upstream 500 as success false with its status and body", async () => {
    const result = await run({ http_method: "POST", end_point_url: `${upstream.origin}/status/500` });
    expect(result).toMatchObject({ success: false, status: 500, statusText: "Internal Server Error", method: "POST", data: statusBody(500) });
  });
});

describe("limits", () => {
  it("refuses an answer over 1 MB with a clear 502", async () => {
    const tool = await createTool(app, user.cookie, { end_point_url: `${upstream.origin}/large?bytes=${5 * 1024 * 1024}` });
    const res = await execute(app, user.cookie, tool.id);
    expect(res.statusCode).toBe(502);
    expect(errorOf(res)).toEqual({
      code: "tool_response_too_large",
      message: `The answer from ${upstream.hostPort} is larger than the 1 MB limit, so it was not read.`,
    });
  });

  it("follows up to three redirects and reports the final URL", async () => {
    const seen = requestsSince();
    const result = await run({ end_point_url: `${upstream.origin}/redirect/3` });
    expect(result).toMatchObject({ success: true, status: 200, url: `${upstream.origin}/redirect/0` });
    expect(seen().map((r) => r.path)).toEqual(["/redirect/3", "/redirect/2", "/redirect/1", "/redirect/0"]);
  });

  it("refuses a fourth redirect with a clear 502", async () => {
    const tool = await createTool(app, user.cookie, { end_point_url: `${upstream.origin}/redirect/4` });
    const res = await execute(app, user.cookie, tool.id);
    expect(res.statusCode).toBe(502);
    expect(errorOf(res)).toEqual({
      code: "tool_too_many_redirects",
      message: `Too many redirects: ${upstream.hostPort} redirected again after 3, so it was not followed.`,
    });
  });
});

describe("SSRF guard", () => {
  let guarded: TestApp;
  let guardedUser: Awaited<ReturnType<typeof signUpAndLogIn>>;

  beforeAll(async () => {
    // No TOOL_ALLOWED_HOSTS: the production default.
    ({ app: guarded } = await buildTestApp());
    guardedUser = await signUpAndLogIn(guarded);
  });
  afterAll(() => guarded.close());

  const targets: [string, string][] = [
    ["127.0.0.1", "http://127.0.0.1:PORT/echo"],
    ["localhost (a name resolving to loopback)", "http://localhost:PORT/echo"],
    ["[::1]", "http://[::1]:PORT/echo"],
    ["[::ffff:127.0.0.1]", "http://[::ffff:127.0.0.1]:PORT/echo"],
    ["a 10.x address", "http://10.0.0.1:PORT/echo"],
    ["the cloud metadata address", "http://169.254.169.254/latest/meta-data/"],
  ];

  it.each(targets)("refuses %s with a 403 and sends nothing", async (_, template) => {
    const seen = requestsSince();
    const tool = await createTool(guarded, guardedUser.cookie, {
      end_point_url: template.replace("PORT", String(upstream.port)),
      api_key: API_KEY,
    });
    const res = await execute(guarded, guardedUser.cookie, tool.id, { q: "x" });
    expect(res.statusCode).toBe(403);
    const error = errorOf(res);
    expect(error.code).toBe("tool_host_blocked");
    expect(error.message).toMatch(/^Refused to connect to .+ an administrator can allow this host in TOOL_ALLOWED_HOSTS\.$/);
    expect(res.body).not.toContain(API_KEY);
    expect(seen()).toEqual([]);
  });

  it("refuses a redirect from an allowed host to one that is not, after the first request only", async () => {
    const seen = requestsSince();
    const next = encodeURIComponent(`http://localhost:${upstream.port}/echo`);
    const tool = await createTool(app, user.cookie, { end_point_url: `${upstream.origin}/redirect-to?url=${next}`, api_key: API_KEY });
    const res = await execute(app, user.cookie, tool.id);
    expect(res.statusCode).toBe(403);
    expect(errorOf(res)).toMatchObject({ code: "tool_host_blocked", message: expect.stringContaining(`Refused to connect to localhost`) });
    expect(res.body).not.toContain(API_KEY);
    expect(seen().map((r) => r.path)).toEqual(["/redirect-to"]);
  });

  it("refuses a redirect to the cloud metadata address", async () => {
    const seen = requestsSince();
    const next = encodeURIComponent("http://169.254.169.254/latest/meta-data/");
    const tool = await createTool(app, user.cookie, { end_point_url: `${upstream.origin}/redirect-to?url=${next}` });
    const res = await execute(app, user.cookie, tool.id);
    expect(res.statusCode).toBe(403);
    expect(errorOf(res).message).toContain("a cloud metadata address");
    expect(seen().map((r) => r.path)).toEqual(["/redirect-to"]);
  });
});

describe("request validation", () => {
  it("refuses parameters that are not an object", async () => {
    const tool = await createTool(app, user.cookie, {});
    for (const parameters of [["a"], "text", 3]) {
      const res = await execute(app, user.cookie, tool.id, parameters);
      expect(res.statusCode).toBe(400);
      expect(errorOf(res).message).toBe("parameters must be a JSON object");
    }
  });

  it("runs with no parameters when none are sent", async () => {
    const tool = await createTool(app, user.cookie, {});
    const res = await app.inject({ method: "POST", url: `/api/tools/${tool.id}/execute`, headers: { cookie: user.cookie }, payload: {} });
    expect(res.statusCode).toBe(200);
    expect(res.json()).toMatchObject({ success: true, url: `${upstream.origin}/echo` });
  });
});
