import type { FastifyPluginAsync } from "fastify";
import type { ZodTypeProvider } from "fastify-type-provider-zod";
import { sipListenerSchema, sipTrunkInputSchema, sipTrunkSchema, sipTrunkPageSchema, sipTrunkUpdateSchema } from "../../../shared/sip-trunks.ts";
import { resourceRoutes } from "../../http/resource-routes.ts";
import type { SipTrunksService } from "./sip-trunks.service.ts";

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

  resourceRoutes(plugin, "/api/sip-trunks", { row: sipTrunkSchema, page: sipTrunkPageSchema, input: sipTrunkInputSchema, update: sipTrunkUpdateSchema }, service, {
    tags,
    list: { operationId: "listSipTrunks", summary: "The organisation's SIP trunks, with their numbers and state (passwords never shown)" },
    get: { operationId: "getSipTrunk", summary: "One SIP trunk" },
    create: { operationId: "createSipTrunk", summary: "Add a SIP trunk (builders)" },
    update: { operationId: "updateSipTrunk", summary: "Change a SIP trunk; a password left out stays as saved" },
    remove: { operationId: "deleteSipTrunk", summary: "Delete a SIP trunk no number uses (409 names the numbers otherwise)" },
  });
};
