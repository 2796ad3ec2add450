import { describe, expect, it } from "vitest";
import { rawRequest, useTestApp } from "../../../tests/harness.ts";
import { HTTP_ERROR_MESSAGES } from "../../shared/http-errors.ts";

/**
 * What a client gets for a request no route takes, or one the server refuses before any route
 * runs: an honest status in the usual error shape, whether or not it sent a valid API key, with
 * neither its path nor Fastify's internal codes repeated back. Over a real socket, as a client sends.
 */
const file = useTestApp({ users: ["Ada"] });

async function keyHeaders() {
  const res = await file.as(file.users.Ada).post("/api/api-keys", { name: "CRM" });
  expect(res.statusCode, res.body).toBe(201);
  return { authorization: `Bearer ${res.json().key as string}` };
}

const send = async (options: Parameters<typeof rawRequest>[1]) => {
  if (!file.app.server.listening) await file.app.listen({ port: 0, host: "127.0.0.1" });
  const res = await rawRequest(file.app, options);
  return { ...res, error: (JSON.parse(res.body) as { error: { code: string; message: string } }).error };
};

describe("a request no route takes", () => {
  it("answers 404 for an unknown path under /api, with a valid key, a session or nothing", async () => {
    const headers = await keyHeaders();
    for (const [path, who] of [
      ["/api/nope", headers],
      ["/api/v1/assistants", headers],
      ["/api/assistants/x/nothing-here", headers],
      ["/api/nope", {}],
      ["/api/nope", { cookie: file.users.Ada.cookie }],
    ] as const) {
      const res = await send({ method: "GET", path, headers: who });
      expect(res.status, path).toBe(404);
      expect(res.error).toEqual({ code: "not_found", message: HTTP_ERROR_MESSAGES.notFound });
    }
  });

  it("answers 405 with Allow for a known path asked with a method it does not support, TRACE included", async () => {
    const headers = await keyHeaders();
    for (const [method, path, allow] of [
      ["PUT", "/api/assistants", "GET, HEAD, POST"],
      ["TRACE", "/api/assistants", "GET, HEAD, POST"],
      ["POST", "/api/assistants/abc", "DELETE, GET, HEAD, PATCH"],
      ["TRACE", "/api/webhooks", "GET, HEAD, POST"],
    ] as const) {
      for (const who of [headers, {}]) {
        const res = await send({ method, path, headers: who });
        expect(res.status, `${method} ${path}`).toBe(405);
        expect(res.headers.allow).toBe(allow);
        expect(res.error).toEqual({ code: "method_not_allowed", message: HTTP_ERROR_MESSAGES.methodNotAllowed(method, allow.split(", ")) });
      }
    }
    // The method still works where it is supported.
    expect((await send({ method: "GET", path: "/api/assistants", headers })).status).toBe(200);
  });
});

describe("a request refused before any route runs", () => {
  const LONG = "a".repeat(300);

  it("answers 414, 413, 415 and a forbidden static path in the app's error shape without repeating the path", async () => {
    const headers = await keyHeaders();
    const tooLong = await send({ method: "GET", path: `/api/assistants/${LONG}`, headers });
    expect(tooLong.status).toBe(414);
    expect(tooLong.error).toEqual({ code: "uri_too_long", message: HTTP_ERROR_MESSAGES.uriTooLong });

    const tooLarge = await send({ method: "POST", path: "/api/assistants", headers, body: { name: "x".repeat(1_100_000) } });
    expect(tooLarge.status).toBe(413);
    expect(tooLarge.error).toEqual({ code: "body_too_large", message: HTTP_ERROR_MESSAGES.bodyTooLarge });

    const wrongType = await send({ method: "POST", path: "/api/assistants", headers: { ...headers, "content-type": "application/xml" }, body: "<a/>" });
    expect(wrongType.status).toBe(415);
    expect(wrongType.error).toEqual({ code: "unsupported_media_type", message: HTTP_ERROR_MESSAGES.unsupportedMediaType });

    const forbidden = await send({ method: "GET", path: `/docs/api/static/${LONG}` });
    expect(forbidden.status).toBe(404);
    expect(forbidden.error).toEqual({ code: "not_found", message: HTTP_ERROR_MESSAGES.notFound });

    for (const res of [tooLong, tooLarge, wrongType, forbidden]) {
      expect(res.body).not.toContain(LONG);
      expect(res.body).not.toContain("FST_");
    }
  });
});
