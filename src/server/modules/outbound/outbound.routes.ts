import type { FastifyPluginAsync } from "fastify";
import type { ZodTypeProvider } from "fastify-type-provider-zod";
import { dialAllowListSchema } from "../../../shared/dial-safety.ts";
import { z } from "zod";
import { callSettingsSchema, cancelledCallSchema, outboundCallInputSchema, outboundCallSchema } from "../../../shared/outbound.ts";
import type { OutboundService } from "./outbound.service.ts";

/** POST /api/calls/outbound, POST /api/calls/:id/cancel, GET/PUT /api/settings/calls and /api/settings/dial-allow-list (register inside the authenticated scope). */
export const outboundRoutes: FastifyPluginAsync<{ service: OutboundService }> = async (base, { service }) => {
  const app = base.withTypeProvider<ZodTypeProvider>();
  app.post("/api/calls/outbound", { schema: { body: outboundCallInputSchema, response: { 201: outboundCallSchema } } }, async (req, reply) => {
    const call = await service.place(req.actor.organizationId, req.body);
    req.log.info({ callId: call.id }, "outbound call placed");
    reply.status(201);
    return call;
  });
  app.post(
    "/api/calls/:id/cancel",
    { schema: { summary: "Cancel an outbound call still queued or ringing", params: z.object({ id: z.string() }), response: { 200: cancelledCallSchema } } },
    async (req) => {
      const call = await service.cancel(req.actor.organizationId, req.params.id);
      req.log.info({ callId: call.id }, "outbound call cancelled");
      return call;
    },
  );
  app.get("/api/settings/calls", { schema: { response: { 200: callSettingsSchema } } }, async (req) => service.settings(req.actor.organizationId));
  app.put("/api/settings/calls", { schema: { body: callSettingsSchema } }, async (req) => service.saveSettings(req.actor.organizationId, req.body));
  app.get(
    "/api/settings/dial-allow-list",
    { schema: { summary: "Numbers and prefixes outbound calls may dial though a dial-safety rule refuses them", response: { 200: dialAllowListSchema } } },
    async (req) => service.allowList(req.actor.organizationId),
  );
  app.put(
    "/api/settings/dial-allow-list",
    { schema: { summary: "Replace the allowed destinations (admins)", body: dialAllowListSchema, response: { 200: dialAllowListSchema } } },
    async (req) => service.saveAllowList(req.actor.organizationId, req.body),
  );
};
