import type { FastifyPluginAsync } from "fastify";
import type { ZodTypeProvider } from "fastify-type-provider-zod";
import { auditFiltersSchema, auditListQuerySchema, auditPageSchema, type AuditPage } from "../../../shared/audit.ts";
import { downloadBody, sendCsv } from "../../http/download-body.ts";
import type { AuditService } from "./audit.service.ts";

/**
 * GET /api/audit-log and GET /api/audit-log.csv (Admin and Owner: the `audit` permission). Read
 * only: there is no route that changes or removes an entry.
 */
export const auditRoutes: FastifyPluginAsync<{ service: AuditService }> = async (plugin, { service }) => {
  const app = plugin.withTypeProvider<ZodTypeProvider>();

  app.get("/api/audit-log", { schema: { querystring: auditListQuerySchema, response: { 200: auditPageSchema } } }, async (req): Promise<AuditPage> => service.list(req.actor.organizationId, req.query));

  app.get("/api/audit-log.csv", { schema: { querystring: auditFiltersSchema } }, async (req, reply) => {
    const stream = downloadBody(service.csv(req.actor.organizationId, req.query), req.log, "audit log export");
    const day = new Date().toISOString().slice(0, 10);
    return sendCsv(reply, `audit-log-${day}.csv`, stream);
  });
};
