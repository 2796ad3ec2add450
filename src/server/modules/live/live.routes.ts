/**
 * The live board's sockets (register inside the authenticated scope: no session cookie, 401
 * before the upgrade). Both refuse other sites' pages (403), like the test call's socket.
 * - WS /api/live/board: the account's calls in progress, pushed per change.
 * - WS /api/live/calls/:callId: one call; 404 before the upgrade unless it is a live call of
 *   the signed-in account, on this instance or relayed to the one carrying it (live-relay.ts).
 */
import { holderOf } from "../../auth/socket-sessions.ts";
import type { FastifyPluginAsync, FastifyRequest } from "fastify";
import { notFound } from "../../errors.ts";
import { requireOwnOrigin } from "../../http/origin.ts";
import type { SupervisorAction } from "../../../shared/calls.ts";
import type { CallSupervision } from "../../voice/supervision.ts";
import { LiveBoard } from "./live-board.ts";
import { LivePeers } from "./live-peers.ts";
import { LiveRelay } from "./live-relay.ts";
import { watchCall } from "./live-watch.ts";

/** Hears what a supervisor did on a watched call (the audit log); the request says who and from where. */
export type SupervisorActed = (req: FastifyRequest, callId: string, action: SupervisorAction) => void;

export const liveRoutes: FastifyPluginAsync<{ onSupervisorAction?: SupervisorActed }> = async (app, { onSupervisorAction }) => {
  const { liveCalls, config, socketSessions, bus, instance } = app.ctx;
  const log = app.log.child({ module: "live" });
  const peers = new LivePeers(bus, instance.id, liveCalls, log);
  const relay = new LiveRelay(bus, instance.id, liveCalls, peers, log);
  await peers.start();
  await relay.start();
  const board = new LiveBoard(liveCalls, peers);
  app.addHook("onClose", async () => {
    board.stop();
    relay.stop();
    await peers.stop();
  });
  /** The call a socket will watch: carried here, or by another instance (its id). */
  const found = new WeakMap<FastifyRequest, CallSupervision | string>();

  const checkOrigin = (req: FastifyRequest) => requireOwnOrigin(req.headers.origin, config.publicUrl, "The live board");

  app.get(
    "/api/live/board",
    {
      websocket: true,
      preHandler: async (req) => {
        if (req.ws) checkOrigin(req);
      },
    },
    (socket, req) => {
      board.open(req.actor.organizationId, socket);
      socketSessions.hold(holderOf(req), socket);
    },
  );

  app.get<{ Params: { callId: string } }>(
    "/api/live/calls/:callId",
    {
      websocket: true,
      preHandler: async (req) => {
        if (!req.ws) return;
        checkOrigin(req);
        // Another account's call, a finished one and junk all answer the same.
        const { organizationId } = req.actor;
        const callId = req.params.callId;
        const target = liveCalls.findSupervised(organizationId, callId) ?? peers.carrierOf(organizationId, callId);
        if (!target) throw notFound("Call");
        found.set(req, target);
      },
    },
    (socket, req) => {
      const target = found.get(req);
      found.delete(req);
      if (!target) {
        socket.close(1008, "Call not found");
        return;
      }
      const acted = onSupervisorAction ? (action: SupervisorAction) => onSupervisorAction(req, req.params.callId, action) : undefined;
      const name = req.user.name.trim() || req.user.email;
      const end =
        typeof target === "string" ? relay.watchRemote(target, req.actor.organizationId, req.params.callId, socket, name, acted) : watchCall(target, socket, name, acted);
      socketSessions.hold(holderOf(req), socket, end);
    },
  );
};
