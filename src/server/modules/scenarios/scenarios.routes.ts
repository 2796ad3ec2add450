import type { FastifyPluginAsync } from "fastify";
import type { ZodTypeProvider } from "fastify-type-provider-zod";
import { z } from "zod";
import { pageQuerySchema } from "../../../shared/pages.ts";
import { scenarioInputSchema, scenarioPageSchema, scenarioSchema, scenarioUpdateSchema } from "../../../shared/scenarios.ts";
import type { ScenariosService } from "./scenarios.service.ts";

const params = z.object({ id: z.string() });
const oneParams = params.extend({ sid: z.string() });

/** /api/assistants/:id/scenarios: an assistant's test scenarios (register inside the authenticated scope). */
export const scenariosRoutes: FastifyPluginAsync<{ service: ScenariosService }> = async (plugin, { service }) => {
  const app = plugin.withTypeProvider<ZodTypeProvider>();

  app.get("/api/assistants/:id/scenarios", { schema: { params, querystring: pageQuerySchema, response: { 200: scenarioPageSchema } } }, async (req) =>
    service.page(req.actor.organizationId, req.params.id, req.query),
  );

  app.post("/api/assistants/:id/scenarios", { schema: { params, body: scenarioInputSchema, response: { 201: scenarioSchema } } }, async (req, reply) => {
    reply.status(201);
    return service.create(req.actor.organizationId, req.params.id, req.body);
  });

  app.patch("/api/assistants/:id/scenarios/:sid", { schema: { params: oneParams, body: scenarioUpdateSchema, response: { 200: scenarioSchema } } }, async (req) =>
    service.update(req.actor.organizationId, req.params.id, req.params.sid, req.body),
  );

  app.delete("/api/assistants/:id/scenarios/:sid", { schema: { params: oneParams } }, async (req, reply) => {
    await service.remove(req.actor.organizationId, req.params.id, req.params.sid);
    return reply.status(204).send();
  });
};
