import type { FastifyPluginAsync } from "fastify";
import type { ZodTypeProvider } from "fastify-type-provider-zod";
import { z } from "zod";
import { dncInputSchema, dncPageSchema } from "../../../shared/outbound.ts";
import type { DoNotCallService } from "./do-not-call.service.ts";

const listQuery = z.object({
  limit: z.coerce.number({ error: "limit must be a number" }).int("limit must be a whole number").min(1, "limit must be at least 1").max(500, "limit must be at most 500").default(100),
  cursor: z.string().max(200, "cursor is not one this list gave").optional(),
});

/** /api/dnc: the do-not-call list (register inside the authenticated scope). */
export const doNotCallRoutes: FastifyPluginAsync<{ service: DoNotCallService }> = async (base, { service }) => {
  const app = base.withTypeProvider<ZodTypeProvider>();
  app.get("/api/dnc", { schema: { querystring: listQuery, response: { 200: dncPageSchema } } }, async (req) => service.list(req.actor.organizationId, req.query));
  app.post("/api/dnc", { schema: { body: dncInputSchema } }, async (req, reply) => {
    reply.status(201);
    return service.add(req.actor.organizationId, req.body);
  });
  app.delete("/api/dnc/:phone", { schema: { params: z.object({ phone: z.string().max(40) }) } }, async (req, reply) => {
    await service.remove(req.actor.organizationId, req.params.phone);
    return reply.status(204).send();
  });
};
