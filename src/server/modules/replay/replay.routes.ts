import type { FastifyPluginAsync, FastifyRequest } from "fastify";
import type { ZodTypeProvider } from "fastify-type-provider-zod";
import { z } from "zod";
import { callReplaySchema, saveCallAsTestSchema, type CallReplay } from "../../../shared/replay.ts";
import { scenarioSchema, type Scenario } from "../../../shared/scenarios.ts";
import type { ReplayService } from "./replay.service.ts";

const params = z.object({ id: z.string() });

/** Each replay is a few model requests on the organisation's key: a budget per organisation and minute. */
export const REPLAYS_PER_MINUTE = 10;

/**
 * Learning from real calls (register inside the authenticated scope):
 * - POST /api/calls/:id/replay   → CallReplay: the call's caller turns said to the assistant's draft
 * - POST /api/calls/:id/scenario → 201 Scenario: "Save as test" ({ name, rubric }), source "call"
 * Another organisation's call (or none) → 404.
 */
export const replayRoutes: FastifyPluginAsync<{ service: ReplayService }> = async (plugin, { service }) => {
  const app = plugin.withTypeProvider<ZodTypeProvider>();

  app.post(
    "/api/calls/:id/replay",
    {
      schema: { params, response: { 200: callReplaySchema } },
      config: { rateLimit: { max: REPLAYS_PER_MINUTE, timeWindow: 60_000, hook: "preHandler" as const, keyGenerator: (req: FastifyRequest) => req.actor.organizationId } },
    },
    async (req, reply): Promise<CallReplay> => {
      // A browser that gives up (the response closes before it is written) stops the model requests it would have paid for.
      const gone = new AbortController();
      reply.raw.on("close", () => {
        if (!reply.raw.writableEnded) gone.abort();
      });
      return service.replay(req.actor.organizationId, req.params.id, gone.signal);
    },
  );

  app.post("/api/calls/:id/scenario", { schema: { params, body: saveCallAsTestSchema, response: { 201: scenarioSchema } } }, async (req, reply): Promise<Scenario> => {
    const scenario = await service.saveAsTest(req.actor.organizationId, req.params.id, req.body);
    reply.status(201);
    return scenario;
  });
};
