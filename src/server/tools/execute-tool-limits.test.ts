import { describe, expect, it } from "vitest";
import type { RecordedRequest } from "../../../tests/fakes/tool-upstream.ts";
import { useToolUpstream } from "../../../tests/tool-engine-upstream.ts";
import { executionFailure } from "../../../tests/tool-failure.ts";
import { executeTool, TOOL_EXECUTION_DEFAULTS } from "./index.ts";

const engine = useToolUpstream();
const get = engine.config;

/** Requests the upstream received from now on. */
function requestsSince() {
  const start = engine.upstream.requests.length;
  return () => engine.upstream.requests.slice(start);
}

describe("timeouts", () => {
  it("gives up on a slow answer at the total timeout", async () => {
    const started = Date.now();
    const err = await executionFailure(executeTool(get("/slow?ms=3000"), {}, { ...engine.options, timeoutMs: 300 }));
    expect(Date.now() - started).toBeLessThan(2000);
    expect(err.code).toBe("tool_timeout");
    expect(err.status).toBe(504);
    expect(err.message).toBe(`${engine.upstream.hostPort} did not answer within 300 ms.`);
  });

  it("answers normally when the upstream is slow but within the timeout", async () => {
    const result = await executeTool(get("/slow?ms=100"), {}, { ...engine.options, timeoutMs: 2000 });
    expect(result).toMatchObject({ success: true, data: { slow: true } });
  });

  it("gives up connecting at the connect timeout (name resolution included)", async () => {
    const started = Date.now();
    const err = await executionFailure(
      executeTool(get("/echo", { end_point_url: "http://stuck.test/" }), {}, {
        allowedHosts: [],
        connectTimeoutMs: 200,
        resolve: () => new Promise(() => {}),
      }),
    );
    expect(Date.now() - started).toBeLessThan(2000);
    expect(err.code).toBe("tool_connect_timeout");
    expect(err.status).toBe(504);
    expect(err.message).toBe("Timed out connecting to stuck.test after 200 ms.");
  });
});

describe("answer size cap", () => {
  const limit = TOOL_EXECUTION_DEFAULTS.maxBytes;

  it("refuses a streamed answer over 1 MiB and hangs up instead of reading the rest", async () => {
    const err = await executionFailure(executeTool(get(`/large?bytes=${50 * limit}`), {}, engine.options));
    expect(err.code).toBe("tool_response_too_large");
    expect(err.status).toBe(502);
    expect(err.message).toBe(`The answer from ${engine.upstream.hostPort} is larger than the 1 MB limit, so it was not read.`);
    expect(await engine.upstream.largeBodies.at(-1)).toBe(true);
  });

  it("refuses an answer whose declared length is over the cap without reading it", async () => {
    const err = await executionFailure(executeTool(get(`/large?bytes=${50 * limit}&declare=1`), {}, engine.options));
    expect(err.code).toBe("tool_response_too_large");
    expect(await engine.upstream.largeBodies.at(-1)).toBe(true);
  });

  it("accepts an answer of exactly 1 MiB", async () => {
    const result = await executeTool(get(`/large?bytes=${limit}`), {}, engine.options);
    expect(result.success).toBe(true);
    expect((result.data as string).length).toBe(limit);
  });

  it("honours a smaller cap", async () => {
    const err = await executionFailure(executeTool(get("/json"), {}, { ...engine.options, maxBytes: 10 }));
    expect(err.code).toBe("tool_response_too_large");
    expect(err.message).toContain("10-byte limit");
  });
});

describe("redirects", () => {
  it("follows one redirect and reports the final URL", async () => {
    const seen = requestsSince();
    const result = await executeTool(get("/redirect/1"), {}, engine.options);
    expect(result).toMatchObject({ success: true, status: 200, url: `${engine.upstream.origin}/redirect/0` });
    expect(seen().map((r) => r.path)).toEqual(["/redirect/1", "/redirect/0"]);
  });

  it("follows three redirects", async () => {
    const result = await executeTool(get("/redirect/3"), {}, engine.options);
    expect(result).toMatchObject({ success: true, url: `${engine.upstream.origin}/redirect/0` });
  });

  it("refuses the fourth redirect", async () => {
    const seen = requestsSince();
    const err = await executionFailure(executeTool(get("/redirect/4"), {}, engine.options));
    expect(err.code).toBe("tool_too_many_redirects");
    expect(err.status).toBe(502);
    expect(err.message).toBe(`Too many redirects: ${engine.upstream.hostPort} redirected again after 3, so it was not followed.`);
    expect(seen().map((r) => r.path)).toEqual(["/redirect/4", "/redirect/3", "/redirect/2", "/redirect/1"]);
  });

  it("honours a lower redirect limit", async () => {
    const err = await executionFailure(executeTool(get("/redirect/1"), {}, { ...engine.options, maxRedirects: 0 }));
    expect(err.code).toBe("tool_too_many_redirects");
  });

  it("turns a POST into a GET on 302, as browsers do", async () => {
    const result = await executeTool(get("/redirect/1", { http_method: "POST" }), { a: 1 }, engine.options);
    const seen = result.data as RecordedRequest;
    expect(result.method).toBe("GET");
    expect(seen).toMatchObject({ method: "GET", body: null });
    expect(seen.headers["content-type"]).toBeUndefined();
  });

  it("repeats the method and body on 307", async () => {
    const result = await executeTool(get("/redirect/1?status=307", { http_method: "PUT" }), { a: 1 }, engine.options);
    expect(result.method).toBe("PUT");
    expect(result.data).toMatchObject({ method: "PUT", body: { a: 1 } });
  });

  it("turns a DELETE into a GET on 303", async () => {
    const result = await executeTool(get("/redirect/1?status=303", { http_method: "DELETE" }), {}, engine.options);
    expect(result.data).toMatchObject({ method: "GET" });
  });

  it("keeps the API key and configured headers on a same-origin redirect and drops them all on a redirect to another host", async () => {
    const sameOrigin = await executeTool(get("/redirect/1", { api_key: "sk-1", http_headers: { "X-Tenant": "acme" } }), {}, engine.options);
    expect((sameOrigin.data as RecordedRequest).headers.authorization).toBe("Bearer sk-1");
    expect((sameOrigin.data as RecordedRequest).headers["x-tenant"]).toBe("acme");

    const elsewhere = `http://localhost:${engine.upstream.port}/echo`;
    const crossHost = await executeTool(
      get(`/redirect-to?url=${encodeURIComponent(elsewhere)}`, { api_key: "sk-1", http_headers: { "X-Tenant": "acme", "X-Api-Key": "k-123", Accept: "text/csv" } }),
      {},
      { allowedHosts: [engine.upstream.hostPort, "localhost"] },
    );
    const seen = crossHost.data as RecordedRequest;
    expect(crossHost.url).toBe(elsewhere);
    expect(seen.headers.authorization).toBeUndefined();
    expect(seen.headers["x-tenant"]).toBeUndefined();
    expect(seen.headers["x-api-key"]).toBeUndefined();
    // Even a harmless configured header goes; the client's own defaults are what is sent.
    expect(seen.headers.accept).toBe("application/json, text/plain;q=0.9, */*;q=0.8");
  });

  it("refuses a redirect to a non-http URL", async () => {
    const err = await executionFailure(executeTool(get(`/redirect-to?url=${encodeURIComponent("file:///etc/passwd")}`), {}, engine.options));
    expect(err.code).toBe("tool_bad_redirect");
    expect(err.status).toBe(502);
  });
});
