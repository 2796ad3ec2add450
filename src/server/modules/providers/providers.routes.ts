import type { FastifyPluginAsync } from "fastify";
import { providerInputSchema, providerSchema, providerUpdateSchema } from "../../../shared/providers.ts";
import { resourceRoutes } from "../../http/resource-routes.ts";
import type { ProvidersService } from "./providers.service.ts";

/** /api/providers: the organisation's transcribers, language models and voices (register inside the authenticated scope). */
export const providersRoutes: FastifyPluginAsync<{ service: ProvidersService }> = async (plugin, { service }) => {
  resourceRoutes(plugin, "/api/providers", { row: providerSchema, input: providerInputSchema, update: providerUpdateSchema }, service, {
    tags: ["Providers"],
    list: { operationId: "listProviders", summary: "The organisation's providers (keys never shown, only a masked hint)" },
    get: { operationId: "getProvider", summary: "One provider" },
    create: { operationId: "createProvider", summary: "Add a transcriber, language model or voice with its key (admins)" },
    update: { operationId: "updateProvider", summary: "Rename a provider, change its base URL or key; a key left out stays as saved" },
    remove: { operationId: "deleteProvider", summary: "Delete a provider no assistant uses (409 names the assistants otherwise)" },
  });
};
