import type { FastifyPluginAsync } from "fastify";
import type { ZodTypeProvider } from "fastify-type-provider-zod";
import { z } from "zod";
import { providerInputSchema, providerSchema, providerUpdateSchema } from "../../../shared/providers.ts";
import type { ProvidersService } from "./providers.service.ts";

const params = z.object({ id: z.string() });
const tags = ["Providers"];

/** /api/providers: the organisation's transcribers, language models and voices (register inside the authenticated scope). */
export const providersRoutes: FastifyPluginAsync<{ service: ProvidersService }> = async (plugin, { service }) => {
  const app = plugin.withTypeProvider<ZodTypeProvider>();

  app.get(
    "/api/providers",
    { schema: { tags, operationId: "listProviders", summary: "The organisation's providers (keys never shown, only a masked hint)", response: { 200: z.array(providerSchema) } } },
    async (req) => service.list(req.actor.organizationId),
  );

  app.get(
    "/api/providers/:id",
    { schema: { tags, operationId: "getProvider", summary: "One provider", params, response: { 200: providerSchema } } },
    async (req) => service.get(req.actor.organizationId, req.params.id),
  );

  app.post(
    "/api/providers",
    { schema: { tags, operationId: "createProvider", summary: "Add a transcriber, language model or voice with its key (admins)", body: providerInputSchema, response: { 201: providerSchema } } },
    async (req, reply) => {
      reply.status(201);
      return service.create(req.actor.organizationId, req.body);
    },
  );

  app.patch(
    "/api/providers/:id",
    { schema: { tags, operationId: "updateProvider", summary: "Rename a provider, change its base URL or key; a key left out stays as saved", params, body: providerUpdateSchema, response: { 200: providerSchema } } },
    async (req) => service.update(req.actor.organizationId, req.params.id, req.body),
  );

  app.delete(
    "/api/providers/:id",
    { schema: { tags, operationId: "deleteProvider", summary: "Delete a provider no assistant uses (409 names the assistants otherwise)", params } },
    async (req, reply) => {
      await service.remove(req.actor.organizationId, req.params.id);
      return reply.status(204).send();
    },
  );
};
