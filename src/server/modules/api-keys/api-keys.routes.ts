import type { FastifyPluginAsync } from "fastify";
import type { ZodTypeProvider } from "fastify-type-provider-zod";
import { z } from "zod";
import { apiKeyInputSchema, apiKeyPageSchema, createdApiKeySchema } from "../../../shared/api-keys.ts";
import type { ApiKeysService } from "./api-keys.service.ts";
import { pageQuerySchema } from "../../../shared/pages.ts";

const params = z.object({ id: z.string() });

/** /api/api-keys: a person's only (permission `apiKeys`, which no key has): a key cannot mint, list or revoke keys. */
export const apiKeysRoutes: FastifyPluginAsync<{ service: ApiKeysService }> = async (plugin, { service }) => {
  const app = plugin.withTypeProvider<ZodTypeProvider>();
  app.get("/api/api-keys", { schema: { querystring: pageQuerySchema, response: { 200: apiKeyPageSchema } } }, async (req) =>
    service.page(req.actor.organizationId, req.query),
  );

  app.post("/api/api-keys", { schema: { body: apiKeyInputSchema, response: { 201: createdApiKeySchema } } }, async (req, reply) => {
    reply.status(201).header("cache-control", "no-store");
    return service.create(req.actor, req.body);
  });

  app.delete("/api/api-keys/:id", { schema: { params } }, async (req, reply) => {
    await service.revoke(req.actor.organizationId, req.params.id);
    return reply.status(204).send();
  });
};
