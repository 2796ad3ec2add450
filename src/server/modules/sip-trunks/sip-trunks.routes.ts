import type { FastifyPluginAsync } from "fastify";
import type { ZodTypeProvider } from "fastify-type-provider-zod";
import { z } from "zod";
import { sipListenerSchema, sipTrunkInputSchema, sipTrunkSchema, sipTrunkUpdateSchema } from "../../../shared/sip-trunks.ts";
import type { SipTrunksService } from "./sip-trunks.service.ts";

const params = z.object({ id: z.string() });
const tags = ["SIP trunks"];

/** /api/sip-trunks: the organisation's SIP trunks and PBXs (register inside the authenticated scope). */
export const sipTrunksRoutes: FastifyPluginAsync<{ service: SipTrunksService }> = async (plugin, { service }) => {
  const app = plugin.withTypeProvider<ZodTypeProvider>();

  // Static, so it wins over /:id: the address trunks are pointed at.
  app.get(
    "/api/sip-trunks/listener",
    { schema: { tags, operationId: "getSipListener", summary: "Where this server takes SIP: public address, port, transports", response: { 200: sipListenerSchema } } },
    async () => service.listener(),
  );

  app.get(
    "/api/sip-trunks",
    { schema: { tags, operationId: "listSipTrunks", summary: "The organisation's SIP trunks, with their numbers and state (passwords never shown)", response: { 200: z.array(sipTrunkSchema) } } },
    async (req) => service.list(req.actor.organizationId),
  );

  app.get(
    "/api/sip-trunks/:id",
    { schema: { tags, operationId: "getSipTrunk", summary: "One SIP trunk", params, response: { 200: sipTrunkSchema } } },
    async (req) => service.get(req.actor.organizationId, req.params.id),
  );

  app.post(
    "/api/sip-trunks",
    { schema: { tags, operationId: "createSipTrunk", summary: "Add a SIP trunk (builders)", body: sipTrunkInputSchema, response: { 201: sipTrunkSchema } } },
    async (req, reply) => {
      reply.status(201);
      return service.create(req.actor.organizationId, req.body);
    },
  );

  app.patch(
    "/api/sip-trunks/:id",
    { schema: { tags, operationId: "updateSipTrunk", summary: "Change a SIP trunk; a password left out stays as saved", params, body: sipTrunkUpdateSchema, response: { 200: sipTrunkSchema } } },
    async (req) => service.update(req.actor.organizationId, req.params.id, req.body),
  );

  app.delete(
    "/api/sip-trunks/:id",
    { schema: { tags, operationId: "deleteSipTrunk", summary: "Delete a SIP trunk no number uses (409 names the numbers otherwise)", params } },
    async (req, reply) => {
      await service.remove(req.actor.organizationId, req.params.id);
      return reply.status(204).send();
    },
  );
};
