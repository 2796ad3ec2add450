import type { FastifyPluginAsync } from "fastify";
import type { ZodTypeProvider } from "fastify-type-provider-zod";
import { z } from "zod";
import { testRunCreatedSchema, testRunInputSchema, testRunSchema } from "../../../shared/scenarios.ts";
import type { TestRunsService } from "./test-runs.service.ts";

const params = z.object({ id: z.string() });

/** Test runs of an assistant's scenarios (register inside the authenticated scope). */
export const testRunsRoutes: FastifyPluginAsync<{ service: TestRunsService }> = async (plugin, { service }) => {
  const app = plugin.withTypeProvider<ZodTypeProvider>();

  app.post("/api/assistants/:id/test-runs", { schema: { params, body: testRunInputSchema, response: { 202: testRunCreatedSchema } } }, async (req, reply) => {
    reply.status(202);
    return service.start(req.actor.organizationId, req.params.id, req.body, req.actor.userId);
  });

  app.get("/api/assistants/:id/test-runs/latest", { schema: { params, response: { 200: testRunSchema.nullable() } } }, async (req) => service.latest(req.actor.organizationId, req.params.id));

  app.get("/api/test-runs/:id", { schema: { params, response: { 200: testRunSchema } } }, async (req) => service.get(req.actor.organizationId, req.params.id));

  app.post("/api/test-runs/:id/cancel", { schema: { params, response: { 200: testRunSchema } } }, async (req) => service.cancel(req.actor.organizationId, req.params.id));
};
