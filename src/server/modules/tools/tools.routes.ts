import type { FastifyPluginAsync } from "fastify";
import type { ZodTypeProvider } from "fastify-type-provider-zod";
import { z } from "zod";
import { toolExecutionRequestSchema, toolInputSchema, toolSchema, toolPageSchema, toolUpdateSchema } from "../../../shared/tools.ts";
import { resourceRoutes } from "../../http/resource-routes.ts";
import type { ToolsService } from "./tools.service.ts";

const params = z.object({ id: z.string() });

/** /api/tools: the signed-in user's HTTP tools (register inside the authenticated scope). */
export const toolsRoutes: FastifyPluginAsync<{ service: ToolsService }> = async (plugin, { service }) => {
  const app = plugin.withTypeProvider<ZodTypeProvider>();

  resourceRoutes(plugin, "/api/tools", { row: toolSchema, page: toolPageSchema, input: toolInputSchema, update: toolUpdateSchema }, service);

  // Engine failures (refused host, timeout, oversized answer, ...) are ToolExecutionErrors, which
  // the error handler sends as { error: { code, message } } with a fitting 4xx/5xx status.
  // Each test makes our server call out to the internet; a per-user budget keeps it from being a relay.
  const executeLimit = { max: 60, timeWindow: "1 minute", keyGenerator: (req: { actor?: { organizationId: string }; ip: string }) => req.actor?.organizationId ?? req.ip };
  app.post("/api/tools/:id/execute", { schema: { params, body: toolExecutionRequestSchema }, config: { rateLimit: executeLimit } }, async (req) =>
    service.execute(req.actor.organizationId, req.params.id, req.body.parameters),
  );
};
