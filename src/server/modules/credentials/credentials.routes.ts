import type { FastifyPluginAsync } from "fastify";
import type { ZodTypeProvider } from "fastify-type-provider-zod";
import { z } from "zod";
import { credentialInputSchema, credentialNameSchema, credentialStatusSchema, twilioCredentialsInputSchema } from "../../../shared/credentials.ts";
import type { CredentialsService } from "./credentials.service.ts";

const params = z.object({ name: credentialNameSchema });

/** `get_user_credential` / `set_user_credential` of the spec, as GET/PUT /api/credentials/:name. */
export const credentialRoutes: FastifyPluginAsync<{ service: CredentialsService }> = async (base, { service }) => {
  const app = base.withTypeProvider<ZodTypeProvider>();
  // Static, so it wins over /:name: Twilio's SID and token are saved and verified as one pair.
  app.put("/api/credentials/twilio", { schema: { body: twilioCredentialsInputSchema } }, (req) =>
    service.saveTwilio(req.actor.organizationId, req.body),
  );
  app.get("/api/credentials/:name", { schema: { params, response: { 200: credentialStatusSchema } } }, (req) => service.status(req.actor.organizationId, req.params.name));
  app.put("/api/credentials/:name", { schema: { params, body: credentialInputSchema } }, (req) =>
    service.save(req.actor.organizationId, req.params.name, req.body.value),
  );
  app.delete("/api/credentials/:name", { schema: { params } }, async (req, reply) => {
    await service.remove(req.actor.organizationId, req.params.name);
    return reply.status(204).send();
  });
};
