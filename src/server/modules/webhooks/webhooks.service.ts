/**
 * Webhook endpoints (owner-scoped CRUD, secrets sealed at rest) and their deliveries. `emit` is
 * the one function other modules call: it stores one delivery per subscribed endpoint, then
 * queues a job for each; the job queue's worker makes the attempts (webhook-sender.ts) on the
 * retry schedule, on whichever instance takes the job.
 *
 * Two lanes (docs/decisions/046-webhook-slow-lane.md): every delivery job is sent to the normal
 * lane; its worker hands a delivery whose endpoint is slow (an attempt since its last success got
 * no answer: timed out, refused, unreachable) to the slow lane, a queue with its own few workers,
 * without attempting it. So an endpoint that takes the whole timeout holds the normal workers for
 * one round at most, and healthy endpoints keep all of them.
 *
 * One job is one attempt: a failed attempt queues its retry itself (after the schedule's delay,
 * in the slow lane when it got no answer), carrying its place in the schedule, then ends. A job
 * names the delivery's attempt count it was queued for; a job for any other count is stale (its
 * attempt was made) and does nothing.
 *
 * Fair between organisations (docs/decisions/053-webhooks-fair-between-organisations.md): a job's
 * priority is minus the organisation's deliveries due when it is queued, and the queue takes the
 * highest first. So an organisation's n-th waiting delivery goes after every other organisation's
 * earlier ones: a burst (or slow endpoints) of one organisation never queues another's behind it.
 *
 * Secrets are answered once, by create and rotate; after a rotation the old secret signs too for
 * WEBHOOK_SECRET_GRACE_MS (two `v1,` signatures), so a receiver mid-update keeps verifying.
 *
 * The row and its job are two writes: an instance dying between them would leave a delivery
 * pending with no job. The recovery sweep (a job too: at every start, then every
 * RECOVER_EVERY_MS, one chain shared by all instances) queues again every pending delivery no
 * unfinished job of either lane carries. A job queues its successor before it ends, so reading
 * the normal lane then the slow one never misses a live chain. The job key (delivery, attempts)
 * makes a sweep racing the original send, or another instance's sweep, queue one job (both send
 * to the normal lane), and the worker's checks make any late duplicate a no-op.
 */
import {
  MAX_WEBHOOK_ENDPOINTS,
  WEBHOOK_DISABLE_AFTER_MS,
  WEBHOOK_MESSAGES,
  WEBHOOK_RETRY_DELAYS_MS,
  WEBHOOK_SECRET_GRACE_MS,
  WEBHOOK_TEST_EVENT,
  type WebhookDelivery,
  type WebhookEmittedType,
  type WebhookEndpoint,
  type WebhookInput,
  type WebhookPayload,
  type WebhookUpdate,
  type WebhookWithSecret,
} from "../../../shared/webhooks.ts";
import { isUuid } from "../../../shared/ids.ts";
import type { Page, PageQuery } from "../../../shared/pages.ts";
import type { Db } from "../../db/client.ts";
import { insertWithinLimit } from "../../db/organization-lock.ts";
import { AppError, badRequest, notFound } from "../../errors.ts";
import { nextPeriod, type JobContext, type JobQueue } from "../../jobs/job-queue.ts";
import type { SecretBox } from "../../secrets/crypto.ts";
import { assertIpLiteralAllowed, isHostAllowed, type Resolver } from "../../tools/index.ts";
import { attemptDelivery } from "./webhook-sender.ts";
import { newMessageId, newWebhookSecret } from "./webhook-signature.ts";
import * as repo from "./webhooks.repo.ts";
import { mapPage } from "../../http/pages.ts";

export const DELIVER_JOB = "webhooks.deliver";
/** The slow lane: deliveries to endpoints that did not answer lately. */
export const DELIVER_SLOW_JOB = "webhooks.deliver-slow";
/** Normal lane workers per instance: every healthy endpoint's deliveries. */
const NORMAL_WORKERS = 8;
/** Slow lane workers per instance: few, since each may wait out the whole attempt timeout. */
const SLOW_WORKERS = 2;
export const RECOVER_JOB = "webhooks.recover";
const RECOVER_EVERY_MS = 5 * 60_000;

export interface WebhooksService {
  /** A page of them, newest first (src/shared/pages.ts). */
  page(organizationId: string, query: PageQuery): Promise<Page<WebhookEndpoint>>;
  get(organizationId: string, id: string): Promise<WebhookEndpoint>;
  create(organizationId: string, input: WebhookInput): Promise<WebhookWithSecret>;
  update(organizationId: string, id: string, patch: WebhookUpdate): Promise<WebhookEndpoint>;
  remove(organizationId: string, id: string): Promise<void>;
  /** A new secret, answered this once; the old one still signs for WEBHOOK_SECRET_GRACE_MS. */
  rotate(organizationId: string, id: string): Promise<WebhookWithSecret>;
  sendTest(organizationId: string, id: string): Promise<WebhookDelivery>;
  deliveries(organizationId: string, id: string, query: PageQuery): Promise<Page<WebhookDelivery>>;
  resend(organizationId: string, deliveryId: string): Promise<WebhookDelivery>;
  /**
   * Stores `type` with `data` for every enabled endpoint of `organizationId` subscribed to it, then queues
   * their delivery. Resolves once stored; never throws into the caller's path (logs instead).
   */
  emit(organizationId: string, type: WebhookEmittedType, data: unknown): Promise<void>;
  /** Once the job queue runs: a sweep now, and the periodic one (kept once across instances). */
  startRecovery(): Promise<void>;
}

export interface WebhooksDeps {
  db: Db;
  secrets: SecretBox;
  jobs: JobQueue;
  allowedHosts: readonly string[];
  logger: { warn(obj: object, msg: string): void; error(obj: object, msg: string): void };
  /** Tests shorten the schedule; production uses the (5 s … 12 h). */
  retryDelaysMs?: readonly number[];
  attemptTimeoutMs?: number;
  resolve?: Resolver;
  recoverEveryMs?: number;
}

/**
 * A delivery job. `attempts`: the delivery's attempt count it was queued for; `step`: the retry
 * schedule's attempts already made (a resend starts again at 0). Both absent in jobs queued
 * before the lanes: then the queue's own retry count stands in.
 */
interface DeliverJob {
  deliveryId: string;
  attempts?: number;
  step?: number;
}

const iso = (d: Date | null) => (d ? d.toISOString() : null);

function toEndpoint(row: repo.EndpointRow): WebhookEndpoint {
  return {
    id: row.id,
    url: row.url,
    events: row.events,
    description: row.description,
    enabled: row.enabled,
    disabled_reason: row.disabledReason,
    created_at: row.createdAt.toISOString(),
  };
}

function toDelivery(row: repo.DeliveryRow): WebhookDelivery {
  return {
    id: row.id,
    event_type: row.eventType,
    status: row.status,
    attempts: row.attempts,
    last_status_code: row.lastStatusCode,
    last_error: row.status === "delivered" ? null : row.lastError,
    next_attempt_at: row.status === "pending" ? iso(row.nextAttemptAt) : null,
    created_at: row.createdAt.toISOString(),
  };
}

export function createWebhooksService(deps: WebhooksDeps): WebhooksService {
  const { db, secrets, jobs, allowedHosts, logger } = deps;
  const delays = deps.retryDelaysMs ?? WEBHOOK_RETRY_DELAYS_MS;

  /** https only, unless the host is in WEBHOOK_ALLOWED_HOSTS; a private IP literal is refused as tools refuse it. */
  function checkUrl(raw: string) {
    const url = new URL(raw);
    const port = url.port ? Number(url.port) : url.protocol === "https:" ? 443 : 80;
    if (isHostAllowed(allowedHosts, url.hostname, port)) return;
    if (url.protocol !== "https:") throw badRequest(WEBHOOK_MESSAGES.httpsRequired, "invalid_url");
    assertIpLiteralAllowed(url.hostname, "WEBHOOK_ALLOWED_HOSTS");
  }

  async function findOr404(organizationId: string, id: string) {
    const row = isUuid(id) ? await repo.findEndpoint(db, organizationId, id) : null;
    if (!row) throw notFound("Webhook endpoint");
    return row;
  }

  /** The secrets a delivery is signed with now: the current one, and the one it replaced during the grace period. */
  function signingSecrets(row: repo.EndpointRow): string[] {
    const current = secrets.decrypt(row.secretEncrypted);
    const graceful = row.previousSecretEncrypted && row.previousSecretExpiresAt && row.previousSecretExpiresAt.getTime() > Date.now();
    return graceful ? [current, secrets.decrypt(row.previousSecretEncrypted!)] : [current];
  }

  /**
   * The fair order's priority for the next job of `organizationId`: minus its deliveries due
   * (`ahead` of them are this very batch, already stored). Equal places go oldest first.
   */
  const fairPriority = async (organizationId: string, ahead = 0) => ahead - (await repo.dueDeliveries(db, organizationId));

  async function queue(delivery: Pick<repo.DeliveryRow, "id" | "attempts">, priority: number) {
    // Keyed by delivery and attempt count, so a resend queues again but a repeat of this call does not.
    await jobs.send(DELIVER_JOB, { deliveryId: delivery.id, attempts: delivery.attempts, step: 0 } satisfies DeliverJob, { key: `${delivery.id}:${delivery.attempts}`, priority });
  }

  async function store(organizationId: string, endpointIds: string[], type: WebhookEmittedType, data: unknown) {
    const body: WebhookPayload = { type, timestamp: new Date().toISOString(), data };
    const payload = JSON.stringify(body);
    const rows = await repo.insertDeliveries(
      db,
      endpointIds.map((endpointId) => ({ organizationId, endpointId, messageId: newMessageId(), eventType: type, payload })),
    );
    // The batch's rows are among the due ones: the first takes the place after the deliveries due before it.
    const first = await fairPriority(organizationId, rows.length);
    for (const [i, row] of rows.entries()) await queue(row, first - i);
    return rows;
  }

  async function deliver(lane: typeof DELIVER_JOB | typeof DELIVER_SLOW_JOB, data: DeliverJob, job: JobContext) {
    const found = await repo.forDelivery(db, data.deliveryId);
    // Gone (endpoint deleted), already done, or its attempt already made (a repeated job): nothing to send.
    if (!found || found.delivery.status !== "pending") return;
    if (data.attempts !== undefined && data.attempts !== found.delivery.attempts) return;
    const { delivery, endpoint } = found;
    const step = data.step ?? job.attempt - 1;
    const key = `${delivery.id}:${delivery.attempts}`;
    if (!endpoint.enabled) {
      await repo.updateDelivery(db, delivery.id, { status: "failed", nextAttemptAt: null, lastError: "The endpoint is disabled" });
      return;
    }
    if (lane === DELIVER_JOB && endpoint.slowSince) {
      // Handed over unattempted: the slow lane's workers wait on this endpoint, not the normal ones.
      await jobs.send(DELIVER_SLOW_JOB, { deliveryId: delivery.id, attempts: delivery.attempts, step } satisfies DeliverJob, { key, priority: await fairPriority(delivery.organizationId, 1) });
      return;
    }
    const result = await attemptDelivery(
      { url: endpoint.url, secrets: signingSecrets(endpoint), messageId: delivery.messageId, body: delivery.payload },
      { allowedHosts, resolve: deps.resolve, timeoutMs: deps.attemptTimeoutMs },
    );
    const attempts = delivery.attempts + 1;
    if (result.ok) {
      await repo.updateDelivery(db, delivery.id, { status: "delivered", attempts, lastStatusCode: result.statusCode, lastError: null, nextAttemptAt: null });
      await repo.markEndpointHealthy(db, endpoint.id);
      return;
    }
    const noAnswer = result.statusCode === null;
    const failingSince = await repo.markEndpointFailing(db, endpoint.id, noAnswer);
    const disable = failingSince !== null && Date.now() - failingSince.getTime() >= WEBHOOK_DISABLE_AFTER_MS;
    if (disable) await repo.disableEndpoint(db, endpoint.id, WEBHOOK_MESSAGES.disabledForFailures);
    const next = delays[step];
    const last = disable || next === undefined;
    await repo.updateDelivery(db, delivery.id, {
      status: last ? "failed" : "pending",
      attempts,
      lastStatusCode: result.statusCode,
      lastError: result.error,
      nextAttemptAt: last ? null : new Date(Date.now() + next),
    });
    if (last) return;
    // The retry, after the schedule's delay; an endpoint that did not answer waits in the slow lane.
    const retryLane = noAnswer || endpoint.slowSince ? DELIVER_SLOW_JOB : DELIVER_JOB;
    const priority = await fairPriority(delivery.organizationId);
    await jobs.send(retryLane, { deliveryId: delivery.id, attempts, step: step + 1 } satisfies DeliverJob, { startAfter: next, key: `${delivery.id}:${attempts}`, priority });
  }

  // The queue's own retries cover a run that failed unexpectedly (database error, instance died):
  // the job runs again, and does nothing if its attempt was recorded.
  const laneOptions = { retryDelaysMs: delays, timeoutMs: 60_000 };
  jobs.register<DeliverJob>(DELIVER_JOB, (data, job) => deliver(DELIVER_JOB, data, job), { ...laneOptions, concurrency: NORMAL_WORKERS });
  jobs.register<DeliverJob>(DELIVER_SLOW_JOB, (data, job) => deliver(DELIVER_SLOW_JOB, data, job), { ...laneOptions, concurrency: SLOW_WORKERS });

  const recoverEveryMs = deps.recoverEveryMs ?? RECOVER_EVERY_MS;

  /** The next sweep of the chain, at the next boundary of the period; keyed by it, so one per period. */
  function scheduleRecovery() {
    return jobs.send(RECOVER_JOB, { chain: true }, nextPeriod(recoverEveryMs));
  }

  async function recover({ chain }: { chain?: boolean }) {
    try {
      // Pending rows first, then the jobs: a job finishing in between finished a delivery this
      // sweep then queues again harmlessly (keyed, and the worker skips what is not pending).
      const pending = await repo.pendingDeliveries(db);
      if (pending.length === 0) return;
      // The normal lane first: a job moving a delivery to the slow lane queues it there before it ends.
      const normal = await jobs.unfinished<DeliverJob>(DELIVER_JOB);
      const slow = await jobs.unfinished<DeliverJob>(DELIVER_SLOW_JOB);
      const carried = new Set([...normal, ...slow].map((d) => d.deliveryId));
      const orphans = pending.filter((d) => !carried.has(d.id));
      for (const delivery of orphans) await queue(delivery, await fairPriority(delivery.organizationId, 1));
      if (orphans.length > 0) logger.warn({ count: orphans.length }, "queued webhook deliveries that had no job");
    } finally {
      if (chain) await scheduleRecovery();
    }
  }

  jobs.register(RECOVER_JOB, recover, { timeoutMs: 5 * 60_000 });

  return {
    async page(organizationId, query) {
      return mapPage(await repo.pageEndpoints(db, organizationId, query), (rows) => rows.map(toEndpoint));
    },

    async get(organizationId, id) {
      return toEndpoint(await findOr404(organizationId, id));
    },

    async create(organizationId, input) {
      checkUrl(input.url);
      const secret = newWebhookSecret();
      const values = {
        url: input.url,
        events: input.events,
        description: input.description ?? null,
        enabled: input.enabled ?? true,
        secretEncrypted: secrets.encrypt(secret),
      };
      const row = await insertWithinLimit(
        db,
        { organizationId, purpose: "webhook-endpoints", limit: MAX_WEBHOOK_ENDPOINTS },
        (tx) => repo.countEndpoints(tx, organizationId),
        (tx) => repo.insertEndpoint(tx, organizationId, values),
      );
      if (!row) throw new AppError(409, "too_many_webhooks", WEBHOOK_MESSAGES.tooMany);
      return { ...toEndpoint(row), secret };
    },

    async update(organizationId, id, patch) {
      const current = await findOr404(organizationId, id);
      // Nothing to change (`{}`): the endpoint as it is, as the other PATCH routes answer.
      if (Object.values(patch).every((v) => v === undefined)) return toEndpoint(current);
      if (patch.url !== undefined) checkUrl(patch.url);
      const row = await repo.updateEndpoint(db, organizationId, id, {
        url: patch.url,
        events: patch.events,
        description: patch.description,
        enabled: patch.enabled,
        // Enabling again starts a fresh failing period and clears the notice.
        ...(patch.enabled ? { disabledReason: null, failingSince: null, slowSince: null } : {}),
      });
      if (!row) throw notFound("Webhook endpoint");
      return toEndpoint(row);
    },

    async remove(organizationId, id) {
      if (!isUuid(id) || !(await repo.deleteEndpoint(db, organizationId, id))) throw notFound("Webhook endpoint");
    },

    async rotate(organizationId, id) {
      const current = await findOr404(organizationId, id);
      const secret = newWebhookSecret();
      // The replaced secret keeps signing for the grace period; one rotated within it is dropped.
      const row = await repo.updateEndpoint(db, organizationId, id, {
        secretEncrypted: secrets.encrypt(secret),
        previousSecretEncrypted: current.secretEncrypted,
        previousSecretExpiresAt: new Date(Date.now() + WEBHOOK_SECRET_GRACE_MS),
      });
      if (!row) throw notFound("Webhook endpoint");
      return { ...toEndpoint(row), secret };
    },

    async sendTest(organizationId, id) {
      const endpoint = await findOr404(organizationId, id);
      const [row] = await store(organizationId, [endpoint.id], WEBHOOK_TEST_EVENT, { message: "A test event from Switchboard", endpoint_id: endpoint.id });
      return toDelivery(row!);
    },

    async deliveries(organizationId, id, query) {
      await findOr404(organizationId, id);
      const page = await repo.listDeliveries(db, organizationId, id, query);
      return { data: page.data.map(toDelivery), next_cursor: page.next_cursor };
    },

    async resend(organizationId, deliveryId) {
      const row = isUuid(deliveryId) ? await repo.findDelivery(db, organizationId, deliveryId) : null;
      if (!row) throw notFound("Delivery");
      await repo.updateDelivery(db, row.id, { status: "pending", nextAttemptAt: new Date() });
      const updated = { ...row, status: "pending" as const, nextAttemptAt: new Date() };
      await queue(updated, await fairPriority(organizationId, 1));
      return toDelivery(updated);
    },

    async startRecovery() {
      await jobs.send(RECOVER_JOB, {});
      await scheduleRecovery();
    },

    async emit(organizationId, type, data) {
      try {
        const endpoints = await repo.subscribedEndpoints(db, organizationId, type);
        if (endpoints.length > 0) await store(organizationId, endpoints.map((e) => e.id), type, data);
      } catch (err) {
        logger.error({ err, type }, "storing a webhook event failed");
      }
    },
  };
}
