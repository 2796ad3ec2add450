/**
 * Test calls from the browser: a short-lived session id (no call record yet), then the live
 * socket that runs one CallSession joining the browser, OpenAI Realtime and the user's tools.
 * The record is inserted by the CallSession when the call starts, finalised when it ends.
 */
import type { FastifyBaseLogger } from "fastify";
import type WebSocket from "ws";
import { LIVE_CALL_TEXTS, type TestSession } from "../../../shared/calls.ts";
import type { CallDirection } from "../../../shared/outbound.ts";
import { callVariables, fillPlaceholders, type CallVariables } from "../../../shared/variables.ts";
import type { Voicemail } from "../../../shared/assistants.ts";
import { callSettingsOf, voiceEngineOf } from "../../../shared/versions.ts";
import type { ModuleContext } from "../../context.ts";
import { AppError, notFound } from "../../errors.ts";
import { CallSession, greetingInstructions, type CallAssistant } from "../../voice/call-session.ts";
import { PipelineSession, type PipelineOptions } from "../../voice/pipeline/pipeline-session.ts";
import { GPT_LIVE_DELEGATION_MODEL, VOICE_ENGINE_MESSAGES, type GptLiveEngine, type PipelineEngine } from "../../../shared/providers.ts";
import { GptLiveProvider } from "../../voice/providers/gpt-live.ts";
import type { ProvidersService } from "../providers/providers.service.ts";
import type { CallAudioFormat } from "../../voice/audio.ts";
import { callSessionConfig } from "../../voice/provider-events.ts";
import { OpenAIRealtimeProvider, type RealtimeProvider } from "../../voice/providers/openai-realtime.ts";
import { PrimedProvider } from "../../voice/providers/primed-provider.ts";
import { speakMulaw } from "../../voice/speech.ts";
import type { PhoneCallParty, ToolRunner, Transport } from "../../voice/seams.ts";
import type { CallTransfer } from "../../voice/builtins.ts";
import { BrowserTransport } from "../../voice/transports/browser.ts";
import type { EndedCall } from "../analysis/analysis.service.ts";
import type { AssistantsService } from "../assistants/assistants.service.ts";
import type { VersionChoice, VersionsService } from "../versions/versions.service.ts";
import type { CredentialsService } from "../credentials/credentials.service.ts";
import type { ToolsService } from "../tools/tools.service.ts";
import type { CallTokens } from "./call-tokens.ts";
import { createCallEvents, type EmitEvent } from "./call-events.ts";
import { createCallToolRunner, type CallToolConfig } from "./call-tool-runner.ts";
import { withKnowledge, withKnowledgeSetup, type CallKnowledge, type CallKnowledgeService } from "./call-knowledge.ts";
import { createDbCallStore } from "./calls.repo.ts";
import { singleFlight } from "../../db/single-flight.ts";
import type { LiveCalls } from "./live-calls.ts";

export const MISSING_API_KEY_MESSAGE = "Add your OpenAI API key in Settings before starting a call.";

/** A pipeline assistant's three services, keys opened (the voice engine's protocols, ADR 065). */
export type CallPipeline = Pick<PipelineOptions, "transcriber" | "model" | "voice" | "prices" | "turnEnd">;

/** Everything a live call needs, loaded before the socket is upgraded. */
export interface PreparedCall {
  organizationId: string;
  /** The OpenAI key (empty for a pipeline call of an organisation without one). */
  apiKey: string;
  /** Set when the assistant's voice engine is a pipeline; null: OpenAI Realtime. */
  pipeline?: CallPipeline | null;
  /** Set when the assistant's voice engine is OpenAI GPT-Live (its model and voice). */
  gptLive?: GptLiveEngine | null;
  assistant: CallAssistant;
  toolConfigs: Map<string, CallToolConfig>;
  /** The `{{name}}` values filled into the instructions and first message. */
  variables: CallVariables;
  /** With the assistant's do-not-call function on: the other party's number it adds (phone calls). */
  doNotCallNumber: string | null;
  /** The knowledge bases its retrieval function searches; null without one. */
  knowledge?: CallKnowledge | null;
  /** What to do when a machine answers a call placed with it (the version's "If a machine answers"). */
  voicemail?: Voicemail;
}

/** The built-in function that puts the person on the line on the do-not-call list (an assistant's switch). */
const DO_NOT_CALL_TOOL = {
  id: "builtin:add_to_do_not_call",
  name: "add_to_do_not_call",
  description: "The person asked never to be called again: add their number to the do-not-call list. Confirm to them that they will not be called again.",
  parameters: { type: "object", properties: {} },
};

/** Who is on the line, for the built-in variables; `given` are the request's or the campaign row's. */
export interface CallParties {
  callerNumber: string;
  calledNumber: string;
  direction: CallDirection;
  given?: CallVariables;
}

/**
 * Why a live socket is refused: closed right after the upgrade with an application close code
 * (4000–4999) and this reason, which the panel shows as "Disconnected (code) - reason".
 */
export interface RefusedCall {
  code: number;
  reason: string;
}

export type PrepareResult = { ok: true; call: PreparedCall } | ({ ok: false } & RefusedCall);

export const REFUSALS = {
  unknown: { code: 4404, reason: "Call session not found" },
  expired: { code: 4401, reason: "Call session expired" },
  used: { code: 4401, reason: "Call session already used" },
  assistant: { code: 4404, reason: "Assistant not found" },
  apiKey: { code: 4400, reason: MISSING_API_KEY_MESSAGE },
  shuttingDown: { code: 1001, reason: LIVE_CALL_TEXTS.shuttingDown },
  failed: { code: 1011, reason: LIVE_CALL_TEXTS.startFailed },
} as const satisfies Record<string, RefusedCall>;

type Ctx = Pick<ModuleContext, "db" | "config" | "storage" | "instance" | "drain">;

export interface CallsServiceDeps {
  ctx: Ctx;
  tokens: CallTokens;
  liveCalls: LiveCalls;
  /** The assistant a call runs comes from the assistants module. */
  assistants: AssistantsService;
  /** Which content of the assistant a call runs (draft or a published version) comes from the versions module. */
  versions: VersionsService;
  /** The assistant's tools, with their secrets opened, come from the tools module. */
  tools: ToolsService;
  /** The user's OpenAI key comes from the credentials module. */
  credentials: CredentialsService;
  /** A pipeline assistant's providers, keys opened, come from the providers module. */
  providers?: Pick<ProvidersService, "forCall">;
  /** call.* events go out as webhooks (the webhooks module's emit). */
  emit: EmitEvent;
  /** The assistant's do-not-call function adds numbers through the do-not-call module. */
  doNotCall?: { add(organizationId: string, input: { phone: string }): Promise<unknown> };
  /** Told once each call has ended and its record is written (post-call analysis); must not throw. */
  onCallEnded?: (call: EndedCall) => Promise<void>;
  /** The assistant's knowledge bases: its retrieval function, or their text in the instructions. */
  knowledge?: CallKnowledgeService;
}

export function createCallsService({ ctx, tokens, liveCalls, assistants, versions, tools, credentials, providers, emit, onCallEnded, doNotCall, knowledge }: CallsServiceDeps) {
  const { db, config, storage } = ctx;
  const store = createDbCallStore(db, ctx.instance.id);
  const callEvents = createCallEvents({ db, publicUrl: config.publicUrl, emit });

  const ownAssistant = (organizationId: string, id: string) => assistants.forCall(organizationId, id);

  /** Missing or no longer readable: either way the fix is the same (enter it again in Settings). */
  const apiKeyOf = (organizationId: string) => credentials.readUsable(organizationId, "openai_api_key");

  /**
   * What every call of an assistant in this version shares: its content, its tools and the
   * account's key. A phone call's is read once for the calls starting together (single-flight.ts);
   * the Test Call's draft is always read afresh (it was just edited).
   */
  const readCallSetup = async (organizationId: string, assistantId: string, choice: VersionChoice) => {
    const runnable = await versions.forCall(organizationId, assistantId, choice);
    if (!runnable) return { ok: false as const, ...REFUSALS.assistant };
    const engine = voiceEngineOf(runnable.content);
    // A pipeline speaks through the organisation's providers: it needs no OpenAI key.
    const apiKey = (await apiKeyOf(organizationId)) ?? "";
    if (!apiKey && engine.type !== "pipeline") return { ok: false as const, ...REFUSALS.apiKey };
    const gptLive = engine.type === "gpt-live" ? engine : null;
    const pipeline = engine.type === "pipeline" ? await pipelineOf(organizationId, engine) : null;
    if (pipeline && "refused" in pipeline) return { ok: false as const, code: 4400, reason: pipeline.refused };
    const tooling = await tools.forCall(organizationId, runnable.content.tool_ids);
    return { ok: true as const, runnable, apiKey, pipeline, gptLive, tooling };
  };

  /** The three providers of a pipeline, or why the call cannot run on it. */
  async function pipelineOf(organizationId: string, engine: PipelineEngine): Promise<CallPipeline | { refused: string }> {
    if (!providers) return { refused: VOICE_ENGINE_MESSAGES.providerGone };
    try {
      const [transcriber, model, voice] = await Promise.all([engine.transcriber, engine.model, engine.voice].map((slot) => providers.forCall(organizationId, slot.provider_id)));
      if (!transcriber || !model || !voice) return { refused: VOICE_ENGINE_MESSAGES.providerGone };
      return {
        turnEnd: engine.turn_end,
        transcriber: { protocol: transcriber.protocol === "openai-transcription" ? "openai-transcription" : "deepgram", baseUrl: transcriber.baseUrl, apiKey: transcriber.apiKey, model: engine.transcriber.model, language: engine.transcriber.language },
        model: { baseUrl: model.baseUrl, apiKey: model.apiKey, model: engine.model.model, protocol: model.protocol === "anthropic" ? "anthropic" : "openai-compatible" },
        voice: { protocol: voice.protocol === "cartesia" || voice.protocol === "openai-speech" ? voice.protocol : "elevenlabs", baseUrl: voice.baseUrl, apiKey: voice.apiKey, voice: engine.voice.voice, model: engine.voice.model },
        prices: {
          transcriber: { protocol: transcriber.protocol, model: engine.transcriber.model, unitPrice: transcriber.unitPrice },
          model: { protocol: model.protocol, model: engine.model.model, unitPrice: model.unitPrice },
          voice: { protocol: voice.protocol, model: engine.voice.model, unitPrice: voice.unitPrice },
        },
      };
    } catch {
      return { refused: VOICE_ENGINE_MESSAGES.providerUnreadable };
    }
  }
  const sharedCallSetup = singleFlight(readCallSetup, (organizationId, assistantId, choice) => `${organizationId}\0${assistantId}\0${JSON.stringify(choice)}`);

  /** One engine session of the call: the assistant's pipeline, GPT-Live, or OpenAI Realtime (ADR 065). */
  const newProvider = (call: PreparedCall, logger: FastifyBaseLogger, format: CallAudioFormat): RealtimeProvider => {
    if (call.pipeline) {
      const first = call.assistant.firstMessage?.trim();
      return new PipelineSession({ ...call.pipeline, format, firstMessage: first || null, greetingInstructions: first ? greetingInstructions(first) : null, timeoutMs: config.pipelineServiceTimeoutMs });
    }
    if (call.gptLive) {
      const { model, voice } = call.gptLive;
      return new GptLiveProvider({ baseUrl: config.openaiBaseUrl, apiKey: call.apiKey, model, voice, delegationModel: GPT_LIVE_DELEGATION_MODEL, format, logger });
    }
    return new OpenAIRealtimeProvider({ baseUrl: config.openaiBaseUrl, apiKey: call.apiKey, model: call.assistant.model, logger, metrics: liveCalls.metrics });
  };

  /** The do-not-call function runs here, beside the HTTP tools. */
  function withDoNotCall(runner: ToolRunner, call: PreparedCall): ToolRunner {
    return {
      async run(tool, args, signal) {
        if (tool.id !== DO_NOT_CALL_TOOL.id) return runner.run(tool, args, signal);
        if (!call.doNotCallNumber || !doNotCall) return { success: false, status: 0, data: null, error: "There is no phone number to add on this call" };
        await doNotCall.add(call.organizationId, { phone: call.doNotCallNumber });
        return { success: true, status: 200, data: { ok: true, message: "The number will not be called again." } };
      },
    };
  }

  return {
    /** An outbound call ended without reaching the assistant: its call.ended still goes out. */
    outboundEndedUnanswered: callEvents.endedUnanswered,

    /** Checks the assistant and the key; creates no call record (that happens when the call starts). */
    async createTestSession(organizationId: string, assistantId: string): Promise<TestSession> {
      const assistant = await ownAssistant(organizationId, assistantId);
      if (!assistant) throw notFound("Assistant");
      const pipelined = assistant.voiceEngine?.type === "pipeline";
      if (!pipelined && !(await apiKeyOf(organizationId))) throw new AppError(400, "missing_api_key", MISSING_API_KEY_MESSAGE);
      return {
        session_id: tokens.issue(organizationId, assistant.id),
        model: assistant.model,
        assistant: { id: assistant.id, name: assistant.name },
      };
    },

    /** Redeems the session id and loads the call's configuration; never throws. */
    async prepareLiveCall(organizationId: string, sessionId: unknown): Promise<PrepareResult> {
      if (liveCalls.isClosing || ctx.drain.isDraining) return { ok: false, ...REFUSALS.shuttingDown };
      const check = await tokens.redeem(sessionId, organizationId);
      if (!check.ok) {
        const refusal = check.reason === "expired" ? REFUSALS.expired : check.reason === "used" ? REFUSALS.used : REFUSALS.unknown;
        return { ok: false, ...refusal };
      }
      // Re-checked: the assistant or the key may have gone since the session id was issued.
      // The browser Test Call runs the draft, what the form is editing.
      return this.loadCall(organizationId, check.claims.assistantId, "draft");
    },

    /**
     * The assistant's chosen content (draft, live or pinned version) with its tools, its
     * placeholders filled for this call, and the OpenAI key of a call of `organizationId`; never throws
     * on missing data.
     */
    async loadCall(organizationId: string, assistantId: string, choice: VersionChoice, parties: CallParties = { callerNumber: "", calledNumber: "", direction: "inbound" }): Promise<PrepareResult> {
      const setup = await (choice === "draft" ? readCallSetup : sharedCallSetup)(organizationId, assistantId, choice);
      if (!setup.ok) return { ok: false, code: setup.code, reason: setup.reason };
      const { runnable, apiKey, pipeline, gptLive } = setup;
      const { content } = runnable;
      const { definitions, configs } = setup.tooling;
      const { timeZone, allowDoNotCall, voicemail } = callSettingsOf(content);
      const variables = callVariables(parties.given ?? {}, { ...parties, timeZone, at: new Date() });
      const filled = fillPlaceholders(content.instructions ?? "", variables);
      const known = knowledge ? await withKnowledgeSetup(knowledge, organizationId, content, filled) : { instructions: filled, tools: [], knowledge: null };
      const assistant: CallAssistant = {
        id: runnable.id,
        name: runnable.name,
        version: runnable.version,
        instructions: known.instructions,
        firstMessage: content.first_message === null ? null : fillPlaceholders(content.first_message, variables),
        model: content.model,
        voice: content.voice,
        tools: [...definitions, ...known.tools, ...(allowDoNotCall ? [DO_NOT_CALL_TOOL] : [])],
        handoff: { transferDestinations: content.transfer_destinations, allowEndCall: content.allow_end_call, keypadInput: content.keypad_input },
      };
      const other = parties.direction === "outbound" ? parties.calledNumber : parties.callerNumber;
      return { ok: true, call: { organizationId, apiKey, pipeline, gptLive, assistant, toolConfigs: configs, variables, doNotCallNumber: allowDoNotCall && other ? other : null, knowledge: known.knowledge, voicemail } };
    },

    /** `text` in the call's assistant's voice, µ-law 8 kHz (a SIP transfer's whisper briefing). */
    speak(call: PreparedCall, text: string, signal: AbortSignal): Promise<Buffer> {
      const voice = call.pipeline
        ? ({ kind: "elevenlabs", ...call.pipeline.voice } as const)
        : ({ kind: "openai", baseUrl: config.openaiBaseUrl, apiKey: call.apiKey, voice: call.assistant.voice } as const);
      return speakMulaw(voice, text, signal);
    },

    /** Runs the test call on the upgraded socket; it is tracked until it ends. */
    startLiveCall(socket: WebSocket, call: PreparedCall, log: FastifyBaseLogger): CallSession {
      return this.startCall(new BrowserTransport(socket, { metrics: liveCalls.metrics }), call, log, { isTest: true });
    },

    /**
     * A provider session for `call`, opened and configured now for a caller whose audio comes in
     * `format` (a phone call's, at its voice webhook); the call takes it with startCall's `provider`.
     */
    primeProvider(call: PreparedCall, format: CallAudioFormat, log: FastifyBaseLogger): PrimedProvider {
      const session = callSessionConfig(call.assistant, format, true);
      return new PrimedProvider(newProvider(call, log.child({ assistantId: call.assistant.id }), format), session);
    },

    /**
     * Runs a call (test or phone) on its transport; it is tracked until it ends. Its first provider
     * session is `kind.provider` when one was opened for it (primeProvider), else a new one.
     */
    startCall(transport: Transport, call: PreparedCall, log: FastifyBaseLogger, kind: { isTest: boolean; phone?: PhoneCallParty; transfer?: CallTransfer; provider?: RealtimeProvider }): CallSession {
      const logger = log.child({ assistantId: call.assistant.id });
      const events = callEvents.track({ organizationId: call.organizationId, assistant: call.assistant, isTest: kind.isTest, phone: kind.phone }, store, kind.transfer);
      const session = new CallSession({
        transport,
        provider: kind.provider ?? newProvider(call, logger, transport.audioFormat),
        // One per provider session: a call outlives the provider's 60-minute cap on new ones.
        newProvider: () => newProvider(call, logger, transport.audioFormat),
        toolRunner: withKnowledge(withDoNotCall(createCallToolRunner(call.toolConfigs, { allowedHosts: config.toolAllowedHosts }), call), knowledge, call.organizationId, call.knowledge ?? null),
        store: events.store,
        openRecording: (key) => storage.openAppend(key, { contentType: "audio/wav" }),
        assistant: call.assistant,
        organizationId: call.organizationId,
        isTest: kind.isTest,
        phone: kind.phone,
        transfer: events.transfer,
        logger,
      });
      void session.closed.then((outcome) => events.ended(outcome.callId), () => undefined);
      session.start();
      liveCalls.add(session);
      if (onCallEnded) {
        void session.closed
          .then((outcome) =>
            onCallEnded({ callId: outcome.verified ? outcome.callId : null, organizationId: call.organizationId, assistantId: call.assistant.id, transcript: outcome.logs.transcript }),
          )
          .catch((err: unknown) => logger.error({ err }, "the end-of-call work (analysis, corrections) failed"));
      }
      return session;
    },
  };
}

export type CallsService = ReturnType<typeof createCallsService>;
