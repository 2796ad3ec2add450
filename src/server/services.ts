/**
 * Where the modules' services are made: each once, from the shared context, and handed to the
 * routes that serve it (app.ts). A service that needs another module asks that module's service
 * (calls → tools and credentials), never its repository, so each table has one owner.
 */
import type { FastifyBaseLogger } from "fastify";
import type { ModuleContext } from "./context.ts";
import { createAccountService } from "./modules/account/account.service.ts";
import { createAnalysisService } from "./modules/analysis/analysis.service.ts";
import { createAssistantsService } from "./modules/assistants/assistants.service.ts";
import { createCallTokens } from "./modules/calls/call-tokens.ts";
import { createCallsService } from "./modules/calls/calls.service.ts";
import { createCredentialsService } from "./modules/credentials/credentials.service.ts";
import { createDemoRequestsService } from "./modules/demo-requests/demo-requests.service.ts";
import { createReplayService } from "./modules/replay/replay.service.ts";
import { createCorrectionsService } from "./modules/replay/corrections.ts";
import { createPhoneNumbersService } from "./modules/phone-numbers/phone-numbers.service.ts";
import { createProvidersService } from "./modules/providers/providers.service.ts";
import { createSipTrunksService } from "./modules/sip-trunks/sip-trunks.service.ts";
import type { Carriers, PlaceCallRequest } from "./carriers/carrier.ts";
import { createSipCarrier } from "./carriers/sip/carrier.ts";
import { createTwilioCarrier, twilioCredentialCheck } from "./carriers/twilio/twilio-carrier.ts";
import { createCampaignsService } from "./modules/campaigns/campaigns.service.ts";
import { createDoNotCallService } from "./modules/do-not-call/do-not-call.service.ts";
import { createOutboundService } from "./modules/outbound/outbound.service.ts";
import type { Database } from "./db/client.ts";
import { createKnowledgeService } from "./modules/knowledge/knowledge.service.ts";
import { vectorIndexFor } from "./modules/knowledge/vector-store.ts";
import { createToolsService } from "./modules/tools/tools.service.ts";
import { createScenariosService } from "./modules/scenarios/scenarios.service.ts";
import { createTestRunsService } from "./modules/test-runs/test-runs.service.ts";
import { createVersionsService } from "./modules/versions/versions.service.ts";
import { createWebhooksService } from "./modules/webhooks/webhooks.service.ts";
import { createApiKeysService } from "./modules/api-keys/api-keys.service.ts";
import { auditHooks, recordLiveAction, recordSignIn } from "./modules/audit/audit-hook.ts";
import { createAuditService } from "./modules/audit/audit.service.ts";
import type { TeamService } from "./modules/team/team.service.ts";
import { createHandoffTokens } from "./carriers/twilio/handoff.ts";
import { createStreamTokens } from "./carriers/twilio/stream-tokens.ts";
import { createGettingStartedService } from "./modules/getting-started/getting-started.service.ts";
import { createCallPricing, type CallPriceTiming } from "./carriers/twilio/call-price.ts";
import { createTelephonyService } from "./carriers/twilio/telephony.service.ts";
import { createBusyMessages } from "./carriers/twilio/busy-messages.ts";
import { createSipRuntime } from "./carriers/sip-runtime/sip-runtime.ts";

export interface ServiceOptions {
  logger: FastifyBaseLogger;
  /** Tests shorten the webhook retry schedule and attempt timeout. */
  webhooks?: { retryDelaysMs?: readonly number[]; attemptTimeoutMs?: number; recoverEveryMs?: number };
  /** Organisations and members: made before auth (sign-up uses it), so handed in. */
  team: TeamService;
  /**
   * Which database the app runs on (the knowledge bases' vector index differs: vector-store.ts),
   * and how the ingestion thread reaches it.
   */
  database: Pick<Database, "kind" | "link">;
  /** When Twilio is asked for a call's price (tests shorten it). */
  callPrice?: CallPriceTiming;
}

export function createServices(ctx: ModuleContext, options: ServiceOptions) {
  const { db, secrets, config, auth, storage, liveCalls, counters, jobs } = ctx;
  // Other modules emit their events through this one service (webhooks.emit).
  const webhooks = createWebhooksService({ db, secrets, jobs, allowedHosts: config.webhookAllowedHosts, logger: options.logger.child({ module: "webhooks" }), ...options.webhooks });
  const credentials = createCredentialsService({ db, secrets, config, checkTwilio: twilioCredentialCheck(config.twilioApiBase) });
  const tools = createToolsService({ db, secrets, execution: { allowedHosts: config.toolAllowedHosts } });
  const knowledge = createKnowledgeService({
    db,
    storage,
    jobs,
    credentials,
    openaiBaseUrl: config.openaiBaseUrl,
    embeddingModel: config.knowledge.embeddingModel,
    allowedHosts: config.toolAllowedHosts,
    retryDelaysMs: config.knowledge.retryDelaysMs,
    logger: options.logger.child({ module: "knowledge" }),
    clock: ctx.clock,
    vectorIndex: vectorIndexFor(options.database.kind),
    databaseLink: options.database.link,
  });
  const providers = createProvidersService({ db, secrets, allowedHosts: config.toolAllowedHosts });
  const drafts = createAssistantsService({ db, defaultModel: config.defaultRealtimeModel, knowledge, providers });
  const versions = createVersionsService({ db, assistants: drafts });
  // A new assistant is published as v1 when first saved, so its numbers answer with it at once.
  const assistants: typeof drafts = {
    ...drafts,
    async create(organizationId, input, by = null) {
      const created = await drafts.create(organizationId, input);
      await versions.publishFirst(organizationId, created.id, by);
      return created;
    },
  };
  const scenarios = createScenariosService({ db, assistants });
  const testRuns = createTestRunsService({
    db,
    openaiBaseUrl: config.openaiBaseUrl,
    jobs,
    versions,
    scenarios,
    tools,
    credentials,
    counters,
    logger: options.logger.child({ module: "test-runs" }),
    ...config.testRuns,
  });
  // SIP trunks: the owners' CRUD, and what the SIP runtime looks up (numbers, routes, registrations).
  const sipTrunks = createSipTrunksService({ db, secrets, sip: config.sip, listenerStatus: () => sip.status(config.sip.port), onChange: () => sip.trunksChanged(), logger: options.logger.child({ module: "sip-trunks" }) });
  // The SIP runtime (made below, with the calls service) places and ends the SIP carrier's calls.
  const sipCalls = {
    get listening() {
      return sip.port !== null;
    },
    place: (request: PlaceCallRequest) => sip.place(request),
    end: (organizationId: string, providerCallId: string) => sip.end(organizationId, providerCallId),
  };
  // The carriers numbers and calls go through (carriers/carrier.ts), picked by a number's provider.
  const carriers: Carriers = { twilio: createTwilioCarrier({ config, credentials }), sip: createSipCarrier({ sipTrunks, calls: sipCalls }) };
  const phoneNumbers = createPhoneNumbersService({ db, carriers, versions, sipTrunks });
  const doNotCall = createDoNotCallService({ db });
  const analysis = createAnalysisService({
    db,
    openaiBaseUrl: config.openaiBaseUrl,
    jobs,
    assistants,
    credentials,
    logger: options.logger.child({ module: "analysis" }),
    emit: webhooks.emit,
    ...config.analysis,
  });
  // A supervisor's guidance or take-over becomes a suggested test of the assistant, in a job once the call has ended.
  const corrections = createCorrectionsService({ db, jobs, scenarios, logger: options.logger.child({ module: "corrections" }) });
  // Browser test calls and phone calls run on the same service, so both are counted and ended alike.
  const calls = createCallsService({
    ctx,
    tokens: createCallTokens(config.appSecret, { counters }),
    liveCalls,
    assistants,
    versions,
    tools,
    credentials,
    providers,
    emit: webhooks.emit,
    // Every ended call (phone or browser, transferred too) is analysed off the call path.
    onCallEnded: async (call) => {
      await analysis.afterCall(call);
      await corrections.afterCall(call);
    },
    doNotCall,
    knowledge,
  });
  const busyMessages = createBusyMessages(db);
  const telephony = createTelephonyService({
    ctx,
    busyMessages,
    calls,
    credentials,
    tokens: createStreamTokens(config.appSecret, counters),
    handoffTokens: createHandoffTokens(config.appSecret, counters),
    assistants,
    pricing: createCallPricing({ ctx, credentials, logger: options.logger.child({ module: "call-price" }), ...(options.callPrice ? { timing: options.callPrice } : {}) }),
    logger: options.logger.child({ module: "telephony" }),
  });
  // Made here, started by main.ts (SIP_PORT): tests build apps without binding SIP.
  const sip = createSipRuntime({ ctx, calls, directory: sipTrunks, logger: options.logger.child({ module: "sip" }) });
  // Deleting an account deletes the organisations it alone belongs to, releasing their numbers at Twilio first.
  const account = createAccountService({ db, auth, storage, releasePhoneNumbers: (organizationId) => phoneNumbers.releaseBeforeAccountDeletion(organizationId) });
  const demoRequests = createDemoRequestsService({ db });
  const outbound = createOutboundService({ ctx, assistants, phoneNumbers, credentials, doNotCall, carriers, onEndedUnanswered: calls.outboundEndedUnanswered });
  const campaigns = createCampaignsService({ ctx, assistants, phoneNumbers, doNotCall, outbound, logger: options.logger.child({ module: "campaigns" }), emit: webhooks.emit });
  const apiKeys = createApiKeysService({ db });
  const audit = createAuditService({ db, clock: ctx.clock, logger: options.logger.child({ module: "audit" }) });
  const apiKeyName = async (organizationId: string, id: string) => (await apiKeys.list(organizationId)).find((k) => k.id === id)?.name ?? null;
  // How the audit log hears of actions: the HTTP hooks (names read through each module's service), sign-ins and the live board.
  const auditing = {
    http: auditHooks({
      audit,
      names: {
        assistant: async (org, id) => (await assistants.get(org, id)).name,
        tool: async (org, id) => (await tools.get(org, id)).name,
        knowledge_base: async (org, id) => (await knowledge.getBase(org, id)).name,
        knowledge_document: (org, id) => knowledge.documentName(org, id),
        phone_number: async (org, id) => (await phoneNumbers.forCall(org, id))?.phoneNumber ?? null,
        sip_trunk: async (org, id) => (await sipTrunks.find(org, id))?.name ?? null,
        provider: async (org, id) => (await providers.find(org, id))?.name ?? null,
        webhook: async (org, id) => (await webhooks.get(org, id)).url,
        api_key: apiKeyName,
      },
    }),
    signIn: recordSignIn(audit, (userId) => options.team.organizationIds(userId)),
    liveAction: recordLiveAction(audit),
  };
  const gettingStarted = createGettingStartedService({ db });
  // Replays run the draft as calls load it (calls.loadCall), on the text model, never the tools.
  const replay = createReplayService({ db, openaiBaseUrl: config.openaiBaseUrl, calls, scenarios, requestTimeoutMs: config.analysis.requestTimeoutMs });
  return { team: options.team, account, analysis, apiKeys, assistants, audit, auditing, busyMessages, calls, campaigns, corrections, credentials, demoRequests, doNotCall, gettingStarted, knowledge, carriers, outbound, phoneNumbers, providers, replay, scenarios, sip, sipTrunks, telephony, testRuns, tools, versions, webhooks };
}

export type Services = ReturnType<typeof createServices>;
