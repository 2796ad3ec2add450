/**
 * The public API's reference, generated from the zod schemas the routes validate with
 * (fastify-type-provider-zod's transform for @fastify/swagger): `GET /api/openapi.json`
 * (OpenAPI 3.1) and `/docs/api`, rendered by Swagger UI from files this server serves (no CDN).
 * Register before any route, so every route is seen.
 */
import swagger from "@fastify/swagger";
import swaggerUi from "@fastify/swagger-ui";
import type { FastifyInstance, RouteOptions } from "fastify";
import { createJsonSchemaTransform, createJsonSchemaTransformObject } from "fastify-type-provider-zod";
import { API_KEY_SCOPE, API_REFERENCE_TEXTS } from "../../shared/api-keys.ts";
import { API_VERSION } from "../../shared/api-version.ts";
import { IDEMPOTENCY_DESCRIPTION, IDEMPOTENCY_HEADER, MAX_IDEMPOTENCY_KEY_LENGTH } from "../../shared/idempotency.ts";
import { isIdempotentRoute } from "../modules/idempotency/idempotency.ts";
import { apiSchemaRegistry } from "./openapi-components.ts";
import { documentMetadata } from "./openapi-metadata.ts";
import { completeOperation, ERROR_RESPONSES } from "./openapi-operations.ts";
import { TAG_DESCRIPTIONS, WEBSOCKETS_DESCRIPTION } from "./openapi-prose.ts";
import { namedSchemasInUse, withInputExamples } from "./openapi-schemas.ts";

/**
 * Not part of the public API: the auth library's endpoints, signed media, health, the reference
 * itself, and the marketing site's own routes (its customer cards, its demo-request form and inbox).
 */
const PRIVATE_PREFIXES = ["/api/auth/", "/api/media/", "/api/health", "/api/openapi.json", "/api/marketing/", "/api/demo-requests"];

export function isPublicApiRoute(route: Pick<RouteOptions, "url"> & { websocket?: boolean }): boolean {
  return route.url.startsWith("/api/") && !route.websocket && !PRIVATE_PREFIXES.some((p) => route.url.startsWith(p));
}

type Json = Record<string, unknown>;
/** better-auth's session cookie with the app's prefix (auth/auth.ts). */
const SESSION_COOKIE = "switchboard.session_token";

const errorSchema = {
  type: "object",
  description: "Every error: a code a program can test and a message for people (validation errors add the issues).",
  required: ["error"],
  properties: {
    error: {
      type: "object",
      required: ["code", "message"],
      properties: {
        code: { type: "string", examples: ["not_found"] },
        message: { type: "string" },
        issues: { type: "array", items: { type: "object", properties: { path: { type: "string" }, message: { type: "string" } } } },
      },
    },
  },
};

/**
 * The whole document, once generated: each operation's id, summary, tag, security and responses
 * (openapi-operations.ts), the shared error schema and answers, and the tags listed once.
 */
function completeDocument(doc: Json): Json {
  const paths = (doc.paths ?? {}) as Record<string, Record<string, Json>>;
  const tags = new Set<string>();
  for (const [path, operations] of Object.entries(paths)) {
    const url = path.replace(/\{([^}]+)\}/g, ":$1");
    for (const [method, operation] of Object.entries(operations)) {
      completeOperation(method.toUpperCase(), url, operation);
      liftParameterStyles(operation);
      for (const tag of operation.tags as string[]) tags.add(tag);
    }
  }
  const components = (doc.components ?? {}) as Json;
  const responses = Object.fromEntries(
    Object.entries(ERROR_RESPONSES).map(([name, { description }]) => [name, { description, content: { "application/json": { schema: { $ref: "#/components/schemas/Error" } } } }]),
  );
  return {
    ...doc,
    tags: [...tags].sort().map((name) => ({ name, ...(TAG_DESCRIPTIONS[name] ? { description: TAG_DESCRIPTIONS[name] } : {}) })),
    components: { ...components, schemas: { ...(components.schemas as Json | undefined), Error: errorSchema }, responses },
  };
}

/**
 * A query parameter's serialisation (`style`, `explode`: the calls' `data` filter is a deepObject)
 * is given in its zod metadata, which lands in the parameter's schema; OpenAPI reads it on the
 * parameter itself.
 */
function liftParameterStyles(operation: Json): void {
  for (const parameter of (operation.parameters ?? []) as Json[]) {
    const schema = parameter.schema as Json | undefined;
    for (const key of ["style", "explode"] as const) {
      if (schema && key in schema) {
        parameter[key] = schema[key];
        delete schema[key];
      }
    }
  }
}

/** The app's mark (public/favicon.svg), for the reference's top bar. */
const LOGO_SVG =
  '<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 32 32"><rect width="32" height="32" rx="8" fill="#4f46e5"/><path d="M9 12h3v8H9zm5.5-4h3v16h-3zM20 10h3v12h-3z" fill="#fff"/></svg>';

/**
 * A script file (the page's CSP allows no inline script) that puts a "Back to Switchboard" link in
 * Swagger UI's top bar once it has rendered, makes the logo a link to the app too (the logo
 * option's href is set on the image, where it does nothing) and names it for screen readers.
 */
function backToAppScript(): string {
  const texts = JSON.stringify(API_REFERENCE_TEXTS);
  return `(() => {
  const t = ${texts};
  const place = () => {
    const bar = document.querySelector(".topbar-wrapper");
    if (!bar) return false;
    const link = bar.querySelector("a.link");
    if (link) link.href = "/assistants";
    const logo = bar.querySelector(".link img");
    if (logo) logo.alt = t.logoAlt;
    if (!bar.querySelector(".back-to-app")) {
      const a = document.createElement("a");
      a.href = "/assistants";
      a.className = "back-to-app";
      a.textContent = t.backToApp;
      bar.querySelector(".link")?.after(a);
    }
    // Swagger UI swaps its logo for ours a moment after rendering: done once ours is named.
    return Boolean(logo && logo.src.startsWith("data:image/svg+xml"));
  };
  if (!place()) new MutationObserver((_, o) => place() && o.disconnect()).observe(document.documentElement, { childList: true, subtree: true });
})();`;
}

const namedTransform = createJsonSchemaTransform({ schemaRegistry: documentMetadata(apiSchemaRegistry) });
const namedTransformObject = createJsonSchemaTransformObject({ schemaRegistry: apiSchemaRegistry });

/**
 * Parameters are inlined: @fastify/swagger reads each one from the properties of the query, path
 * or header schema, which a bare `$ref` would hide. Their `.meta()` annotations stay (openapi-metadata.ts).
 */
const inlineTransform = createJsonSchemaTransform({ schemaRegistry: documentMetadata() });
const PARAMETER_PARTS = ["querystring", "params", "headers"];

/** A route's schemas in JSON Schema: bodies and answers name the shared shapes, parameters are inline. */
function transformSchema(input: Parameters<typeof namedTransform>[0]) {
  const schema = (input.schema ?? {}) as Record<string, unknown>;
  const pick = (inParameters: boolean) => Object.fromEntries(Object.entries(schema).filter(([part]) => PARAMETER_PARTS.includes(part) === inParameters));
  const named = namedTransform({ ...input, schema: pick(false) } as typeof input);
  const inline = inlineTransform({ ...input, schema: pick(true) } as typeof input);
  return { schema: { ...named.schema, ...inline.schema }, url: named.url };
}

export async function registerOpenApi(app: FastifyInstance, options: { publicUrl: string }): Promise<void> {
  await app.register(swagger, {
    openapi: {
      openapi: "3.1.0",
      info: {
        title: "Switchboard API",
        version: API_VERSION,
        description:
          "A route answers an API key (`Authorization: Bearer sk_…`, created in Settings → API Keys) or the signed-in session. " +
          `${API_KEY_SCOPE} Another account's ids answer 404. ` +
          "Errors are `{ \"error\": { \"code\", \"message\" } }`.\n" +
          WEBSOCKETS_DESCRIPTION,
      },
      servers: [{ url: options.publicUrl }],
      components: {
        securitySchemes: {
          bearerAuth: { type: "http", scheme: "bearer", description: `An API key: sk_ followed by 40 letters and digits. ${API_KEY_SCOPE}` },
          sessionCookie: {
            type: "apiKey",
            in: "cookie",
            name: SESSION_COOKIE,
            description: `The web app's signed-in session (\`__Secure-${SESSION_COOKIE}\` over HTTPS); set by signing in, for browsers.`,
          },
        },
      },
    },
    transformObject: (documentObject) => namedSchemasInUse(withInputExamples(completeDocument(namedTransformObject(documentObject as never) as Json)) as Json) as never,
    transform: (input) => {
      const route = input.route as RouteOptions & { websocket?: boolean };
      if (!isPublicApiRoute({ url: input.url, websocket: route.websocket })) return { schema: { ...input.schema, hide: true }, url: input.url };
      const out = transformSchema(input);
      // A route without a schema comes back without one.
      const schema = out.schema ?? {};
      const method = [route.method].flat()[0] ?? "";
      const headers = isIdempotentRoute(method, input.url) ? withIdempotencyKey(schema.headers) : schema.headers;
      return { schema: { ...schema, ...(headers ? { headers } : {}) }, url: out.url };
    },
  });
  await app.register(swaggerUi, {
    routePrefix: "/docs/api",
    staticCSP: true,
    // Swagger UI's React sets inline styles; the app's own pages allow them too (app.ts's helmet).
    transformStaticCSP: (header) => header.replace(/style-src ([^;]*);/, "style-src $1 'unsafe-inline';"),
    uiConfig: { deepLinking: true },
    // Switchboard's mark rather than the framework's, and a link back to the app.
    logo: { type: "image/svg+xml", content: Buffer.from(LOGO_SVG), href: "/assistants", target: "_self" },
    theme: {
      title: API_REFERENCE_TEXTS.title,
      js: [{ filename: "back-to-app.js", content: backToAppScript() }],
      css: [{ filename: "switchboard.css", content: ".topbar-wrapper .link img { height: 32px; } .back-to-app { color: #fff; margin-right: 1rem; white-space: nowrap; font-family: sans-serif; }" }],
    },
  });
  app.get("/api/openapi.json", { schema: { hide: true } }, async () => app.swagger());
}

/** The optional `Idempotency-Key` header added to a route's header schema (JSON Schema). */
function withIdempotencyKey(headers: unknown): Record<string, unknown> {
  const base = (headers ?? { type: "object", properties: {} }) as { properties?: Record<string, unknown> };
  return {
    ...base,
    type: "object",
    properties: {
      ...base.properties,
      [IDEMPOTENCY_HEADER]: { type: "string", minLength: 1, maxLength: MAX_IDEMPOTENCY_KEY_LENGTH, pattern: "^[\\x21-\\x7e]+$", description: IDEMPOTENCY_DESCRIPTION },
    },
  };
}
