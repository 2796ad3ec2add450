import { readFileSync } from "node:fs";
import { expect, it } from "vitest";
import { API_TYPES_FILE, renderApiTypes } from "../../scripts/api-types.ts";
import { buildTestApp } from "../../tests/harness.ts";

it("api-types.ts is what the served document gives (else run `npm run api:types`)", async () => {
  const { app } = await buildTestApp();
  const doc = (await app.inject({ method: "GET", url: "/api/openapi.json" })).json();
  await app.close();
  const fresh = await renderApiTypes(doc);
  // Compared whole: a changed route, schema or status changes the client's types.
  expect(fresh === readFileSync(API_TYPES_FILE, "utf8"), "src/client/api-types.ts is stale: run `npm run api:types`").toBe(true);
}, 120_000);
