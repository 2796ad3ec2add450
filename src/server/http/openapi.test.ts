import { readFileSync } from "node:fs";
import { join } from "node:path";
import type { RouteOptions } from "fastify";
import { describe, expect, it } from "vitest";
import { buildTestApp } from "../../../tests/harness.ts";
import { API_KEY_SCOPE } from "../../shared/api-keys.ts";
import { ROOT_DIR } from "../paths.ts";
import { isPublicApiRoute } from "./openapi.ts";

type Doc = {
  openapi: string;
  paths: Record<string, Record<string, { requestBody?: { content: Record<string, { schema: { properties?: Record<string, unknown> } }> }; responses: Record<string, unknown> }>>;
  components: { securitySchemes: Record<string, { type: string; scheme: string; description?: string }> };
  security: unknown[];
};

/** GET routes whose answer is not JSON: files, redirects. */
const NOT_JSON = new Set(["/api/calls/export.csv", "/api/calls/:id/recording", "/api/audit-log.csv", "/api/campaigns/:id/contacts.csv"]);

/** Fastify's `/api/x/:id` as OpenAPI's `/api/x/{id}`. */
const openApiPath = (url: string) => url.replace(/:([A-Za-z_]+)/g, "{$1}");

describe("the OpenAPI document", () => {
  it("lists every public route with its body, parameters and the error shape, under bearerAuth", async () => {
    const seen: (Pick<RouteOptions, "url"> & { method: string | string[]; websocket?: boolean })[] = [];
    const { app } = await buildTestApp({ deps: { onRoute: (r) => seen.push(r) }, config: { LOG_LEVEL: "error" } });
    const res = await app.inject({ method: "GET", url: "/api/openapi.json" });
    expect(res.statusCode, res.body).toBe(200);
    const doc = res.json() as Doc;
    expect(doc.openapi).toBe("3.1.0");
    expect(doc.components.securitySchemes.bearerAuth).toMatchObject({ type: "http", scheme: "bearer" });
    expect(doc.security).toEqual([{ bearerAuth: [] }]);

    // Every route of the app under /api (but the auth library, signed media, health and sockets) is in it.
    const missing: string[] = [];
    for (const route of seen.filter((r) => isPublicApiRoute(r))) {
      for (const method of [route.method].flat()) {
        if (method === "HEAD" || method === "OPTIONS") continue;
        if (!doc.paths[openApiPath(route.url)]?.[method.toLowerCase()]) missing.push(`${method} ${route.url}`);
      }
    }
    expect(missing).toEqual([]);
    expect(seen.filter((r) => isPublicApiRoute(r)).length).toBeGreaterThan(30);

    // Generated from the routes' zod schemas: bodies and the error shape.
    const createWebhook = doc.paths["/api/webhooks"]!.post!;
    expect(Object.keys(createWebhook.requestBody!.content["application/json"]!.schema.properties!)).toEqual(["url", "events", "description", "enabled"]);
    expect(createWebhook.responses["4XX"]).toBeDefined();
    expect(doc.paths["/api/assistants/{id}"]!.patch!.requestBody).toBeDefined();
    expect(doc.paths["/api/auth/sign-in/email"]).toBeUndefined();

    // Every JSON GET route describes its answer (generated from the zod schema it serializes with).
    const undescribed: string[] = [];
    for (const route of seen.filter((r) => isPublicApiRoute(r) && [r.method].flat().includes("GET") && !NOT_JSON.has(r.url))) {
      const ok = doc.paths[openApiPath(route.url)]?.get?.responses["200"] as { content?: Record<string, { schema?: unknown }> } | undefined;
      if (!ok?.content?.["application/json"]?.schema) undescribed.push(route.url);
    }
    expect(undescribed).toEqual([]);
    expect((doc.paths["/api/calls/{id}"]!.get!.responses["200"] as { content: Record<string, { schema: { properties: object } }> }).content["application/json"]!.schema.properties).toHaveProperty("call_sid");
    await app.close();
  }, 60_000);

  it("says what an API key may do in the words of the README's API keys section", async () => {
    const { app } = await buildTestApp();
    const doc = (await app.inject({ method: "GET", url: "/api/openapi.json" })).json() as Doc;
    await app.close();
    expect(doc.components.securitySchemes.bearerAuth!.description).toContain(API_KEY_SCOPE);
    const readme = readFileSync(join(ROOT_DIR, "README.md"), "utf8");
    const section = readme.slice(readme.indexOf("\n## API keys\n"), readme.indexOf("\n## ", readme.indexOf("\n## API keys\n") + 1));
    expect(section.replace(/\s+/g, " ")).toContain(API_KEY_SCOPE);
  }, 60_000);

  it("is rendered at /docs/api from this server's own files", async () => {
    const { app } = await buildTestApp();
    const page = await app.inject({ method: "GET", url: "/docs/api/" });
    expect(page.statusCode).toBe(200);
    expect(page.body).toContain("swagger-ui");
    const scripts = [...page.body.matchAll(/src="([^"]+)"/g)].map((m) => m[1]!);
    expect(scripts.length).toBeGreaterThan(0);
    for (const src of scripts) {
      expect(src.startsWith("http")).toBe(false);
      expect((await app.inject({ method: "GET", url: new URL(src, "http://x/docs/api/").pathname })).statusCode).toBe(200);
    }
    await app.close();
  }, 60_000);
});
