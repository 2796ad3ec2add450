import { join } from "node:path";
import helmet from "@fastify/helmet";
import rateLimit from "@fastify/rate-limit";
import websocket from "@fastify/websocket";
import Fastify, { type FastifyInstance } from "fastify";
import { serializerCompiler, validatorCompiler } from "fastify-type-provider-zod";
import { createAuth } from "./auth/auth.ts";
import { authRoutes } from "./auth/auth.routes.ts";
import { createLoginThrottle } from "./auth/login-throttle.ts";
import { createMailThrottle } from "./auth/mail-throttle.ts";
import type { Mailer } from "./auth/mailer.ts";
import { requireUser } from "./auth/session.ts";
import { liveSessionsCheck, SocketSessions } from "./auth/socket-sessions.ts";
import type { AppConfig, ModuleContext } from "./context.ts";
import type { Database } from "./db/client.ts";
import { AppError } from "./errors.ts";
import { HTTP_ERROR_MESSAGES } from "../shared/http-errors.ts";
import { API_VERSION, API_VERSION_HEADER } from "../shared/api-version.ts";
import { registerErrorHandler, sendFrameworkError } from "./http/error-handler.ts";
import { RouteIndex } from "./http/route-index.ts";
import { registerJsonBodyGuard } from "./http/json-body.ts";
import { serializeRequest } from "./http/log-redaction.ts";
import { registerOpenApi } from "./http/openapi.ts";
import { registerSpa } from "./http/spa.ts";
import { isPagePath } from "../shared/page-paths.ts";
import { accountPublicRoutes, accountRoutes } from "./modules/account/account.routes.ts";
import { demoRequestsOwnerRoutes, demoRequestsRoutes } from "./modules/demo-requests/demo-requests.routes.ts";
import { marketingRoutes } from "./modules/marketing/marketing.routes.ts";
import { credentialRoutes } from "./modules/credentials/credentials.routes.ts";
import { callsRoutes } from "./modules/calls/calls.routes.ts";
import { analysisRoutes } from "./modules/analysis/analysis.routes.ts";
import { replayRoutes } from "./modules/replay/replay.routes.ts";
import { callsHistoryRoutes } from "./modules/calls/calls-history.routes.ts";
import { LiveCalls } from "./modules/calls/live-calls.ts";
import { liveRoutes } from "./modules/live/live.routes.ts";
import type { FrameMetrics } from "./voice/seams.ts";
import { assistantsRoutes } from "./modules/assistants/assistants.routes.ts";
import { scheduleRetention } from "./modules/retention/retention.job.ts";
import { retentionRoutes } from "./modules/retention/retention.routes.ts";
import { scenariosRoutes } from "./modules/scenarios/scenarios.routes.ts";
import { testRunsRoutes } from "./modules/test-runs/test-runs.routes.ts";
import { versionsRoutes } from "./modules/versions/versions.routes.ts";
import { knowledgeRoutes } from "./modules/knowledge/knowledge.routes.ts";
import { toolsRoutes } from "./modules/tools/tools.routes.ts";
import { campaignsRoutes } from "./modules/campaigns/campaigns.routes.ts";
import { doNotCallRoutes } from "./modules/do-not-call/do-not-call.routes.ts";
import { outboundRoutes } from "./modules/outbound/outbound.routes.ts";
import { webhooksRoutes } from "./modules/webhooks/webhooks.routes.ts";
import { apiKeysRoutes } from "./modules/api-keys/api-keys.routes.ts";
import { auditRoutes } from "./modules/audit/audit.routes.ts";
import { gettingStartedRoutes } from "./modules/getting-started/getting-started.routes.ts";
import { phoneNumbersRoutes } from "./modules/phone-numbers/phone-numbers.routes.ts";
import { createIdempotency } from "./modules/idempotency/idempotency.ts";
import { createEmbeddedUpkeep } from "./db/embedded-upkeep.ts";
import { providersRoutes } from "./modules/providers/providers.routes.ts";
import { sipTrunksRoutes } from "./modules/sip-trunks/sip-trunks.routes.ts";
import { invitationPreviewRoutes, teamRoutes } from "./modules/team/team.routes.ts";
import { createTeamService } from "./modules/team/team.service.ts";
import { permissionOf } from "./auth/route-permissions.ts";
import { createSecretBox } from "./secrets/crypto.ts";
import { createServices } from "./services.ts";
import { Drain } from "./instances/drain.ts";
import { healthRoutes } from "./instances/health.routes.ts";
import { InstanceLease, newInstanceId } from "./instances/instance-lease.ts";
import { createJobQueue, JOB_STOP_TIMEOUT_MS } from "./jobs/job-queue.ts";
import { createCounterStore, rateLimitStoreClass, type CounterStore } from "./shared-state/index.ts";
import { createStorageFromConfig } from "./storage/storage-from-config.ts";
import { mediaRoutes } from "./storage/media.routes.ts";
import { telephonyRoutes } from "./carriers/twilio/telephony.routes.ts";
import { busyMessageRoutes } from "./carriers/twilio/busy-message.routes.ts";
import { createUrlSigner, type UrlSigner } from "./storage/signed-url.ts";
import type { Storage } from "./storage/storage.ts";
import { ROOT_DIR } from "./paths.ts";

export type { AppConfig, ModuleContext } from "./context.ts";

export interface AppDeps {
  database: Database;
  mailer?: Mailer;
  /** Where the built client lives; tests that only exercise the API leave it out. */
  webRoot?: string;
  /** Object storage; defaults to `<DATA_DIR>/objects` plus the shipped media. */
  storage?: Storage;
  /** Signs media addresses; defaults to one keyed by APP_SECRET. */
  signer?: UrlSigner;
  /** Per-audio-frame timing of live calls (npm run bench:voice); off when absent. */
  callMetrics?: FrameMetrics;
  /** Where log lines go (tests read them); stdout when absent. */
  logStream?: { write(line: string): void };
  /** The clock of scheduled work (campaign windows, retries); tests control it. */
  clock?: () => Date;
  /** Run the hourly retention job (Settings → Data retention). Default: on, except under NODE_ENV=test, where tests run it directly. */
  retentionJob?: boolean;
  /** Sees every route as it is added (the OpenAPI completeness test). */
  onRoute?: (route: import("fastify").RouteOptions) => void;
  /** Webhook retry schedule and attempt timeout (tests shorten them), test events a minute (tests that send bursts raise it); the by default. */
  webhooks?: { retryDelaysMs?: readonly number[]; attemptTimeoutMs?: number; recoverEveryMs?: number; testsPerMinute?: number };
  /** When Twilio is asked for a finished call's price (tests shorten it); a minute after, then retries, by default. */
  callPrice?: import("./carriers/twilio/call-price.ts").CallPriceTiming;
  /** Shared counters (rate limits, failed logins, single-use tokens); defaults to Redis or PostgreSQL per config. */
  counters?: CounterStore;
}

export async function buildApp(config: AppConfig, deps: AppDeps): Promise<FastifyInstance> {
  const app = Fastify({
    // Request lines are logged without query values (signed media URLs, one-time session ids).
    logger: config.logLevel === "silent" ? false : { level: config.logLevel, serializers: { req: serializeRequest }, ...(deps.logStream ? { stream: deps.logStream } : {}) },
    // Off by default: otherwise any client could pick its own address for the per-address limits.
    trustProxy: config.trustProxy,
    bodyLimit: 1024 * 1024,
    // Start-up work (the job queue's schema check under its advisory lock, recovery sweeps) can
    // outlast the default 10 s on a busy database server; a start that truly hangs still fails.
    pluginTimeout: 30_000,
    // A malformed or over-long address in the usual error shape, not Fastify's body echoing it.
    frameworkErrors: sendFrameworkError,
  });
  app.setValidatorCompiler(validatorCompiler);
  app.setSerializerCompiler(serializerCompiler);
  registerErrorHandler(app);
  registerJsonBodyGuard(app);

  const clock = deps.clock ?? (() => new Date());
  // Made before auth: sign-up asks it who may join and gives each new user a team.
  const team = createTeamService({ db: deps.database.db, publicUrl: config.publicUrl, mailer: deps.mailer, clock });
  const auth = createAuth({
    signup: config.signup,
    team,
    db: deps.database.db,
    secret: config.appSecret,
    publicUrl: config.publicUrl,
    mailer: deps.mailer,
    trustProxy: config.trustProxy,
    secureCookies: config.secureCookies,
  });
  const storage = deps.storage ?? createStorageFromConfig(config);
  const signer = deps.signer ?? createUrlSigner({ secret: config.appSecret });
  const liveCalls = new LiveCalls(deps.callMetrics, config.maxCalls);
  const db = deps.database.db;
  const counters = deps.counters ?? createCounterStore(config, deps.database);
  const drain = new Drain();
  const instance = new InstanceLease({
    db,
    id: config.instanceId ?? newInstanceId(),
    leaseMs: config.instanceLeaseMs,
    logger: app.log,
    // What the other instances steer phone calls by when they are full.
    load: () => ({ publicUrl: config.instanceUrl ?? config.publicUrl, calls: liveCalls.taken, maxCalls: config.maxCalls, draining: drain.isDraining }),
    upkeep: () => counters.prune(),
    // A call whose instance died ends here, not in its engine: its analysis is asked for here too.
    onCallsClosed: async (callIds) => {
      await services.sip.hangUpOrphans(callIds);
      await services.analysis.afterClosedCalls(callIds);
      await services.corrections.afterClosedCalls(callIds);
    },
  });
  const jobs = createJobQueue({ database: deps.database, pollIntervalMs: config.jobPollIntervalMs, logger: app.log.child({ module: "jobs" }) });
  const socketSessions = new SocketSessions(liveSessionsCheck(db), app.log);
  const ctx: ModuleContext = { config, db, bus: deps.database.bus, secrets: createSecretBox(config.appSecret), auth, storage, signer, liveCalls, counters, instance, drain, jobs, socketSessions, clock };
  app.decorate("ctx", ctx);
  // Every module registers its job handlers here, before the queue starts.
  const services = createServices(ctx, { logger: app.log, database: deps.database, webhooks: deps.webhooks, callPrice: deps.callPrice, team });
  const idempotency = createIdempotency({ db, jobs, logger: app.log.child({ module: "idempotency" }) });
  // A PostgreSQL server vacuums and analyses itself; the embedded database is kept here (db/embedded-upkeep.ts).
  const embeddedUpkeep = deps.database.kind === "pglite" ? createEmbeddedUpkeep({ database: deps.database, jobs, logger: app.log.child({ module: "upkeep" }) }) : null;
  // main.ts (or a test) starts it; closing the app stops it after the live calls ended (their BYEs sent).
  app.decorate("sip", services.sip);
  app.addHook("onClose", () => services.sip.stop());
  // The lease is taken before the first request (calls name this instance) and released only
  // after preClose has ended and finalised every live call (whose end may still send jobs).
  app.addHook("onReady", () => instance.start());
  // pgvector's column and index where the extension exists (else a clear warning), before any ingestion job runs.
  app.addHook("onReady", () => services.knowledge.start());
  app.addHook("onReady", () => jobs.start());
  // Calls the lease's first sweep closed (before the queue existed) are analysed like any ended call.
  app.addHook("onReady", async () => {
    await services.analysis.afterClosedCalls(instance.closedAtStart);
    await services.corrections.afterClosedCalls(instance.closedAtStart);
  });
  // An analysis left pending with no job (its instance died after the close, before queueing it) is run after all.
  app.addHook("onReady", () => services.analysis.startRecovery());
  // A webhook delivery stored by an instance that died before queueing it is sent after all.
  app.addHook("onReady", () => services.webhooks.startRecovery());
  // A campaign started before a restart goes on.
  app.addHook("onReady", () => services.campaigns.resumeAll());
  // The URL documents' daily and weekly fetches.
  app.addHook("onReady", () => services.knowledge.startRefresh());
  // The hourly purge of expired Idempotency-Keys.
  app.addHook("onReady", () => idempotency.start());
  if (embeddedUpkeep) app.addHook("onReady", () => embeddedUpkeep.start());
  app.addHook("onClose", async () => {
    socketSessions.stop();
    await jobs.stop(JOB_STOP_TIMEOUT_MS);
    await services.knowledge.close();
    await instance.stop();
    if (!deps.counters) await counters.close();
  });

  await app.register(helmet, {
    contentSecurityPolicy: {
      directives: {
        "default-src": ["'self'"],
        "connect-src": ["'self'", "ws:", "wss:"],
        "img-src": ["'self'", "data:", "blob:"],
        "media-src": ["'self'", "blob:"],
        "style-src": ["'self'", "'unsafe-inline'"],
        "script-src": ["'self'"],
        "worker-src": ["'self'", "blob:"],
        "upgrade-insecure-requests": null,
      },
    },
    crossOriginEmbedderPolicy: false,
  });
  // Counted in the shared store, so a limit holds across every instance. If the store cannot be
  // reached the request goes through: availability over a brake (docs/decisions/025-shared-state.md).
  await app.register(rateLimit, {
    global: false,
    store: rateLimitStoreClass(counters),
    skipOnError: true,
    // Every 429 in the one error shape with its own code; routes may word the message themselves.
    // `RateLimit-Limit/-Remaining/-Reset` (the IETF draft's names), as the per-key limit sends them too.
    enableDraftSpec: true,
    errorResponseBuilder: (_req, ctx) => new AppError(429, "rate_limited", HTTP_ERROR_MESSAGES.rateLimited(ctx.after)),
  });
  // Added before @fastify/websocket's own preClose (which closes every socket bare): live calls
  // end first, each sending "ended" and closing with 1000, with its record finalised.
  app.addHook("preClose", () => liveCalls.closeAll());
  // Text frames are JSON, decoded with replacement characters: ws's own UTF-8 check of every frame is skipped (ADR 038).
  await app.register(websocket, { options: { maxPayload: 1024 * 1024, skipUTF8Validation: true } });

  if (deps.onRoute) app.addHook("onRoute", deps.onRoute);
  // Every /api answer, errors and unknown paths included, names the API version it speaks.
  app.addHook("onSend", async (req, reply) => {
    if (req.url === "/api" || req.url.startsWith("/api/")) reply.header(API_VERSION_HEADER, API_VERSION);
  });
  const apiRoutes = new RouteIndex();
  apiRoutes.watch(app);
  // Before every route it documents (it collects them as they are added).
  await registerOpenApi(app, { publicUrl: config.publicUrl });
  await app.register(healthRoutes, { db, databaseKind: deps.database.kind, drain, instanceId: instance.id, calls: liveCalls });
  await app.register(authRoutes, { auth, throttle: createLoginThrottle(counters), mailThrottle: createMailThrottle(counters), publicUrl: config.publicUrl, onSignedIn: services.auditing.signIn });

  // Public modules (no session): demo requests and signed media are registered here.
  await app.register(mediaRoutes, { storage, signer });
  await app.register(marketingRoutes);
  await app.register(demoRequestsRoutes, { service: services.demoRequests });
  // Twilio's webhooks and media streams: signed by Twilio, no session.
  await app.register(telephonyRoutes, { service: services.telephony });
  await app.register(invitationPreviewRoutes, { service: team });
  await app.register(accountPublicRoutes, { emailEnabled: Boolean(deps.mailer), signup: config.signup.mode });

  // Everything else under /api needs a session.
  await app.register(async (scope) => {
    // Every route here says who may call it (auth/route-permissions.ts); one left out stops the start.
    scope.addHook("onRoute", (route) => {
      for (const method of [route.method].flat()) {
        const permission = permissionOf(method, route.url);
        if (!permission) throw new Error(`${method} ${route.url} has no permission in auth/route-permissions.ts`);
        route.config = { ...route.config, permission };
      }
    });
    // A session cookie (in its current organisation), or `Authorization: Bearer <API key>` acting
    // for the member who made it, at their current role; then the route's permission against the role.
    scope.addHook("onRequest", requireUser(auth, team, { authenticate: (key) => services.apiKeys.authenticate(key), counters }));
    // A retried POST with the same Idempotency-Key gets the first answer (modules/idempotency).
    scope.addHook("preHandler", idempotency.preHandler);
    scope.addHook("onSend", idempotency.onSend);
    // The audit log: the successful requests listed in modules/audit/audit-routes.ts, each recorded before its answer leaves.
    scope.addHook("preHandler", services.auditing.http.preHandler);
    scope.addHook("onSend", services.auditing.http.onSend);
    // Authenticated modules are registered here.
    await scope.register(assistantsRoutes, { service: services.assistants });
    await scope.register(versionsRoutes, { service: services.versions, beforePublish: services.testRuns.beforePublish });
    await scope.register(scenariosRoutes, { service: services.scenarios });
    await scope.register(testRunsRoutes, { service: services.testRuns });
    await scope.register(toolsRoutes, { service: services.tools });
    await scope.register(knowledgeRoutes, { service: services.knowledge });
    await scope.register(credentialRoutes, { service: services.credentials });
    await scope.register(callsRoutes, { service: services.calls });
    await scope.register(outboundRoutes, { service: services.outbound });
    await scope.register(busyMessageRoutes, { service: services.busyMessages });
    await scope.register(doNotCallRoutes, { service: services.doNotCall });
    await scope.register(campaignsRoutes, { service: services.campaigns });
    await scope.register(callsHistoryRoutes);
    await scope.register(analysisRoutes, { service: services.analysis });
    await scope.register(replayRoutes, { service: services.replay });
    await scope.register(liveRoutes, { onSupervisorAction: services.auditing.liveAction });
    await scope.register(phoneNumbersRoutes, { service: services.phoneNumbers });
    await scope.register(sipTrunksRoutes, { service: services.sipTrunks });
    await scope.register(providersRoutes, { service: services.providers });
    await scope.register(retentionRoutes);
    await scope.register(webhooksRoutes, { service: services.webhooks, testsPerMinute: deps.webhooks?.testsPerMinute });
    await scope.register(teamRoutes, { service: team });
    await scope.register(auditRoutes, { service: services.audit });
    await scope.register(gettingStartedRoutes, { service: services.gettingStarted });
    // A person's only: with an API key these answer 403 (their permissions are ones no key has: keyMay in shared/roles.ts).
    await scope.register(accountRoutes, { service: services.account });
    await scope.register(apiKeysRoutes, { service: services.apiKeys });
    await scope.register(demoRequestsOwnerRoutes, { service: services.demoRequests });
  });

  if (deps.retentionJob ?? config.env !== "test") {
    let stop: (() => void) | null = null;
    app.addHook("onReady", async () => {
      stop = scheduleRetention(deps.database.db, storage, app.log.child({ job: "retention" }), undefined, () => services.audit.purge());
    });
    app.addHook("onClose", async () => stop?.());
  }

  const indexHtml = deps.webRoot ? await registerSpa(app, deps.webRoot) : null;
  app.setNotFoundHandler(async (req, reply) => {
    if (req.url === "/api" || req.url.startsWith("/api/")) {
      // Whoever asks (a key, a session or nobody): the paths are public in the OpenAPI document, and a
      // 401 here would tell a client its valid key is bad.
      const allowed = apiRoutes.allowed(req.url.split("?")[0]!);
      if (allowed.length === 0) throw new AppError(404, "not_found", HTTP_ERROR_MESSAGES.notFound);
      reply.header("allow", allowed.join(", "));
      throw new AppError(405, "method_not_allowed", HTTP_ERROR_MESSAGES.methodNotAllowed(req.method, allowed));
    }
    if (indexHtml && (req.method === "GET" || req.method === "HEAD")) {
      // The app renders its own not-found page; the status says so too (crawlers, monitors).
      const status = isPagePath(req.url.split("?")[0]!) ? 200 : 404;
      return reply.status(status).header("cache-control", "no-cache").type("text/html; charset=utf-8").send(indexHtml);
    }
    return reply.status(404).type("text/plain").send("Not found");
  });

  return app;
}

export const defaultWebRoot = join(ROOT_DIR, "dist/web");
