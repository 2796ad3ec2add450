import type { FastifyPluginAsync } from "fastify";
import type { ZodTypeProvider } from "fastify-type-provider-zod";
import { busyMessageSettingsSchema } from "../../../shared/calls.ts";
import type { BusyMessages } from "./busy-messages.ts";

/** GET/PUT /api/settings/busy-message: Settings → Calls (register inside the authenticated scope). */
export const busyMessageRoutes: FastifyPluginAsync<{ service: BusyMessages }> = async (base, { service }) => {
  const app = base.withTypeProvider<ZodTypeProvider>();
  app.get("/api/settings/busy-message", { schema: { response: { 200: busyMessageSettingsSchema } } }, async (req) => service.settings(req.actor.organizationId));
  app.put("/api/settings/busy-message", { schema: { body: busyMessageSettingsSchema, response: { 200: busyMessageSettingsSchema } } }, async (req) =>
    service.save(req.actor.organizationId, req.body),
  );
};
