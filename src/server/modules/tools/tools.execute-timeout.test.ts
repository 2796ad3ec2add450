import { afterAll, beforeAll, expect, it } from "vitest";
import type { ToolUpstream } from "../../../../tests/fakes/tool-upstream.ts";
import { startToolUpstream } from "../../../../tests/fakes/tool-upstream.ts";
import { buildTestApp, signUpAndLogIn, type TestApp } from "../../../../tests/harness.ts";

// A file of its own: it waits out the real 10 s default, and vitest runs files side by side.

let upstream: ToolUpstream;
let app: TestApp;

beforeAll(async () => {
  upstream = await startToolUpstream();
  ({ app } = await buildTestApp({ config: { TOOL_ALLOWED_HOSTS: "127.0.0.1" } }));
});
afterAll(async () => {
  await app.close();
  await upstream.close();
});

it("gives up on an upstream slower than 10 s with a clear 504", async () => {
  const { cookie } = await signUpAndLogIn(app);
  const created = await app.inject({
    method: "POST",
    url: "/api/tools",
    headers: { cookie },
    payload: {
      name: "Slow tool",
      type: "API",
      http_method: "GET",
      parameter_format: "standard",
      end_point_url: `${upstream.origin}/slow?ms=15000`,
    },
  });
  const res = await app.inject({ method: "POST", url: `/api/tools/${created.json().id}/execute`, headers: { cookie }, payload: { parameters: {} } });
  expect(res.statusCode).toBe(504);
  expect(res.json()).toEqual({
    error: { code: "tool_timeout", message: `${upstream.hostPort} did not answer within 10000 ms.` },
  });
});
