import { holderOf } from "../../auth/socket-sessions.ts";
import type { FastifyPluginAsync, FastifyRequest } from "fastify";
import type { ZodTypeProvider } from "fastify-type-provider-zod";
import { z } from "zod";
import { requireOwnOrigin } from "../../http/origin.ts";
import { atCapacityError, DRAIN_RETRY_AFTER_S, drainingError } from "../../instances/drain.ts";
import { EXAMPLE_IDS, withExamples } from "../../../shared/examples.ts";
import { REFUSALS, type CallsService, type PrepareResult } from "./calls.service.ts";

const testSessionBody = withExamples(
  z.object({
    assistantId: z.string({ error: "No assistant selected" }).trim().min(1, "No assistant selected"),
  }),
  { assistantId: EXAMPLE_IDS.assistant },
);

/**
 * Test calls (register inside the authenticated scope):
 * - POST /api/calls/test-session { assistantId } → { session_id, model, assistant: { id, name } }
 * - GET  /api/calls/live?session_id=… upgrades to the live socket of src/shared/calls.ts.
 *
 * The live route needs the session cookie (the scope's hook refuses the upgrade with 401
 * without one) and a session id issued to that same user within the last 60 s, used once.
 */
export const callsRoutes: FastifyPluginAsync<{ service: CallsService }> = async (plugin, { service }) => {
  const app = plugin.withTypeProvider<ZodTypeProvider>();
  const { liveCalls, drain } = app.ctx;
  // The preparation is async (database); it runs before the upgrade, so the socket handler
  // below attaches the call synchronously and no early message from the browser is missed.
  const prepared = new WeakMap<FastifyRequest, PrepareResult>();

  app.post("/api/calls/test-session", { schema: { body: testSessionBody } }, (req, reply) => {
    if (drain.isDraining) {
      // Retryable: nothing was created, and the load balancer sends the retry to another instance.
      reply.header("retry-after", String(DRAIN_RETRY_AFTER_S));
      throw drainingError();
    }
    if (!liveCalls.hasRoom) {
      reply.header("retry-after", String(DRAIN_RETRY_AFTER_S));
      throw atCapacityError();
    }
    return service.createTestSession(req.actor.organizationId, req.body.assistantId);
  });

  app.get(
    "/api/calls/live",
    {
      websocket: true,
      preHandler: async (req) => {
        // A plain GET (no upgrade) gets the plugin's 404 and must not use the session id up.
        if (!req.ws) return;
        // Refused before the session id is used up: a page on another site cannot open a call.
        requireOwnOrigin(req.headers.origin, app.ctx.config.publicUrl, "Live calls");
        const query = req.query as Record<string, unknown>;
        try {
          prepared.set(req, await service.prepareLiveCall(req.actor.organizationId, query["session_id"]));
        } catch (err) {
          req.log.error({ err }, "preparing a live call failed");
          prepared.set(req, { ok: false, ...REFUSALS.failed });
        }
      },
    },
    (socket, req) => {
      const result = prepared.get(req) ?? { ok: false, ...REFUSALS.failed };
      prepared.delete(req);
      if (!result.ok) {
        socket.close(result.code, result.reason);
        return;
      }
      if (liveCalls.isClosing || drain.isDraining) {
        socket.close(REFUSALS.shuttingDown.code, REFUSALS.shuttingDown.reason);
        return;
      }
      service.startLiveCall(socket, result.call, req.log);
      // The browser leaving ends the call (the transport hears the close).
      app.ctx.socketSessions.hold(holderOf(req), socket);
    },
  );
};
