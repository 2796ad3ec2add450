import type { FastifyPluginAsync, FastifyRequest } from "fastify";
import type { ZodTypeProvider } from "fastify-type-provider-zod";
import { z } from "zod";
import { providerInputSchema, providerSchema, providerPageSchema, providerUpdateSchema, voicePreviewSchema } from "../../../shared/providers.ts";
import { resourceRoutes } from "../../http/resource-routes.ts";
import type { ProvidersService } from "./providers.service.ts";

/** Each preview is a paid request to the voice service: a few a minute per organisation. */
export const PREVIEWS_PER_MINUTE = 10;

/** /api/providers: the organisation's transcribers, language models and voices (register inside the authenticated scope). */
export const providersRoutes: FastifyPluginAsync<{ service: ProvidersService }> = async (plugin, { service }) => {
  const tags = ["Providers"];
  resourceRoutes(plugin, "/api/providers", { row: providerSchema, page: providerPageSchema, input: providerInputSchema, update: providerUpdateSchema }, service, {
    tags,
    list: { operationId: "listProviders", summary: "The organisation's providers (keys never shown, only a masked hint)" },
    get: { operationId: "getProvider", summary: "One provider" },
    create: { operationId: "createProvider", summary: "Add a transcriber, language model or voice with its key (admins)" },
    update: { operationId: "updateProvider", summary: "Rename a provider, change its base URL or key; a key left out stays as saved" },
    remove: { operationId: "deleteProvider", summary: "Delete a provider no assistant uses (409 names the assistants otherwise)" },
  });

  plugin.withTypeProvider<ZodTypeProvider>().post(
    "/api/providers/:id/preview",
    {
      schema: { tags, operationId: "previewVoice", summary: "A short sample in a voice provider's voice, as audio/wav (16-bit PCM, 24 kHz)", params: z.object({ id: z.string() }), body: voicePreviewSchema },
      config: { rateLimit: { max: PREVIEWS_PER_MINUTE, timeWindow: 60_000, hook: "preHandler" as const, keyGenerator: (req: FastifyRequest) => req.actor.organizationId } },
    },
    async (req, reply) => {
      const wav = await service.preview(req.actor.organizationId, req.params.id, req.body);
      return reply.type("audio/wav").header("cache-control", "no-store").send(wav);
    },
  );
};
