import type { FastifyPluginAsync } from "fastify";
import type { ZodTypeProvider } from "fastify-type-provider-zod";
import { z } from "zod";
import { dncInputSchema, dncPageSchema } from "../../../shared/outbound.ts";
import { pageQuerySchema } from "../../../shared/pages.ts";
import type { DoNotCallService } from "./do-not-call.service.ts";

/** /api/dnc: the do-not-call list (register inside the authenticated scope). */
export const doNotCallRoutes: FastifyPluginAsync<{ service: DoNotCallService }> = async (base, { service }) => {
  const app = base.withTypeProvider<ZodTypeProvider>();
  app.get("/api/dnc", { schema: { querystring: pageQuerySchema, response: { 200: dncPageSchema } } }, async (req) => service.list(req.actor.organizationId, req.query));
  app.post("/api/dnc", { schema: { body: dncInputSchema } }, async (req, reply) => {
    reply.status(201);
    return service.add(req.actor.organizationId, req.body);
  });
  app.delete("/api/dnc/:phone", { schema: { params: z.object({ phone: z.string().max(40) }) } }, async (req, reply) => {
    await service.remove(req.actor.organizationId, req.params.phone);
    return reply.status(204).send();
  });
};
