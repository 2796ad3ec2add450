import type { FastifyPluginAsync } from "fastify";
import type { ZodTypeProvider } from "fastify-type-provider-zod";
import { retentionSettingsSchema, type RetentionSettings } from "../../../shared/retention.ts";
import { readRetention, saveRetention } from "./retention.repo.ts";

/** GET/PUT /api/settings/retention: the signed-in user's retention rule (register inside the authenticated scope). */
export const retentionRoutes: FastifyPluginAsync = async (base) => {
  const app = base.withTypeProvider<ZodTypeProvider>();
  const { db } = app.ctx;
  app.get("/api/settings/retention", { schema: { response: { 200: retentionSettingsSchema } } }, (req): Promise<RetentionSettings> => readRetention(db, req.actor.organizationId));
  app.put("/api/settings/retention", { schema: { body: retentionSettingsSchema } }, async (req): Promise<RetentionSettings> => {
    await saveRetention(db, req.actor.organizationId, req.body);
    req.log.info({ ...req.body }, "retention settings changed");
    return readRetention(db, req.actor.organizationId);
  });
};
