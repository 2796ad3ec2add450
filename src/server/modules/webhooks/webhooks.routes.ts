import type { FastifyPluginAsync } from "fastify";
import type { ZodTypeProvider } from "fastify-type-provider-zod";
import { z } from "zod";
import { webhookDeliverySchema, webhookEndpointSchema, webhookInputSchema, webhookUpdateSchema, webhookWithSecretSchema } from "../../../shared/webhooks.ts";
import type { WebhooksService } from "./webhooks.service.ts";

const params = z.object({ id: z.string() });

/** /api/webhooks: the signed-in user's endpoints and their deliveries (register inside the authenticated scope). */
export const webhooksRoutes: FastifyPluginAsync<{ service: WebhooksService }> = async (plugin, { service }) => {
  const app = plugin.withTypeProvider<ZodTypeProvider>();

  app.get("/api/webhooks", { schema: { response: { 200: z.array(webhookEndpointSchema) } } }, async (req) => service.list(req.actor.organizationId));

  app.post("/api/webhooks", { schema: { body: webhookInputSchema, response: { 201: webhookWithSecretSchema } } }, async (req, reply) => {
    reply.status(201);
    return service.create(req.actor.organizationId, req.body);
  });

  app.get("/api/webhooks/:id", { schema: { params, response: { 200: webhookEndpointSchema } } }, async (req) => service.get(req.actor.organizationId, req.params.id));

  app.patch("/api/webhooks/:id", { schema: { params, body: webhookUpdateSchema, response: { 200: webhookEndpointSchema } } }, async (req) => service.update(req.actor.organizationId, req.params.id, req.body));

  app.delete("/api/webhooks/:id", { schema: { params } }, async (req, reply) => {
    await service.remove(req.actor.organizationId, req.params.id);
    return reply.status(204).send();
  });

  // POST: the answer holds the secret, which no cache or prefetch should keep.
  app.post("/api/webhooks/:id/reveal", { schema: { params, response: { 200: webhookWithSecretSchema } } }, async (req) => service.reveal(req.actor.organizationId, req.params.id));

  app.post("/api/webhooks/:id/rotate", { schema: { params, response: { 200: webhookWithSecretSchema } } }, async (req) => service.rotate(req.actor.organizationId, req.params.id));

  app.post("/api/webhooks/:id/test", { schema: { params, response: { 202: webhookDeliverySchema } } }, async (req, reply) => {
    reply.status(202);
    return service.sendTest(req.actor.organizationId, req.params.id);
  });

  app.get("/api/webhooks/:id/deliveries", { schema: { params, response: { 200: z.array(webhookDeliverySchema) } } }, async (req) => service.deliveries(req.actor.organizationId, req.params.id));

  app.post("/api/webhooks/deliveries/:id/resend", { schema: { params, response: { 202: webhookDeliverySchema } } }, async (req, reply) => {
    reply.status(202);
    return service.resend(req.actor.organizationId, req.params.id);
  });
};
