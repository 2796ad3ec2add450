import type { FastifyPluginAsync } from "fastify";
import type { ZodTypeProvider } from "fastify-type-provider-zod";
import { z } from "zod";
import {
  assistantDefaultsSchema,
  assistantInputSchema,
  assistantPageSchema,
  assistantSchema,
  assistantUpdateSchema,
  DEFAULT_VOICE,
  modelOptions,
  type AssistantDefaults,
} from "../../../shared/assistants.ts";
import { pageQuerySchema } from "../../../shared/pages.ts";
import type { AssistantsService } from "./assistants.service.ts";

const params = z.object({ id: z.string() });

/** /api/assistants: the signed-in user's voice assistants (register inside the authenticated scope). */
export const assistantsRoutes: FastifyPluginAsync<{ service: AssistantsService }> = async (plugin, { service }) => {
  const app = plugin.withTypeProvider<ZodTypeProvider>();
  const { config } = app.ctx;

  // Static, so it wins over /:id: what the Create form starts with.
  app.get("/api/assistants/defaults", { schema: { response: { 200: assistantDefaultsSchema } } }, async (): Promise<AssistantDefaults> => ({
    voice: DEFAULT_VOICE,
    model: config.defaultRealtimeModel,
    models: modelOptions(config.defaultRealtimeModel),
  }));

  app.get("/api/assistants", { schema: { querystring: pageQuerySchema, response: { 200: assistantPageSchema } } }, async (req) =>
    service.page(req.actor.organizationId, req.query),
  );

  app.get("/api/assistants/:id", { schema: { params, response: { 200: assistantSchema } } }, async (req) => service.get(req.actor.organizationId, req.params.id));

  app.post("/api/assistants", { schema: { body: assistantInputSchema, response: { 201: assistantSchema } } }, async (req, reply) => {
    reply.status(201);
    return service.create(req.actor.organizationId, req.body, req.actor.userId);
  });

  app.patch("/api/assistants/:id", { schema: { params, body: assistantUpdateSchema, response: { 200: assistantSchema } } }, async (req) =>
    service.update(req.actor.organizationId, req.params.id, req.body),
  );

  app.delete("/api/assistants/:id", { schema: { params } }, async (req, reply) => {
    await service.remove(req.actor.organizationId, req.params.id);
    return reply.status(204).send();
  });
};
