import type { FastifyPluginAsync, FastifyRequest } from "fastify";
import type { ZodTypeProvider } from "fastify-type-provider-zod";
import { z } from "zod";
import { providerInputSchema, providerSchema, providerUpdateSchema, voicePreviewSchema } from "../../../shared/providers.ts";
import type { ProvidersService } from "./providers.service.ts";

const params = z.object({ id: z.string() });
const tags = ["Providers"];
/** Each preview is a paid request to the voice service: a few a minute per organisation. */
export const PREVIEWS_PER_MINUTE = 10;

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

  app.post(
    "/api/providers/:id/preview",
    {
      schema: { tags, operationId: "previewVoice", summary: "A short sample in a voice provider's voice, as audio/wav (16-bit PCM, 24 kHz)", params, body: voicePreviewSchema },
      config: { rateLimit: { max: PREVIEWS_PER_MINUTE, timeWindow: 60_000, hook: "preHandler" as const, keyGenerator: (req: FastifyRequest) => req.actor.organizationId } },
    },
    async (req, reply) => {
      const wav = await service.preview(req.actor.organizationId, req.params.id, req.body);
      return reply.type("audio/wav").header("cache-control", "no-store").send(wav);
    },
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
