import type { FastifyPluginAsync } from "fastify";
import type { Db } from "../db/client.ts";
import type { LiveCalls } from "../modules/calls/live-calls.ts";
import type { Drain } from "./drain.ts";
import { databaseAnswers } from "./instances.repo.ts";

export interface HealthRoutesOptions {
  db: Db;
  databaseKind: "pglite" | "postgres";
  drain: Drain;
  instanceId: string;
  /** The calls carried and the room left (MAX_CALLS), for a load balancer to steer by. */
  calls: Pick<LiveCalls, "taken" | "maxCalls" | "hasRoom">;
}

const DATABASE_CHECK_TIMEOUT_MS = 2_000;

/**
 * GET /api/health: readiness for a load balancer. 200 when the database answers and the
 * instance is not draining; 503 otherwise, with the reason in the usual error shape. Either way
 * it says how many calls the instance carries (places held for streams on their way included),
 * its MAX_CALLS, and whether it has room for another: a full instance is healthy, but new
 * calls are better sent elsewhere.
 */
export const healthRoutes: FastifyPluginAsync<HealthRoutesOptions> = async (app, { db, databaseKind, drain, instanceId, calls }) => {
  app.get("/api/health", async (req, reply) => {
    const databaseReachable = await ping(db).catch((err: unknown) => {
      req.log.warn({ err }, "health check: the database did not answer");
      return false;
    });
    const body = { ok: databaseReachable && !drain.isDraining, database: databaseKind, database_reachable: databaseReachable, draining: drain.isDraining, instance: instanceId, calls: calls.taken, max_calls: calls.maxCalls, has_room: calls.hasRoom && !drain.isDraining };
    reply.header("cache-control", "no-store");
    if (body.ok) return body;
    const error = drain.isDraining
      ? { code: "draining", message: "This instance is shutting down" }
      : { code: "database_unreachable", message: "The database is not reachable" };
    return reply.code(503).send({ ...body, error });
  });
};

async function ping(db: Db): Promise<boolean> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => (timer = setTimeout(() => reject(new Error("timed out")), DATABASE_CHECK_TIMEOUT_MS)));
  try {
    await Promise.race([databaseAnswers(db), timeout]);
    return true;
  } finally {
    clearTimeout(timer);
  }
}
