import type { FastifyPluginAsync } from "fastify";
import type { ZodTypeProvider } from "fastify-type-provider-zod";
import { z } from "zod";
import { CUSTOMERS_API_PATH, type CustomerCard } from "../../../shared/marketing.ts";
import { createMarketingService } from "./marketing.service.ts";

// The wire shape lives in src/shared as a plain interface (the landing page must not load zod);
// `satisfies` keeps this serializer and that interface from drifting apart.
const customerCardsSchema = z.array(
  z.object({
    id: z.string(),
    title: z.string(),
    backgroundImage: z.string(),
    logoImage: z.string(),
    videoUrl: z.string(),
    captionsUrl: z.string(),
  }) satisfies z.ZodType<CustomerCard>,
);

/** Public marketing data (register in the public section). */
export const marketingRoutes: FastifyPluginAsync = async (plugin) => {
  const app = plugin.withTypeProvider<ZodTypeProvider>();
  const { storage, signer } = app.ctx;
  const service = createMarketingService({ storage, signer });

  app.get(CUSTOMERS_API_PATH, { schema: { response: { 200: customerCardsSchema } } }, async (_req, reply) => {
    // Each response carries freshly signed addresses; a cached copy would hand out ageing ones.
    reply.header("cache-control", "no-store");
    return service.customerCards();
  });
};
