import type { FastifyPluginAsync, FastifyRequest } from "fastify";
import type { ZodTypeProvider } from "fastify-type-provider-zod";
import { z } from "zod";
import {
  WEBHOOK_MESSAGES,
  WEBHOOK_TESTS_PER_MINUTE,
  webhookDeliveryPageSchema,
  webhookDeliverySchema,
  webhookEndpointPageSchema,
  webhookEndpointSchema,
  webhookInputSchema,
  webhookUpdateSchema,
  webhookWithSecretSchema,
} from "../../../shared/webhooks.ts";
import { pageQuerySchema } from "../../../shared/pages.ts";
import { AppError } from "../../errors.ts";
import { resourceRoutes } from "../../http/resource-routes.ts";
import type { WebhooksService } from "./webhooks.service.ts";

const params = z.object({ id: z.string() });

/**
 * /api/webhooks: the organisation's endpoints and their deliveries (register inside the
 * authenticated scope). The signing secret is in two answers only, create and rotate: it is never
 * shown again (the server keeps it sealed, for signing).
 */
export const webhooksRoutes: FastifyPluginAsync<{ service: WebhooksService; testsPerMinute?: number }> = async (plugin, { service, testsPerMinute }) => {
  const app = plugin.withTypeProvider<ZodTypeProvider>();
  // Each test event is a request from our server to the endpoint's host: a budget per organisation
  // (shared counters, so across instances) keeps the button from being a relay.
  const testLimit = {
    max: testsPerMinute ?? WEBHOOK_TESTS_PER_MINUTE,
    timeWindow: 60_000,
    hook: "preHandler" as const,
    keyGenerator: (req: FastifyRequest) => req.actor.organizationId,
    errorResponseBuilder: (_req: FastifyRequest, ctx: { after: string }) => new AppError(429, "rate_limited", WEBHOOK_MESSAGES.testsLimited(ctx.after)),
  };

  resourceRoutes(plugin, "/api/webhooks", { row: webhookEndpointSchema, page: webhookEndpointPageSchema, input: webhookInputSchema, update: webhookUpdateSchema, created: webhookWithSecretSchema }, service);

  // POST: the answer holds the new secret, which no cache or prefetch should keep.
  app.post("/api/webhooks/:id/rotate", { schema: { params, response: { 200: webhookWithSecretSchema } } }, async (req) => service.rotate(req.actor.organizationId, req.params.id));

  app.post("/api/webhooks/:id/test", { schema: { params, response: { 202: webhookDeliverySchema } }, config: { rateLimit: testLimit } }, async (req, reply) => {
    reply.status(202);
    return service.sendTest(req.actor.organizationId, req.params.id);
  });

  app.get("/api/webhooks/:id/deliveries", { schema: { params, querystring: pageQuerySchema, response: { 200: webhookDeliveryPageSchema } } }, async (req) =>
    service.deliveries(req.actor.organizationId, req.params.id, req.query),
  );

  app.post("/api/webhooks/deliveries/:id/resend", { schema: { params, response: { 202: webhookDeliverySchema } } }, async (req, reply) => {
    reply.status(202);
    return service.resend(req.actor.organizationId, req.params.id);
  });
};
