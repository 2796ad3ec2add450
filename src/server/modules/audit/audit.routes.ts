import { Readable } from "node:stream";
import type { FastifyPluginAsync } from "fastify";
import type { ZodTypeProvider } from "fastify-type-provider-zod";
import { auditFiltersSchema, auditListQuerySchema, auditPageSchema, type AuditPage } from "../../../shared/audit.ts";
import type { AuditService } from "./audit.service.ts";

/**
 * GET /api/audit-log and GET /api/audit-log.csv (Admin and Owner: the `audit` permission). Read
 * only: there is no route that changes or removes an entry.
 */
export const auditRoutes: FastifyPluginAsync<{ service: AuditService }> = async (plugin, { service }) => {
  const app = plugin.withTypeProvider<ZodTypeProvider>();

  app.get("/api/audit-log", { schema: { querystring: auditListQuerySchema, response: { 200: auditPageSchema } } }, async (req): Promise<AuditPage> => service.list(req.actor.organizationId, req.query));

  app.get("/api/audit-log.csv", { schema: { querystring: auditFiltersSchema } }, async (req, reply) => {
    const stream = Readable.from(service.csv(req.actor.organizationId, req.query));
    // Headers are gone once the first byte is out: a later failure can only cut the download short.
    stream.on("error", (err) => req.log.error({ err }, "audit log export failed midway"));
    const day = new Date().toISOString().slice(0, 10);
    return reply
      .header("content-type", "text/csv; charset=utf-8")
      .header("content-disposition", `attachment; filename="audit-log-${day}.csv"`)
      .header("cache-control", "no-store")
      .send(stream);
  });
};
