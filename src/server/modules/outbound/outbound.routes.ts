import type { FastifyPluginAsync } from "fastify";
import type { ZodTypeProvider } from "fastify-type-provider-zod";
import { callSettingsSchema, outboundCallInputSchema } from "../../../shared/outbound.ts";
import type { OutboundService } from "./outbound.service.ts";

/** POST /api/calls/outbound and GET/PUT /api/settings/calls (register inside the authenticated scope). */
export const outboundRoutes: FastifyPluginAsync<{ service: OutboundService }> = async (base, { service }) => {
  const app = base.withTypeProvider<ZodTypeProvider>();
  app.post("/api/calls/outbound", { schema: { body: outboundCallInputSchema } }, async (req, reply) => {
    const call = await service.place(req.actor.organizationId, req.body);
    req.log.info({ callId: call.id }, "outbound call placed");
    reply.status(201);
    return call;
  });
  app.get("/api/settings/calls", { schema: { response: { 200: callSettingsSchema } } }, async (req) => service.settings(req.actor.organizationId));
  app.put("/api/settings/calls", { schema: { body: callSettingsSchema } }, async (req) => service.saveSettings(req.actor.organizationId, req.body));
};
