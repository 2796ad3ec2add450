import { readFileSync } from "node:fs";
import { join } from "node:path";
import type { RouteOptions } from "fastify";
import { describe, expect, it } from "vitest";
import { as, buildTestApp, signUpAndLogIn } from "../../../tests/harness.ts";
import { keyMay } from "../../shared/roles.ts";
import { permissionOf } from "../auth/route-permissions.ts";
import { API_KEY_SCOPE } from "../../shared/api-keys.ts";
import { IDEMPOTENCY_DESCRIPTION, IDEMPOTENCY_HEADER } from "../../shared/idempotency.ts";
import { ROOT_DIR } from "../paths.ts";
import { isPublicApiRoute } from "./openapi.ts";

type Doc = {
  openapi: string;
  paths: Record<string, Record<string, { requestBody?: { content: Record<string, { schema: { properties?: Record<string, unknown> } }> }; responses: Record<string, unknown> }>>;
  components: { securitySchemes: Record<string, { type: string; scheme: string; description?: string }>; schemas: Record<string, unknown> };
  security: unknown[];
};

type FullDoc = {
  paths: Record<string, Record<string, { operationId?: string; summary?: string; tags?: string[]; security: Record<string, unknown>[]; responses: Record<string, unknown> }>>;
  tags: { name: string }[];
  components: {
    securitySchemes: Record<string, { type: string; in?: string }>;
    responses: Record<string, { content: Record<string, { schema: { $ref?: string } }> }>;
  };
};

/** GET routes whose answer is not JSON: files, redirects. */
const NOT_JSON = new Set(["/api/calls/export.csv", "/api/calls/:id/recording", "/api/audit-log.csv", "/api/campaigns/:id/contacts.csv"]);

/** Fastify's `/api/x/:id` as OpenAPI's `/api/x/{id}`. */
const openApiPath = (url: string) => url.replace(/:([A-Za-z_]+)/g, "{$1}");

describe("the OpenAPI document", () => {
  it("lists every public route with its body, parameters and the error shape", async () => {
    const seen: (Pick<RouteOptions, "url"> & { method: string | string[]; websocket?: boolean })[] = [];
    const { app } = await buildTestApp({ deps: { onRoute: (r) => seen.push(r) }, config: { LOG_LEVEL: "error" } });
    const res = await app.inject({ method: "GET", url: "/api/openapi.json" });
    expect(res.statusCode, res.body).toBe(200);
    const doc = res.json() as Doc;
    expect(doc.openapi).toBe("3.1.0");
    expect(doc.components.securitySchemes.bearerAuth).toMatchObject({ type: "http", scheme: "bearer" });

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
    const named = (schema: { $ref?: string; properties?: Record<string, unknown> }) =>
      (schema.$ref ? doc.components.schemas[schema.$ref.replace("#/components/schemas/", "")]! : schema) as { properties?: Record<string, unknown> };
    const createWebhook = doc.paths["/api/webhooks"]!.post!;
    expect(Object.keys(named(createWebhook.requestBody!.content["application/json"]!.schema).properties!)).toEqual(["url", "events", "description", "enabled"]);
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
    expect(named((doc.paths["/api/calls/{id}"]!.get!.responses["200"] as { content: Record<string, { schema: { $ref?: string } }> }).content["application/json"]!.schema).properties).toHaveProperty("call_sid");
    await app.close();
  }, 60_000);

  it("gives every operation an id, a summary, one tag, its real security and every response, with the shared error schema", async () => {
    const { app } = await buildTestApp({ config: { LOG_LEVEL: "error" } });
    const doc = (await app.inject({ method: "GET", url: "/api/openapi.json" })).json() as FullDoc;
    const owner = await signUpAndLogIn(app);
    const key = (await as(app, owner).post("/api/api-keys", { name: "walker" })).json().key as string;

    const problems: string[] = [];
    const ids = new Set<string>();
    const tagNames = new Set(doc.tags.map((t) => t.name));
    const errorResponse = (r: { $ref?: string }) => {
      const name = r.$ref?.replace("#/components/responses/", "");
      return name ? doc.components.responses[name]?.content["application/json"]?.schema.$ref === "#/components/schemas/Error" : false;
    };
    for (const [path, operations] of Object.entries(doc.paths)) {
      const url = path.replace(/\{([^}]+)\}/g, ":$1");
      for (const [method, op] of Object.entries(operations)) {
        const name = `${method.toUpperCase()} ${path}`;
        if (!op.operationId || !/^[a-z][A-Za-z0-9]+$/.test(op.operationId) || ids.has(op.operationId)) problems.push(`${name}: operationId ${op.operationId}`);
        ids.add(op.operationId!);
        if (!op.summary?.trim()) problems.push(`${name}: no summary`);
        if (op.tags?.length !== 1 || !tagNames.has(op.tags[0]!)) problems.push(`${name}: tags ${JSON.stringify(op.tags)}`);
        const statuses = Object.keys(op.responses);
        const success = statuses.filter((s) => /^[23]/.test(s));
        if (success.length === 0) problems.push(`${name}: no success response`);
        for (const s of success) {
          const r = op.responses[s] as { description?: string };
          if (!r.description || r.description === "Default Response") problems.push(`${name}: ${s} undescribed`);
        }
        if (method === "delete" && !success.includes("204")) problems.push(`${name}: a DELETE answers 204`);
        for (const s of statuses.filter((x) => x.startsWith("4"))) if (!errorResponse(op.responses[s] as { $ref?: string })) problems.push(`${name}: ${s} is not the error schema`);
        for (const s of ["400", "4XX"]) if (!statuses.includes(s)) problems.push(`${name}: no ${s}`);

        // The security the server applies: none for public routes, a session only for what no key may do.
        const permission = permissionOf(method.toUpperCase(), url);
        const schemes = op.security.map((r) => Object.keys(r)[0]).sort();
        const expected = !permission ? [] : keyMay(permission) ? ["bearerAuth", "sessionCookie"] : ["sessionCookie"];
        if (JSON.stringify(schemes) !== JSON.stringify(expected)) problems.push(`${name}: security ${schemes.join(",")}`);
        if (permission && !statuses.includes("401")) problems.push(`${name}: no 401`);
        if (url.includes("/:") && !statuses.includes("404")) problems.push(`${name}: no 404`);

        // …and what a key really gets: "session only" refuses it; the others never do.
        const res = await app.inject({ method: method.toUpperCase() as "GET", url: url.replace(/:[A-Za-z]+/g, "x"), headers: { authorization: `Bearer ${key}` }, payload: method === "get" ? undefined : {} });
        const sessionOnly = res.statusCode === 403 && (res.json() as { error: { code: string } }).error.code === "session_required";
        if (permission && sessionOnly !== !schemes.includes("bearerAuth")) problems.push(`${name}: a key gets ${res.statusCode}`);
        if (!permission && res.statusCode === 401) problems.push(`${name}: public but answers 401`);
      }
    }
    expect(problems).toEqual([]);
    expect(ids.size).toBeGreaterThan(100);
    expect(Object.keys(doc.paths).filter((p) => p.startsWith("/api/marketing") || p.startsWith("/api/demo-requests"))).toEqual([]);
    expect(doc.components.securitySchemes.sessionCookie).toMatchObject({ type: "apiKey", in: "cookie" });
    expect(doc.paths["/api/calls/export.csv"]!.get!.responses["200"]).toMatchObject({ content: { "text/csv": {} } });
    await app.close();
  }, 120_000);

  it("names the shared shapes once in components.schemas, each one reached by an operation, and describes every tag", async () => {
    const { app } = await buildTestApp();
    const doc = (await app.inject({ method: "GET", url: "/api/openapi.json" })).json() as {
      paths: Record<string, Record<string, { requestBody?: { content: Record<string, { schema: unknown }> }; responses: Record<string, { content?: Record<string, { schema: unknown }> }> }>>;
      components: { schemas: Record<string, unknown> };
      tags: { name: string; description?: string }[];
      info: { description: string };
    };
    await app.close();
    const post = doc.paths["/api/assistants"]!.post!;
    expect(post.requestBody!.content["application/json"]!.schema).toEqual({ $ref: "#/components/schemas/AssistantRequest" });
    expect(post.responses["201"]!.content!["application/json"]!.schema).toEqual({ $ref: "#/components/schemas/Assistant" });
    expect(doc.paths["/api/calls/{id}"]!.get!.responses["200"]!.content!["application/json"]!.schema).toEqual({ $ref: "#/components/schemas/CallRecord" });
    // Every reference resolves, and every named schema is referenced.
    const text = JSON.stringify(doc);
    const refs = new Set([...text.matchAll(/"#\/components\/schemas\/([^"]+)"/g)].map((m) => m[1]!));
    expect([...refs].filter((name) => !(name in doc.components.schemas))).toEqual([]);
    expect(Object.keys(doc.components.schemas).filter((name) => !refs.has(name))).toEqual([]);
    expect(Object.keys(doc.components.schemas).length).toBeGreaterThan(50);
    expect(doc.tags.filter((t) => !t.description)).toEqual([]);
    expect(doc.info.description).toContain("GET /api/live/calls/{callId}");
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

  it("documents the Idempotency-Key header on the POSTs that create or start something, and only there", async () => {
    const { app } = await buildTestApp();
    const doc = (await app.inject({ method: "GET", url: "/api/openapi.json" })).json() as { paths: Record<string, Record<string, { parameters?: { in: string; name: string; required?: boolean; description?: string }[] }>> };
    await app.close();
    const header = (path: string, method: string) => doc.paths[path]![method]!.parameters?.find((p) => p.in === "header" && p.name === IDEMPOTENCY_HEADER);
    for (const [path, method] of [["/api/calls/outbound", "post"], ["/api/assistants", "post"], ["/api/campaigns/{id}/{action}", "post"], ["/api/webhooks", "post"]] as const) {
      expect(header(path, method), `${method} ${path}`).toMatchObject({ required: false, description: IDEMPOTENCY_DESCRIPTION });
    }
    expect(header("/api/assistants", "get")).toBeUndefined();
    expect(header("/api/api-keys", "post")).toBeUndefined();
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
