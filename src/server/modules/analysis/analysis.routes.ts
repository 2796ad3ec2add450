import type { FastifyPluginAsync } from "fastify";
import type { ZodTypeProvider } from "fastify-type-provider-zod";
import { z } from "zod";
import { analysisBackfillInputSchema, analysisRunSchema, type AnalysisRun, type CallAnalysis } from "../../../shared/analysis.ts";
import type { AnalysisService } from "./analysis.service.ts";

const callParams = z.object({ id: z.string() });
const runParams = z.object({ id: z.string(), runId: z.string() });

/**
 * Post-call analysis on demand (register inside the authenticated scope):
 * - POST /api/calls/:id/analysis              → 202 CallAnalysis (pending): "Run again" with the assistant's current settings
 * - POST /api/assistants/:id/analysis-runs    → 202 AnalysisRun: "Analyse past calls" ({ last } or { from, to })
 * - GET  /api/assistants/:id/analysis-runs/latest → AnalysisRun | null (its progress)
 * - GET  /api/assistants/:id/analysis-runs/:runId → AnalysisRun
 * Another user's call or assistant (or none) → 404.
 */
export const analysisRoutes: FastifyPluginAsync<{ service: AnalysisService }> = async (plugin, { service }) => {
  const app = plugin.withTypeProvider<ZodTypeProvider>();

  app.post("/api/calls/:id/analysis", { schema: { params: callParams } }, async (req, reply): Promise<CallAnalysis> => {
    reply.status(202);
    return service.runAgain(req.actor.organizationId, req.params.id);
  });

  app.post("/api/assistants/:id/analysis-runs", { schema: { params: callParams, body: analysisBackfillInputSchema } }, async (req, reply): Promise<AnalysisRun> => {
    reply.status(202);
    return service.analysePast(req.actor.organizationId, req.params.id, req.body);
  });

  app.get("/api/assistants/:id/analysis-runs/latest", { schema: { params: callParams, response: { 200: analysisRunSchema.nullable() } } }, async (req): Promise<AnalysisRun | null> =>
    service.pastRun(req.actor.organizationId, req.params.id, null),
  );

  app.get("/api/assistants/:id/analysis-runs/:runId", { schema: { params: runParams, response: { 200: analysisRunSchema } } }, async (req): Promise<AnalysisRun> =>
    (await service.pastRun(req.actor.organizationId, req.params.id, req.params.runId))!,
  );
};
