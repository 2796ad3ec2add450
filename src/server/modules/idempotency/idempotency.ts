import { createHash } from "node:crypto";
import type { FastifyBaseLogger, FastifyReply, FastifyRequest } from "fastify";
import { IDEMPOTENCY_MESSAGES, IDEMPOTENT_REPLAYED_HEADER, MAX_IDEMPOTENCY_KEY_LENGTH } from "../../../shared/idempotency.ts";
import type { Db } from "../../db/client.ts";
import { AppError } from "../../errors.ts";
import { nextPeriod, type JobQueue } from "../../jobs/job-queue.ts";
import * as repo from "./idempotency.repo.ts";

declare module "fastify" {
  interface FastifyRequest {
    /** The request's Idempotency-Key once claimed, or the stored answer it was given again. */
    idempotency?: { key: string; replayed: boolean };
  }
}

/**
 * The POSTs that create or start something, where a retry after a lost answer would otherwise do
 * it twice (a second call placed, a second number bought). Uploads are left out: their body is a
 * stream the key could not be compared with. The test checks every entry is a real route.
 */
export const IDEMPOTENT_ROUTES: ReadonlySet<string> = new Set([
  "POST /api/assistants",
  "POST /api/assistants/:id/publish",
  "POST /api/assistants/:id/rollback",
  "POST /api/assistants/:id/scenarios",
  "POST /api/assistants/:id/test-runs",
  "POST /api/assistants/:id/analysis-runs",
  "POST /api/tools",
  "POST /api/knowledge-bases",
  "POST /api/phone-numbers",
  "POST /api/sip-trunks",
  "POST /api/calls/outbound",
  "POST /api/calls/:id/analysis",
  "POST /api/campaigns",
  "POST /api/campaigns/:id/:action",
  "POST /api/webhooks",
  "POST /api/webhooks/:id/test",
  "POST /api/webhooks/deliveries/:id/resend",
]);

export const isIdempotentRoute = (method: string, url: string): boolean => IDEMPOTENT_ROUTES.has(`${method} ${url}`);

const PURGE_JOB = "idempotency-keys-purge";
const PURGE_EVERY_MS = 60 * 60_000;
const KEY_SHAPE = new RegExp(`^[\\x21-\\x7e]{1,${MAX_IDEMPOTENCY_KEY_LENGTH}}$`);

/** JSON with object keys sorted: the same request written in another key order is the same request. */
function canonical(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonical).join(",")}]`;
  if (value && typeof value === "object") {
    const entries = Object.entries(value as Record<string, unknown>).filter(([, v]) => v !== undefined);
    return `{${entries.sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)).map(([k, v]) => `${JSON.stringify(k)}:${canonical(v)}`).join(",")}}`;
  }
  return JSON.stringify(value) ?? "null";
}

const fingerprintOf = (req: FastifyRequest): string =>
  createHash("sha256").update(canonical({ route: `${req.method} ${req.routeOptions.url}`, params: req.params, body: req.body ?? null })).digest("hex");

/**
 * Fastify hooks for the authenticated scope (after authentication and validation, so a request
 * refused there claims no key), and the hourly purge of expired keys on the job queue.
 */
export function createIdempotency({ db, jobs, logger }: { db: Db; jobs: Pick<JobQueue, "register" | "send">; logger: FastifyBaseLogger }) {
  jobs.register<{ chain?: boolean }>(PURGE_JOB, async ({ chain }) => {
    const purged = await repo.purgeExpired(db);
    if (purged) logger.info({ purged }, "expired idempotency keys purged");
    if (chain) await jobs.send(PURGE_JOB, { chain: true }, nextPeriod(PURGE_EVERY_MS));
  });

  return {
    /** Once the queue runs: a purge now, then hourly (one chain across instances). */
    start: async (): Promise<void> => {
      await jobs.send(PURGE_JOB, { chain: true });
    },

    preHandler: async (req: FastifyRequest, reply: FastifyReply) => {
      if (!isIdempotentRoute(req.method, req.routeOptions.url ?? "")) return;
      const key = req.headers["idempotency-key"];
      if (key === undefined) return;
      if (typeof key !== "string" || !KEY_SHAPE.test(key)) throw new AppError(400, "invalid_idempotency_key", IDEMPOTENCY_MESSAGES.invalid);
      const fingerprint = fingerprintOf(req);
      const result = await repo.claim(db, req.actor.organizationId, key, fingerprint);
      if (result.claimed) {
        req.idempotency = { key, replayed: false };
        return;
      }
      const { row } = result;
      if (row.fingerprint !== fingerprint) throw new AppError(422, "idempotency_key_reused", IDEMPOTENCY_MESSAGES.mismatch);
      if (row.status === null) throw new AppError(409, "idempotency_key_in_use", IDEMPOTENCY_MESSAGES.inProgress);
      req.idempotency = { key, replayed: true };
      reply.status(row.status).header(IDEMPOTENT_REPLAYED_HEADER, "true");
      if (row.body) reply.type("application/json; charset=utf-8");
      return reply.send(row.body || undefined);
    },

    onSend: async (req: FastifyRequest, reply: FastifyReply, payload: unknown) => {
      const claimed = req.idempotency;
      if (!claimed || claimed.replayed) return payload;
      req.idempotency = undefined;
      // A failure on our side, or a brake, is not an answer to keep: the retry runs afresh.
      if (reply.statusCode >= 500 || reply.statusCode === 429) await repo.release(db, req.actor.organizationId, claimed.key);
      else await repo.complete(db, req.actor.organizationId, claimed.key, reply.statusCode, typeof payload === "string" ? payload : "");
      return payload;
    },
  };
}
