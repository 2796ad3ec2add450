import { describe, expect, it } from "vitest";
import type { RecordedRequest } from "../../../tests/fakes/tool-upstream.ts";
import { startToolUpstream, statusBody } from "../../../tests/fakes/tool-upstream.ts";
import { useToolUpstream } from "../../../tests/tool-engine-upstream.ts";
import { executionFailure } from "../../../tests/tool-failure.ts";
import type { HttpMethod, ParameterFormat } from "../../shared/tools.ts";
import type { ToolHttpConfig } from "./index.ts";
import { executeTool } from "./index.ts";

const engine = useToolUpstream();
const tool = (overrides: Partial<ToolHttpConfig> = {}) => engine.config("/echo", overrides);

/** The request as the upstream saw it (the /echo route answers with it). */
async function echoed(config: ToolHttpConfig, parameters: Record<string, unknown> = {}) {
  const result = await executeTool(config, parameters, engine.options);
  expect(result.success).toBe(true);
  return { result, seen: result.data as RecordedRequest };
}

describe("request building: each method × each format", () => {
  const parameters = { city: "Paris", age: "gt.30", id: 7 };
  const cases: [HttpMethod, ParameterFormat, string | null, unknown][] = [
    ["GET", "standard", "source=app&city=Paris&age=gt.30&id=7", null],
    ["DELETE", "standard", "source=app&city=Paris&age=gt.30&id=7", null],
    ["GET", "database-query", "source=app&city=eq.Paris&age=gt.30&id=eq.7", null],
    ["DELETE", "database-query", "source=app&city=eq.Paris&age=gt.30&id=eq.7", null],
    ["POST", "standard", "source=app", { fixed: "x", city: "Paris", age: "gt.30", id: 7 }],
    ["PUT", "standard", "source=app", { fixed: "x", city: "Paris", age: "gt.30", id: 7 }],
    ["POST", "database-query", "source=app", { fixed: "x", city: "Paris", age: "gt.30", id: 7 }],
    ["PUT", "database-query", "source=app", { fixed: "x", city: "Paris", age: "gt.30", id: 7 }],
  ];

  it.each(cases)("%s with the %s format", async (method, format, rawQuery, body) => {
    const { result, seen } = await echoed(
      tool({
        http_method: method,
        parameter_format: format,
        end_point_url: `${engine.upstream.origin}/echo?source=app`,
        request_body: { fixed: "x", city: "template value" },
      }),
      parameters,
    );
    expect(seen.method).toBe(method);
    expect(seen.rawQuery).toBe(rawQuery);
    expect(seen.body).toEqual(body);
    expect(seen.headers["content-type"]).toBe(body === null ? undefined : "application/json");
    expect(result.method).toBe(method);
    expect(result.url).toBe(`${engine.upstream.origin}/echo?${rawQuery}`);
  });

  it.each(["eq.", "gt.", "lt.", "gte.", "lte.", "neq.", "like."])(
    "database-query keeps a value that already starts with %s",
    async (prefix) => {
      const { seen } = await echoed(tool({ parameter_format: "database-query" }), { name: `${prefix}Jo*` });
      expect(seen.query).toEqual({ name: `${prefix}Jo*` });
    },
  );

  it("database-query prefixes eq. to other values, and leaves PostgREST's own parameters alone", async () => {
    const { seen } = await echoed(tool({ parameter_format: "database-query" }), {
      status: "ilike.open",
      active: true,
      select: "id,name",
      order: "created_at.desc",
      limit: 10,
    });
    expect(seen.query).toEqual({
      status: "eq.ilike.open",
      active: "eq.true",
      select: "id,name",
      order: "created_at.desc",
      limit: "10",
    });
  });

  it("encodes query values safely: lists repeat the key, null is left out, spaces are %20", async () => {
    const { seen } = await echoed(tool(), { tag: ["a", "b"], note: "two words&more", skip: null, filter: { x: 1 } });
    expect(seen.rawQuery).toBe("tag=a&tag=b&note=two%20words%26more&filter=%7B%22x%22%3A1%7D");
    expect(seen.query).toEqual({ tag: ["a", "b"], note: "two words&more", filter: '{"x":1}' });
  });

  it("sends an empty JSON object when a POST has neither template nor arguments", async () => {
    const { seen } = await echoed(tool({ http_method: "POST" }));
    expect(seen.body).toEqual({});
  });
});

describe("headers and API key", () => {
  it("sends the configured headers and the API key as a bearer token", async () => {
    const { seen } = await echoed(tool({ api_key: "sk-live-123", http_headers: { "X-Tenant": "acme", Accept: "text/csv" } }));
    expect(seen.headers["x-tenant"]).toBe("acme");
    expect(seen.headers.accept).toBe("text/csv");
    expect(seen.headers.authorization).toBe("Bearer sk-live-123");
  });

  it("lets a configured Authorization header win over the API key, whatever its case", async () => {
    const { seen } = await echoed(tool({ api_key: "sk-live-123", http_headers: { authorization: "Basic dXNlcjpwYXNz" } }));
    expect(seen.headers.authorization).toBe("Basic dXNlcjpwYXNz");
  });

  it("sends no Authorization header without an API key", async () => {
    const { seen } = await echoed(tool({ api_key: null }));
    expect(seen.headers.authorization).toBeUndefined();
  });

  it("keeps a configured Content-Type on a JSON body", async () => {
    const { seen } = await echoed(tool({ http_method: "POST", http_headers: { "content-type": "application/vnd.api+json" } }), { a: 1 });
    expect(seen.headers["content-type"]).toBe("application/vnd.api+json");
    expect(seen.body).toEqual({ a: 1 });
  });

  it("does not let configured headers override Host or the framing of the request", async () => {
    const { seen } = await echoed(tool({ http_method: "POST", http_headers: { Host: "evil.example", "Content-Length": "1" } }), {
      long: "x".repeat(50),
    });
    expect(seen.headers.host).toBe(engine.upstream.hostPort);
    expect(seen.body).toEqual({ long: "x".repeat(50) });
  });

  it("refuses a header value that would inject another header", async () => {
    const err = await executionFailure(executeTool(tool({ http_headers: { "X-A": "1\r\nX-B: 2" } }), {}, engine.options));
    expect(err.code).toBe("tool_invalid_config");
    expect(err.status).toBe(400);
    expect(engine.upstream.requests.some((r) => r.headers["x-b"] !== undefined)).toBe(false);
  });
});

describe("answers", () => {
  it("parses a JSON answer", async () => {
    const result = await executeTool(tool({ end_point_url: `${engine.upstream.origin}/json` }), {}, engine.options);
    expect(result).toEqual({
      success: true,
      status: 200,
      statusText: "OK",
      method: "GET",
      url: `${engine.upstream.origin}/json`,
      data: { ok: true, items: [{ id: 1, name: "Widget" }] },
    });
  });

  it("returns a text answer as text", async () => {
    const result = await executeTool(tool({ end_point_url: `${engine.upstream.origin}/text` }), {}, engine.options);
    expect(result.data).toBe("plain text answer");
  });

  it("decompresses a gzip answer", async () => {
    const result = await executeTool(tool({ end_point_url: `${engine.upstream.origin}/gzip` }), {}, engine.options);
    expect(result.data).toEqual({ compressed: true });
  });

  it("reports an empty answer as null data", async () => {
    const result = await executeTool(tool({ http_method: "DELETE", end_point_url: `${engine.upstream.origin}/empty` }), {}, engine.options);
    expect(result).toMatchObject({ success: true, status: 204, data: null });
  });

  it("reports a 404 as an unsuccessful result with its status and body", async () => {
    const result = await executeTool(tool({ end_point_url: `${engine.upstream.origin}/status/404` }), {}, engine.options);
    expect(result).toMatchObject({ success: false, status: 404, statusText: "Not Found", data: { message: "No such order" } });
  });

  it("reports a 500 as an unsuccessful result with its status and body", async () => {
    const result = await executeTool(tool({ http_method: "POST", end_point_url: `${engine.upstream.origin}/status/500` }), {}, engine.options);
    expect(result).toMatchObject({ success: false, status: 500, statusText: "Internal Server Error", method: "POST", data: statusBody(500) });
  });
});

describe("failures without an answer", () => {
  it.each(["ftp://example.com/file", "not a url", "http://user:secret@example.com/", "javascript:alert(1)"])(
    "refuses the endpoint URL %s",
    async (url) => {
      const err = await executionFailure(executeTool(tool({ end_point_url: url }), {}, engine.options));
      expect(err.code).toBe("tool_invalid_url");
      expect(err.status).toBe(400);
      expect(err.message).toMatch(/not a valid http:\/\/ or https:\/\/ URL/);
      expect(err.message).not.toContain("secret");
    },
  );

  it("reports a refused connection", async () => {
    const closed = await startToolUpstream();
    await closed.close();
    const err = await executionFailure(
      executeTool(tool({ end_point_url: `${closed.origin}/echo` }), {}, { allowedHosts: [closed.hostPort] }),
    );
    expect(err.code).toBe("tool_connection_failed");
    expect(err.status).toBe(502);
    expect(err.message).toBe(`${closed.hostPort} refused the connection.`);
  });

  it("reports a host that does not resolve", async () => {
    const err = await executionFailure(
      executeTool(tool({ end_point_url: "http://nowhere.test/" }), {}, { allowedHosts: [], resolve: async () => [] }),
    );
    expect(err.code).toBe("tool_dns_failed");
    expect(err.status).toBe(502);
    expect(err.message).toBe("Could not resolve host nowhere.test.");
  });

  it("stops when the caller cancels", async () => {
    const controller = new AbortController();
    const pending = executeTool(tool({ end_point_url: `${engine.upstream.origin}/slow?ms=5000` }), {}, { ...engine.options, signal: controller.signal });
    setTimeout(() => controller.abort(), 50);
    const err = await executionFailure(pending);
    expect(err.code).toBe("tool_aborted");
    expect(err.message).toBe("The tool call was cancelled.");
  });
});
