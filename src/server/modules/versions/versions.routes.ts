import type { FastifyPluginAsync } from "fastify";
import type { ZodTypeProvider } from "fastify-type-provider-zod";
import { z } from "zod";
import { assistantVersionListSchema, assistantVersionSchema, publishSchema, rollbackSchema } from "../../../shared/versions.ts";
import type { VersionsService } from "./versions.service.ts";

const params = z.object({ id: z.string() });

/** /api/assistants/:id/versions, publish and rollback (register inside the authenticated scope). */
export const versionsRoutes: FastifyPluginAsync<{ service: VersionsService }> = async (plugin, { service }) => {
  const app = plugin.withTypeProvider<ZodTypeProvider>();

  app.get("/api/assistants/:id/versions", { schema: { params, response: { 200: assistantVersionListSchema } } }, async (req) => service.list(req.actor.organizationId, req.params.id));

  app.get("/api/assistants/:id/versions/:n", { schema: { params: params.extend({ n: z.string() }), response: { 200: assistantVersionSchema } } }, async (req) =>
    service.get(req.actor.organizationId, req.params.id, req.params.n),
  );

  app.post("/api/assistants/:id/publish", { schema: { params, body: publishSchema } }, async (req, reply) => {
    reply.status(201);
    return service.publish(req.actor.organizationId, req.params.id, req.body, req.actor.userId);
  });

  app.post("/api/assistants/:id/rollback", { schema: { params, body: rollbackSchema } }, async (req, reply) => {
    reply.status(201);
    return service.rollback(req.actor.organizationId, req.params.id, req.body.version, req.actor.userId);
  });
};
