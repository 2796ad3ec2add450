/**
 * Inbound phone calls from Twilio (protocols §3):
 *
 * 1. POST /telephony/twilio/voice — Twilio asks what to do with a call to one of our numbers.
 *    The number (by `To`) names its owner, whose auth token checks the signature. The answer
 *    is TwiML: an apology and a hang-up when nobody answers on that number, otherwise a
 *    bidirectional stream to WS /telephony/twilio/media carrying a single-use call token.
 * 2. WS /telephony/twilio/media — the stream: its `start` message carries the token; the call
 *    then runs in a CallSession over a TwilioTransport, exactly as a browser test call does.
 * 3. POST /telephony/twilio/status — Twilio's end-of-call callback: fills in a record the
 *    stream left without figures.
 */
import type { FastifyBaseLogger } from "fastify";
import twilio from "twilio";
import type WebSocket from "ws";
import { callTariffs, LIVE_CALL_TEXTS, PHONE_UNAVAILABLE_MESSAGE } from "../../../shared/calls.ts";
import type { ModuleContext } from "../../context.ts";
import type { AssistantsService } from "../../modules/assistants/assistants.service.ts";
import type { CallsService } from "../../modules/calls/calls.service.ts";
import type { CredentialsService } from "../../modules/credentials/credentials.service.ts";
import { TWILIO_AUDIO_FORMAT, TwilioTransport } from "../../voice/transports/twilio.ts";
import { STREAM_TOKEN_PARAMETER, type TwilioStart } from "../../voice/transports/twilio-codec.ts";
import { dialWasAnswered, goodbyeTwiml, noteTransferOutcome, phoneTransfer, returnTwiml, whisperTwiml, type HandoffTokens } from "./handoff.ts";
import { createTwilioRest, TwilioError } from "./twilio-client.ts";
import { HANDOFF_TEXTS } from "../../../shared/calls.ts";
import { findCallBySid, findNumberByE164, findNumberById, finishFromTwilio, type InboundNumber } from "./inbound.repo.ts";
import { singleFlight } from "../../db/single-flight.ts";
import * as outboundRepo from "../../modules/outbound/outbound.repo.ts";
import type { OutboundRecord } from "../../modules/outbound/outbound.repo.ts";
import { applyOutboundStatus, isMachine, outboundCallIdOf, voicemailTwiml } from "./outbound-calls.ts";
import type { BusyMessages } from "./busy-messages.ts";
import type { CallPricing } from "./call-price.ts";
import type { StreamClaims, StreamTokens } from "./stream-tokens.ts";
import { EarlyCalls } from "./early-calls.ts";
import { publicUrlOf, publicWsUrlOf, validTwilioSignature } from "./twilio-signature.ts";

export const MEDIA_PATH = "/telephony/twilio/media";
export const VOICE_PATH = "/telephony/twilio/voice";

/** Close codes of a refused stream (Twilio then hangs up). */
export const STREAM_REFUSALS = {
  noStart: { code: 1008, reason: "No start message" },
  badToken: { code: 1008, reason: "Invalid stream token" },
  badSignature: { code: 1008, reason: "Invalid signature" },
  unavailable: { code: 1011, reason: "Number not in service" },
  shuttingDown: { code: 1001, reason: LIVE_CALL_TEXTS.shuttingDown },
} as const;

export type WebhookAnswer = { status: 403 } | { status: 200; twiml: string } | { status: 204 };

type Ctx = Pick<ModuleContext, "db" | "bus" | "config" | "liveCalls" | "drain" | "instance">;

export interface TelephonyDeps {
  ctx: Ctx;
  calls: CallsService;
  /** The number owner's Twilio credentials (signatures, transfers) come from the credentials module. */
  credentials: CredentialsService;
  tokens: StreamTokens;
  handoffTokens: HandoffTokens;
  /** An outbound call's voicemail setting comes from the assistants module. */
  assistants: AssistantsService;
  /** Asks Twilio for a completed call's price, later (call-price.ts). */
  pricing: CallPricing;
  /** What the account's callers hear when every line is taken. */
  busyMessages: BusyMessages;
  /** For the provider sessions opened before their calls start. */
  logger: FastifyBaseLogger;
}

function sayAndHangUp(message: string): string {
  const response = new twilio.twiml.VoiceResponse();
  response.say(message);
  response.hangup();
  return response.toString();
}

const apology = () => sayAndHangUp(PHONE_UNAVAILABLE_MESSAGE);

/**
 * Marks a voice request a full instance sent elsewhere: the instance it reaches answers it
 * itself (streams it, or says the busy message), so a call is redirected once at most.
 */
export const BUSY_REDIRECT_PARAMETER = "busy_redirect";

function withBusyRedirectMark(pathAndQuery: string): string {
  const url = new URL(pathAndQuery, "http://x");
  url.searchParams.set(BUSY_REDIRECT_PARAMETER, "1");
  return `${url.pathname}${url.search}`;
}

/** Another instance has room: Twilio asks it the same question straight away (its own signature, its own URL). */
function redirectTo(url: string): string {
  const response = new twilio.twiml.VoiceResponse();
  response.redirect({ method: "POST" }, url);
  return response.toString();
}

/**
 * This instance is draining (SIGTERM): the caller waits a second while Twilio asks the public
 * address again, which the load balancer sends to an instance that takes calls.
 */
function retryElsewhere(voiceUrl: string): string {
  const response = new twilio.twiml.VoiceResponse();
  response.pause({ length: 1 });
  response.redirect({ method: "POST" }, voiceUrl);
  return response.toString();
}

/** Bus channel: the stream of this CallSid arrived at some instance (payload: the CallSid). */
const STREAM_ARRIVED_CHANNEL = "switchboard_stream_arrived";

export function createTelephonyService({ ctx, calls, credentials, tokens, handoffTokens, assistants, pricing, busyMessages, logger }: TelephonyDeps) {
  const { db, config } = ctx;
  // Twilio reaches this instance at PUBLIC_URL, or at INSTANCE_URL when another instance sent it here.
  const ownBases = [...new Set([config.publicUrl, config.instanceUrl ?? config.publicUrl])];
  /** Streams go straight to this instance when it has an address of its own: the place is held here. */
  const streamBase = config.instanceUrl ?? config.publicUrl;

  // A burst of calls to one number reads it, and its account's token, once (single-flight.ts).
  const numberByE164 = singleFlight((e164: string) => findNumberByE164(db, e164), (e164) => e164);
  const numberById = singleFlight((id: string) => findNumberById(db, id), (id) => id);
  const authTokenOf = singleFlight((organizationId: string) => credentials.readUsable(organizationId, "twilio_auth_token"), (organizationId) => organizationId);

  /** `pathAndQuery` as requested: Twilio signed it under one of this instance's addresses. */
  async function signedBy(organizationId: string, signature: unknown, pathAndQuery: string, params: Record<string, string>, ws = false): Promise<boolean> {
    // Unreadable (sealed under another APP_SECRET) is as good as missing: nothing can be verified with it.
    const authToken = await authTokenOf(organizationId);
    if (authToken === null) return false;
    return ownBases.some((base) => validTwilioSignature(authToken, signature, ws ? publicWsUrlOf(base, pathAndQuery) : publicUrlOf(base, pathAndQuery), params));
  }

  /**
   * Every line of this instance is taken (MAX_CALLS). Another instance with room, as of the last
   * heartbeats, gets the call (once); otherwise the caller hears the account's busy message and
   * a hang-up. Nothing here waits on the database longer than the busy message's budget.
   */
  async function full(params: Record<string, string>, pathAndQuery: string, outbound: boolean): Promise<WebhookAnswer> {
    void ctx.instance.refreshOthers();
    const redirected = new URL(pathAndQuery, "http://x").searchParams.has(BUSY_REDIRECT_PARAMETER);
    const elsewhere = redirected ? null : ctx.instance.placeElsewhere();
    if (elsewhere) return { status: 200, twiml: redirectTo(`${elsewhere}${withBusyRedirectMark(pathAndQuery)}`) };
    // Our number is `To` on an inbound call and `From` on one we dialled.
    return { status: 200, twiml: sayAndHangUp(await busyMessages.forNumber(outbound ? params["From"] : params["To"])) };
  }

  /**
   * What a stream runs: an outbound call the assistant it was dialled with (the number's pinned
   * version when it is the number's assistant, else its latest); an inbound call the number's
   * live version (pinned, else the latest), never the draft.
   */
  function loadPhoneCall(number: InboundNumber, claims: StreamClaims, outbound: OutboundRecord | null) {
    const pinned = { pinned: number.assistantVersion };
    if (!outbound) return calls.loadCall(number.organizationId, number.assistantId!, pinned, { callerNumber: claims.from, calledNumber: claims.to, direction: "inbound" });
    const choice = outbound.assistantId === number.assistantId ? pinned : "live";
    return calls.loadCall(outbound.organizationId, outbound.assistantId!, choice, { callerNumber: claims.from, calledNumber: claims.to, direction: "outbound", given: outbound.variables ?? {} });
  }

  // Calls loaded, and their provider sessions opened, while Twilio connects their streams.
  const early = new EarlyCalls((prepared, callSid) => calls.primeProvider(prepared.call, TWILIO_AUDIO_FORMAT, logger.child({ callSid })));

  /** The stream token for a call told to stream; its set-up begins now (early-calls.ts). */
  function streamToken(claims: StreamClaims, number: InboundNumber, outbound: OutboundRecord | null): string {
    const token = tokens.issue(claims);
    early.begin(token, claims.callSid, () => loadPhoneCall(number, claims, outbound));
    return token;
  }

  async function restFor(organizationId: string) {
    const pair = await credentials.readTwilio(organizationId);
    if (!pair) throw new TwilioError(0, null, "Twilio credentials are missing");
    return createTwilioRest(pair, config.twilioApiBase);
  }

  return {
    /** What the person who answers a transfer hears first: the summary (signed token, signed request). */
    async whisper(params: Record<string, string>, signature: unknown, pathAndQuery: string, token: unknown): Promise<WebhookAnswer> {
      const check = await handoffTokens.whisper.redeem(token);
      if (!check.ok) return { status: 403 };
      const number = await numberById(check.claims.numberId);
      if (!number || !(await signedBy(number.organizationId, signature, pathAndQuery, params))) return { status: 403 };
      return { status: 200, twiml: whisperTwiml(check.claims.summary) };
    },

    /** The end of a transfer's <Dial>: answered, the call ends; otherwise back to the assistant when it can. */
    async dialResult(params: Record<string, string>, signature: unknown, pathAndQuery: string, token: unknown): Promise<WebhookAnswer> {
      const check = await handoffTokens.dial.redeem(token);
      if (!check.ok) return { status: 403 };
      const { label, ...call } = check.claims;
      const number = await numberById(call.numberId);
      if (!number || !(await signedBy(number.organizationId, signature, pathAndQuery, params))) return { status: 403 };
      const status = params["DialCallStatus"];
      if (dialWasAnswered(status)) return { status: 200, twiml: goodbyeTwiml(true) };
      const canReturn = Boolean(number.assistantId) && number.status === "active" && !ctx.liveCalls.isClosing;
      await noteTransferOutcome(db, call.callSid, label, HANDOFF_TEXTS.transferNotAnswered(label, status ?? "failed", canReturn));
      if (!canReturn) return { status: 200, twiml: goodbyeTwiml(false) };
      return { status: 200, twiml: returnTwiml(config.publicUrl, MEDIA_PATH, streamToken(call, number, null)) };
    },

    /**
     * Gives back the place held here for a call whose stream reached another instance (workers
     * behind one port: the balancer picks each connection's worker), instead of keeping it
     * PLACE_HOLD_MS and refusing callers meanwhile. Resolves once listening; returns the stop.
     */
    releaseStreamsArrivedElsewhere(): Promise<() => void> {
      return ctx.bus.subscribe(STREAM_ARRIVED_CHANNEL, (callSid: string) => {
        ctx.liveCalls.unhold(callSid);
        early.dropCall(callSid);
      });
    },

    /** Closes the provider sessions opened for streams that never came (the app is closing). */
    closeEarlyCalls(): void {
      early.closeAll();
    },

    /** The voice webhook. `pathAndQuery` is the request's, so the signed URL is exactly the one called. */
    async voice(params: Record<string, string>, signature: unknown, pathAndQuery: string): Promise<WebhookAnswer> {
      const outboundId = outboundCallIdOf(pathAndQuery);
      // Full: answered before any other work, so the refusal is immediate however loaded the
      // instance is (the busy message is what anyone calling the number hears; no signature needed).
      if (!ctx.liveCalls.hasRoom) return full(params, pathAndQuery, outboundId !== null);
      if (outboundId) return this.outboundVoice(outboundId, params, signature, pathAndQuery);
      const number = params["To"] ? await numberByE164(params["To"]) : null;
      // No number, no owner, no token to check a signature with: there is nothing to protect,
      // and the caller deserves to hear why nobody answers.
      if (!number) return { status: 200, twiml: apology() };
      if (!(await signedBy(number.organizationId, signature, pathAndQuery, params))) return { status: 403 };
      if (!number.assistantId || number.status !== "active" || !params["CallSid"]) return { status: 200, twiml: apology() };
      if (ctx.drain.isDraining) return { status: 200, twiml: retryElsewhere(publicUrlOf(config.publicUrl, VOICE_PATH)) };
      // The place is held from here until the stream arrives: a call told to stream always has room.
      if (!ctx.liveCalls.hold(params["CallSid"])) return full(params, pathAndQuery, false);
      const token = streamToken({ numberId: number.id, callSid: params["CallSid"], from: params["From"] ?? "", to: number.phoneNumber, callId: "" }, number, null);
      const response = new twilio.twiml.VoiceResponse();
      response.connect().stream({ url: publicWsUrlOf(streamBase, MEDIA_PATH) }).parameter({ name: STREAM_TOKEN_PARAMETER, value: token });
      return { status: 200, twiml: response.toString() };
    },

    /** An outbound call was answered: the same stream as an inbound call, its token naming the dialled record. */
    async outboundVoice(callId: string, params: Record<string, string>, signature: unknown, pathAndQuery: string): Promise<WebhookAnswer> {
      const record = await outboundRepo.findOutbound(db, callId);
      if (!record || !(await signedBy(record.organizationId, signature, pathAndQuery, params))) return { status: 403 };
      const callSid = params["CallSid"];
      if (!callSid || (record.providerCallSid && record.providerCallSid !== callSid) || record.ended || !record.phoneNumberId) return { status: 200, twiml: goodbyeTwiml(false) };
      if (!ctx.liveCalls.hold(callSid)) return full(params, pathAndQuery, true);
      const claims = { numberId: record.phoneNumberId, callSid, from: record.callerNumber ?? "", to: record.calledNumber ?? "", callId: record.id };
      const number = await numberById(record.phoneNumberId);
      const token = number && record.assistantId ? streamToken(claims, number, record) : tokens.issue(claims);
      const response = new twilio.twiml.VoiceResponse();
      response.connect().stream({ url: publicWsUrlOf(streamBase, MEDIA_PATH) }).parameter({ name: STREAM_TOKEN_PARAMETER, value: token });
      return { status: 200, twiml: response.toString() };
    },

    /** Twilio's answering-machine verdict on an outbound call (AsyncAmd, after the beep). */
    async amd(params: Record<string, string>, signature: unknown, pathAndQuery: string): Promise<WebhookAnswer> {
      const callId = outboundCallIdOf(pathAndQuery);
      const record = callId ? await outboundRepo.findOutbound(db, callId) : null;
      if (!record || !(await signedBy(record.organizationId, signature, pathAndQuery, params))) return { status: 403 };
      const answeredBy = params["AnsweredBy"] ?? "unknown";
      await outboundRepo.setAnsweredBy(db, record.id, answeredBy);
      const callSid = params["CallSid"] ?? record.providerCallSid;
      if (!isMachine(answeredBy) || !callSid || record.ended) return { status: 204 };
      const assistant = record.assistantId ? await assistants.forCall(record.organizationId, record.assistantId) : null;
      const twiml = assistant ? voicemailTwiml(assistant.voicemail, record.variables ?? {}) : null;
      const rest = await restFor(record.organizationId);
      await (twiml ? rest.updateCallTwiml(callSid, twiml) : rest.endCall(callSid)).catch((err: unknown) => {
        // The callee's machine may already have hung up: the status callback closes the record then.
        if (!(err instanceof TwilioError)) throw err;
      });
      return { status: 204 };
    },

    /** The status callback: finalises a record still without figures; duplicates change nothing. */
    async status(params: Record<string, string>, signature: unknown, pathAndQuery: string): Promise<WebhookAnswer> {
      const outboundId = outboundCallIdOf(pathAndQuery);
      if (outboundId) {
        const record = await outboundRepo.findOutbound(db, outboundId);
        if (!record || !(await signedBy(record.organizationId, signature, pathAndQuery, params))) return { status: 403 };
        const { final, unanswered } = await applyOutboundStatus(db, record, params);
        if (unanswered) calls.outboundEndedUnanswered(record);
        if (final === "completed") await pricing.request(record.id);
        // Answered: the stream's session closes the record; if it never did, Twilio's figures do.
        if (final !== "completed" || record.providerStatus !== "in-progress") return { status: 204 };
      }
      const callSid = params["CallSid"];
      const record = callSid ? await findCallBySid(db, callSid) : null;
      const number = record?.phoneNumberId ? await numberById(record.phoneNumberId) : params["To"] ? await numberByE164(params["To"]) : null;
      const owner = record?.organizationId ?? number?.organizationId;
      if (!owner || !(await signedBy(owner, signature, pathAndQuery, params))) return { status: 403 };
      if (!record || record.organizationId !== owner) return { status: 204 };
      // Twilio rates a completed call a while later: its price is fetched then (call-price.ts).
      if ((params["CallStatus"] ?? "completed") === "completed") await pricing.request(record.id);
      const seconds = Number(params["CallDuration"] ?? "0");
      const durationMs = Number.isFinite(seconds) && seconds > 0 ? seconds * 1000 : 0;
      await finishFromTwilio(db, record.id, {
        durationMs,
        cost: callTariffs.phone(durationMs),
        endedReason: `Call ${params["CallStatus"] ?? "completed"} (reported by Twilio)`,
      });
      return { status: 204 };
    },

    /**
     * The media stream socket, attached synchronously on upgrade (the transport listens at
     * once and keeps early audio); the call starts once `start` proves the token.
     */
    acceptStream(socket: WebSocket, upgradeSignature: unknown, log: FastifyBaseLogger): void {
      const transport = new TwilioTransport(socket, { metrics: ctx.liveCalls.metrics });
      const refuse = (refusal: { code: number; reason: string }, detail?: object) => {
        log.warn({ ...detail, reason: refusal.reason }, "media stream refused");
        transport.close(refusal.code, refusal.reason);
      };
      /** What the stream's checks need to know of the call `claims` name. */
      const lookUp = async (claims: StreamClaims) => {
        const [number, outbound] = await Promise.all([numberById(claims.numberId), claims.callId ? outboundRepo.findOutbound(db, claims.callId) : null]);
        // Twilio signs the upgrade too; checked when present (a proxy may strip it).
        const signed = !number || upgradeSignature === undefined || (await signedBy(number.organizationId, upgradeSignature, MEDIA_PATH, {}, true));
        return { number, outbound, signed };
      };
      const begin = async (start: TwilioStart, token: string) => {
        if (ctx.liveCalls.isClosing) return refuse(STREAM_REFUSALS.shuttingDown);
        // Looked up while the token's single use is recorded, not after (only a redeemed token counts).
        const verified = tokens.verify(token);
        const lookingUp = verified ? lookUp(verified) : null;
        lookingUp?.catch(() => undefined);
        const check = await tokens.redeem(token);
        if (!check.ok || check.claims.callSid !== start.callSid) return refuse(STREAM_REFUSALS.badToken, { check: check.ok ? "call_sid" : check.reason });
        const claims = check.claims;
        const { number, outbound, signed } = await (lookingUp ?? lookUp(claims));
        // An outbound call runs the assistant it was dialled with, whatever the number answers with.
        if (!number || (!number.assistantId && !claims.callId)) return refuse(STREAM_REFUSALS.unavailable);
        if (!signed) return refuse(STREAM_REFUSALS.badSignature);
        if (claims.callId && (!outbound?.assistantId || outbound.ended)) return refuse(STREAM_REFUSALS.unavailable);
        // Set up at the webhook when it could be, else now.
        const set = await early.take(token);
        const prepared = set?.prepared ?? (await loadPhoneCall(number, claims, outbound));
        if (!prepared.ok) return refuse(STREAM_REFUSALS.unavailable, { detail: prepared.reason });
        calls.startCall(transport, prepared.call, log.child({ callSid: start.callSid }), {
          isTest: false,
          ...(set?.provider ? { provider: set.provider } : {}),
          // A caller returned from an unanswered transfer comes back on a new record, as an inbound one does.
          transfer: phoneTransfer(() => restFor(number.organizationId), config.publicUrl, handoffTokens, { ...claims, callId: "" }),
          phone: {
            callerNumber: claims.from,
            calledNumber: claims.to,
            phoneNumberId: number.id,
            providerCallSid: claims.callSid,
            variables: prepared.call.variables,
            ...(outbound ? { recordId: outbound.id, ...(outbound.campaignId ? { campaignId: outbound.campaignId } : {}) } : {}),
          },
        });
      };
      void transport.started.then(async (start: TwilioStart | null) => {
        if (!start) return refuse(STREAM_REFUSALS.noStart);
        const token = start.customParameters[STREAM_TOKEN_PARAMETER] ?? "";
        try {
          await begin(start, token);
        } finally {
          // Taken by the call, or of no use to a refused stream.
          early.discard(token);
          // Started (the call now counts itself) or refused: the place held at the webhook goes.
          // Workers sharing a port: the webhook may have reached another one, which holds it.
          if (!ctx.liveCalls.unhold(start.callSid)) {
            ctx.bus.publish(STREAM_ARRIVED_CHANNEL, start.callSid).catch((err: unknown) => log.warn({ err }, "telling the other instances of a stream failed"));
          }
        }
      }).catch((err: unknown) => {
        log.error({ err }, "starting a phone call failed");
        transport.close(1011, LIVE_CALL_TEXTS.startFailed);
      });
    },
  };
}

export type TelephonyService = ReturnType<typeof createTelephonyService>;
