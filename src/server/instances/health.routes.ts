import { sql } from "drizzle-orm";
import type { FastifyPluginAsync } from "fastify";
import type { Db } from "../db/client.ts";
import type { Drain } from "./drain.ts";

export interface HealthRoutesOptions {
  db: Db;
  databaseKind: "pglite" | "postgres";
  drain: Drain;
  instanceId: string;
}

const DATABASE_CHECK_TIMEOUT_MS = 2_000;

/**
 * GET /api/health: readiness for a load balancer. 200 when the database answers and the
 * instance is not draining; 503 otherwise, with the reason in the usual error shape.
 */
export const healthRoutes: FastifyPluginAsync<HealthRoutesOptions> = async (app, { db, databaseKind, drain, instanceId }) => {
  app.get("/api/health", async (req, reply) => {
    const databaseReachable = await ping(db).catch((err: unknown) => {
      req.log.warn({ err }, "health check: the database did not answer");
      return false;
    });
    const body = { ok: databaseReachable && !drain.isDraining, database: databaseKind, database_reachable: databaseReachable, draining: drain.isDraining, instance: instanceId };
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
    await Promise.race([db.execute(sql`select 1`), timeout]);
    return true;
  } finally {
    clearTimeout(timer);
  }
}
