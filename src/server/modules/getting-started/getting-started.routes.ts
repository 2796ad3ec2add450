import type { FastifyPluginAsync } from "fastify";
import type { ZodTypeProvider } from "fastify-type-provider-zod";
import { gettingStartedSchema } from "../../../shared/getting-started.ts";
import type { GettingStartedService } from "./getting-started.service.ts";

/** GET /api/getting-started: the Assistants page's checklist, until every step is done. */
export const gettingStartedRoutes: FastifyPluginAsync<{ service: GettingStartedService }> = async (plugin, { service }) => {
  const app = plugin.withTypeProvider<ZodTypeProvider>();
  app.get("/api/getting-started", { schema: { response: { 200: gettingStartedSchema } } }, (req) => service.progress(req.actor.organizationId));
};
