import type { FastifyPluginAsync } from "fastify";
import type { ZodTypeProvider } from "fastify-type-provider-zod";
import { z } from "zod";
import { publishTestingSchema, type PublishTesting } from "../../../shared/scenarios.ts";
import { pageQuerySchema } from "../../../shared/pages.ts";
import { draftStatePageSchema, assistantVersionPageSchema, assistantVersionSchema, assistantVersionSummarySchema, publishSchema, rollbackSchema } from "../../../shared/versions.ts";
import type { VersionsService } from "./versions.service.ts";

const params = z.object({ id: z.string() });

/** /api/assistants/:id/versions, publish and rollback (register inside the authenticated scope). */
export const versionsRoutes: FastifyPluginAsync<{
  service: VersionsService;
  /** The assistant's test scenarios run against the draft first (the test-runs module); absent: publish at once. */
  beforePublish?: (organizationId: string, assistantId: string, confirmFailures: boolean, by: string | null) => Promise<{ publish: true; withFailures: boolean } | { publish: false; testing: PublishTesting }>;
}> = async (plugin, { service, beforePublish }) => {
  const app = plugin.withTypeProvider<ZodTypeProvider>();

  app.get("/api/assistants/drafts", { schema: { summary: "Each assistant's draft against the version callers hear", querystring: pageQuerySchema, response: { 200: draftStatePageSchema } } }, async (req) =>
    service.drafts(req.actor.organizationId, req.query),
  );

  app.get("/api/assistants/:id/versions", { schema: { params, querystring: pageQuerySchema, response: { 200: assistantVersionPageSchema } } }, async (req) =>
    service.list(req.actor.organizationId, req.params.id, req.query),
  );

  app.get("/api/assistants/:id/versions/:n", { schema: { params: params.extend({ n: z.string() }), response: { 200: assistantVersionSchema } } }, async (req) =>
    service.get(req.actor.organizationId, req.params.id, req.params.n),
  );

  // 201 with the new version; 202 while the draft's tests run first (publish again once they are done);
  // 409 tests_failed when one failed, unless confirm_failures.
  app.post(
    "/api/assistants/:id/publish",
    { schema: { params, body: publishSchema, response: { 201: assistantVersionSummarySchema, 202: publishTestingSchema } } },
    async (req, reply) => {
      const { organizationId, userId } = req.actor;
      const gate = beforePublish ? await beforePublish(organizationId, req.params.id, req.body.confirm_failures === true, userId) : { publish: true as const, withFailures: false };
      if (!gate.publish) return reply.status(202).send(gate.testing);
      reply.status(201);
      return service.publish(organizationId, req.params.id, { note: req.body.note, withFailures: gate.withFailures }, userId);
    },
  );

  app.post("/api/assistants/:id/rollback", { schema: { params, body: rollbackSchema } }, async (req, reply) => {
    reply.status(201);
    return service.rollback(req.actor.organizationId, req.params.id, req.body.version, req.actor.userId);
  });
};
