import type { FastifyPluginAsync } from "fastify";
import type { ZodTypeProvider } from "fastify-type-provider-zod";
import { demoRequestListItemPageSchema, demoRequestSchema } from "../../../shared/demo-requests.ts";
import { pageQuerySchema } from "../../../shared/pages.ts";
import { AppError } from "../../errors.ts";
import type { DemoRequestsService } from "./demo-requests.service.ts";

/** A visitor sends a handful at most; a bot gets 429 long before it can fill the table. */
export const DEMO_REQUESTS_PER_MINUTE = 5;

/** POST /api/demo-requests: the public Request a demo form (register in the public section). */
export const demoRequestsRoutes: FastifyPluginAsync<{ service: DemoRequestsService }> = async (plugin, { service }) => {
  const app = plugin.withTypeProvider<ZodTypeProvider>();

  app.post(
    "/api/demo-requests",
    {
      schema: { body: demoRequestSchema },
      // Counted per client address before validation, so floods of invalid bodies are limited too.
      config: {
        rateLimit: {
          max: DEMO_REQUESTS_PER_MINUTE,
          timeWindow: 60_000,
          errorResponseBuilder: (_req, ctx) =>
            new AppError(429, "rate_limited", `Too many demo requests from your network. Please try again in ${ctx.after}.`),
        },
      },
    },
    async (req, reply) => {
      reply.status(201);
      return service.create(req.body);
    },
  );
};

/** GET /api/demo-requests: the requests received, for the instance's owner (register in the session scope). */
export const demoRequestsOwnerRoutes: FastifyPluginAsync<{ service: DemoRequestsService }> = async (plugin, { service }) => {
  const app = plugin.withTypeProvider<ZodTypeProvider>();
  app.get("/api/demo-requests", { schema: { querystring: pageQuerySchema, response: { 200: demoRequestListItemPageSchema } } }, async (req) =>
    service.list(req.user.id, req.query),
  );
};
