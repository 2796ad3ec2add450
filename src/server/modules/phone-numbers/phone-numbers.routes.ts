import type { FastifyPluginAsync } from "fastify";
import type { ZodTypeProvider } from "fastify-type-provider-zod";
import { z } from "zod";
import { phoneNumberCreateSchema, phoneNumberPageSchema, phoneNumberSchema, phoneNumberUpdateSchema } from "../../../shared/phone-numbers.ts";
import { reachabilityOf, reachabilitySchema, type Reachability } from "../../../shared/reachability.ts";
import type { PhoneNumbersService } from "./phone-numbers.service.ts";
import { pageQuerySchema } from "../../../shared/pages.ts";

const params = z.object({ id: z.string() });

/** /api/phone-numbers: the signed-in user's Twilio numbers (register inside the authenticated scope). */
export const phoneNumbersRoutes: FastifyPluginAsync<{ service: PhoneNumbersService }> = async (plugin, { service }) => {
  const app = plugin.withTypeProvider<ZodTypeProvider>();

  app.get("/api/phone-numbers", { schema: { querystring: pageQuerySchema, response: { 200: phoneNumberPageSchema } } }, async (req) =>
    service.page(req.actor.organizationId, req.query),
  );

  // What Twilio would be told to reach for a call, and why it could not (Phone Numbers, Settings).
  app.get("/api/telephony/reachability", { schema: { response: { 200: reachabilitySchema } } }, async (): Promise<Reachability> => reachabilityOf(app.ctx.config.publicUrl, app.ctx.config.twilioApiBase));

  // A Twilio purchase, or (provider "sip") a number on one of the organisation's SIP trunks.
  app.post(
    "/api/phone-numbers",
    { schema: { summary: "Buy a number at Twilio, or add a number on a SIP trunk (provider: sip; nothing is bought)", body: phoneNumberCreateSchema, response: { 201: phoneNumberSchema } } },
    async (req, reply) => {
      reply.status(201);
      const body = req.body;
      return body.provider === "sip" ? service.addSip(req.actor.organizationId, body) : service.purchase(req.actor.organizationId, body);
    },
  );

  app.patch("/api/phone-numbers/:id", { schema: { params, body: phoneNumberUpdateSchema, response: { 200: phoneNumberSchema } } }, async (req) =>
    service.update(req.actor.organizationId, req.params.id, req.body),
  );

  app.delete("/api/phone-numbers/:id", { schema: { params } }, async (req, reply) => {
    await service.remove(req.actor.organizationId, req.params.id);
    return reply.status(204).send();
  });
};
