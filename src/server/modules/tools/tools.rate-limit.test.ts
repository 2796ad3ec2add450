import { afterAll, beforeAll, expect, it } from "vitest";
import { buildTestApp, signUpAndLogIn, type TestApp } from "../../../../tests/harness.ts";

let app: TestApp;
beforeAll(async () => {
  ({ app } = await buildTestApp());
});
afterAll(() => app.close());

it("limits how often one user can make the server call out through tool tests", async () => {
  const alice = await signUpAndLogIn(app);
  const tool = { name: "Loopback", type: "API", http_method: "GET", parameter_format: "standard", end_point_url: "http://127.0.0.1:9/x" };
  const created = await app.inject({ method: "POST", url: "/api/tools", headers: { cookie: alice.cookie }, payload: tool });
  const id = created.json().id as string;
  const execute = (cookie: string, toolId = id) => app.inject({ method: "POST", url: `/api/tools/${toolId}/execute`, headers: { cookie }, payload: { parameters: {} } });
  for (let i = 0; i < 60; i++) expect((await execute(alice.cookie)).statusCode).toBe(403); // refused host, no request made
  const limited = await execute(alice.cookie);
  expect(limited.statusCode).toBe(429);
  // A 429 says so in its code.
  expect(limited.json().error).toEqual({ code: "rate_limited", message: expect.stringMatching(/^Too many requests\. Please try again in /) });

  // Another user has a budget of their own.
  const bob = await signUpAndLogIn(app);
  const bobs = await app.inject({ method: "POST", url: "/api/tools", headers: { cookie: bob.cookie }, payload: tool });
  expect((await execute(bob.cookie, bobs.json().id)).statusCode).toBe(403);
});
