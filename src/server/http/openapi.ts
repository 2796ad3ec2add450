/**
 * The public API's reference, generated from the zod schemas the routes validate with
 * (fastify-type-provider-zod's transform for @fastify/swagger): `GET /api/openapi.json`
 * (OpenAPI 3.1) and `/docs/api`, rendered by Swagger UI from files this server serves (no CDN).
 * Register before any route, so every route is seen.
 */
import swagger from "@fastify/swagger";
import swaggerUi from "@fastify/swagger-ui";
import type { FastifyInstance, RouteOptions } from "fastify";
import { jsonSchemaTransform } from "fastify-type-provider-zod";
import { API_KEY_SCOPE } from "../../shared/api-keys.ts";

/** Not part of the public API: the auth library's endpoints, signed media, health, the reference itself. */
const PRIVATE_PREFIXES = ["/api/auth/", "/api/media/", "/api/health", "/api/openapi.json"];

export function isPublicApiRoute(route: Pick<RouteOptions, "url"> & { websocket?: boolean }): boolean {
  return route.url.startsWith("/api/") && !route.websocket && !PRIVATE_PREFIXES.some((p) => route.url.startsWith(p));
}

const errorSchema = {
  type: "object",
  description: "Every error: a code a program can test and a message for people.",
  required: ["error"],
  properties: {
    error: {
      type: "object",
      required: ["code", "message"],
      properties: { code: { type: "string", examples: ["not_found"] }, message: { type: "string" } },
    },
  },
};

export async function registerOpenApi(app: FastifyInstance, options: { publicUrl: string }): Promise<void> {
  await app.register(swagger, {
    openapi: {
      openapi: "3.1.0",
      info: {
        title: "Switchboard API",
        version: "1",
        description:
          "Every route acts for the member who created the API key (`Authorization: Bearer sk_…`, created in Settings → API Keys), at their current role, or for the signed-in session. " +
          "Another account's ids answer 404. Errors are `{ \"error\": { \"code\", \"message\" } }`.",
      },
      servers: [{ url: options.publicUrl }],
      components: {
        securitySchemes: {
          bearerAuth: { type: "http", scheme: "bearer", description: `An API key: sk_ followed by 40 letters and digits. ${API_KEY_SCOPE}` },
        },
      },
      security: [{ bearerAuth: [] }],
    },
    transform: (input) => {
      const route = input.route as RouteOptions & { websocket?: boolean };
      if (!isPublicApiRoute({ url: input.url, websocket: route.websocket })) return { schema: { ...input.schema, hide: true }, url: input.url };
      const out = jsonSchemaTransform(input);
      // A route without a schema comes back without one.
      const schema = out.schema ?? {};
      const response = { ...(schema.response as Record<string, unknown> | undefined), "4XX": { ...errorSchema, description: "Refused: the error shape" } };
      return { schema: { ...schema, response }, url: out.url };
    },
  });
  await app.register(swaggerUi, { routePrefix: "/docs/api", staticCSP: true, uiConfig: { deepLinking: true } });
  app.get("/api/openapi.json", { schema: { hide: true } }, async () => app.swagger());
}
