/**
 * Calls the assistant places over a SIP number's trunk (carriers/carrier.ts `place`). The outbound
 * module has already checked and recorded the call (do-not-call, dial safety, the account's limit);
 * here it takes a line of this instance (MAX_CALLS) and the INVITE goes to the trunk's outbound URI
 * with the dialled number as its user, the trunk's caller ID (or the number itself) in From, and
 * the trunk's credentials answering its 401/407. Once answered the call runs as a CallSession on
 * that record, as an inbound SIP call does; one never answered closes its record with the reason a
 * campaign reads (busy, no answer, failed) and no talk time.
 */
import type { FastifyBaseLogger } from "fastify";
import { OUTBOUND_ENDED, type TwilioCallStatus } from "../../../shared/outbound.ts";
import { SIP_CARRIER_MESSAGES, SIP_OUTBOUND_FAILURES } from "../../../shared/sip-trunks.ts";
import type { ModuleContext } from "../../context.ts";
import { AppError } from "../../errors.ts";
import type { CallsService } from "../../modules/calls/calls.service.ts";
import { UNTIL_RELEASED } from "../../modules/calls/live-calls.ts";
import type { CallSession } from "../../voice/call-session.ts";
import * as outboundRepo from "../../modules/outbound/outbound.repo.ts";
import type { OutboundRoute } from "../../modules/sip-trunks/sip-trunks.service.ts";
import type { PlaceCallRequest } from "../carrier.ts";
import type { SipCall } from "../sip/call.ts";
import { SipCallTransport } from "../sip/call-transport.ts";
import { needsTls } from "../sip/address.ts";
import type { SipEndReason } from "../sip/end-reasons.ts";
import type { SipEndpoint } from "../sip/endpoint.ts";
import type { SipTrunkDirectory } from "./directory.ts";
import { targetUri } from "./target-uri.ts";
import type { Bridges } from "./bridge.ts";
import { boardLine } from "./inbound.ts";
import { sipTransfer } from "./transfer.ts";
import { watchForMachine } from "./voicemail.ts";

/** How long a call rings before we give up (CANCEL) and call it unanswered, as Twilio's default does. */
export const RING_TIMEOUT_MS = 60_000;

export interface OutboundDeps {
  ctx: Pick<ModuleContext, "db" | "liveCalls" | "drain">;
  calls: CallsService;
  directory: SipTrunkDirectory;
  logger: FastifyBaseLogger;
  ringTimeoutMs?: number;
  /** Places a call through a trunk for a transfer that bridges (the runtime tracks it). */
  dial(route: OutboundRoute, uri: string): Promise<SipCall>;
  /** How long a transfer's destination may ring (tests shorten it). */
  transferRingMs?: number;
  /** The calls bridged by transfers, kept until they end. */
  bridges: Bridges;
}

const TRANSPORTS = { udp: "UDP", tcp: "TCP", tls: "TLS" } as const;

/** An INVITE to `uri` through `route`: From its caller ID (or number), its credentials for a challenge. */
export function dialRoute(endpoint: SipEndpoint, route: OutboundRoute, uri: string): Promise<SipCall> {
  return endpoint.call({ uri, fromUser: route.callerId ?? route.phoneNumber, credentials: route.credentials ?? undefined, transport: TRANSPORTS[route.transport] });
}

/** What a call's record and its campaign contact say of a call that never reached the assistant. */
export function unansweredOutcome(reason: SipEndReason, status: number | undefined): { status: TwilioCallStatus; endedReason: string } {
  switch (reason) {
    case "busy":
      return { status: "busy", endedReason: OUTBOUND_ENDED.busy };
    case "no-answer":
      return { status: "no-answer", endedReason: OUTBOUND_ENDED.noAnswer };
    case "rejected":
      return { status: "failed", endedReason: OUTBOUND_ENDED.failed(SIP_OUTBOUND_FAILURES.rejected(status)) };
    case "unreachable":
    case "timeout":
      return { status: "failed", endedReason: OUTBOUND_ENDED.failed(SIP_OUTBOUND_FAILURES.unreachable(status)) };
    default:
      return { status: "canceled", endedReason: OUTBOUND_ENDED.cancelled };
  }
}

/** Place-holding key of a call being dialled in LiveCalls (Twilio's are CallSids, inbound SIP's `sip:`). */
const placeOf = (recordId: string) => `sip-out:${recordId}`;

/** Dials; resolves once the INVITE is out, with its Call-ID. `track` is told of the call (shutdown, `end`). */
export async function placeSipCall(endpoint: SipEndpoint, request: PlaceCallRequest, deps: OutboundDeps, track: (call: SipCall) => void): Promise<{ providerCallId: string }> {
  const { ctx } = deps;
  if (ctx.drain.isDraining || ctx.liveCalls.isClosing) throw new AppError(503, "sip_unavailable", SIP_CARRIER_MESSAGES.unavailable);
  // Only the number's own trunk, in the caller's organisation: no call is relayed elsewhere.
  const route = await deps.directory.outboundRoute(request.organizationId, request.from.id);
  const uri = route ? targetUri(route, request.to) : null;
  if (!route || !uri) throw new AppError(409, "sip_no_outbound_route", SIP_CARRIER_MESSAGES.noOutboundRoute);
  // TLS (the trunk's transport, or a sips: / transport=tls URI) needs our own TLS listener.
  if (endpoint.tlsPort === null && needsTls(route.transport, uri)) throw new AppError(409, "sip_tls_unsupported", SIP_CARRIER_MESSAGES.tlsOutbound);
  const record = await outboundRepo.findOutbound(ctx.db, request.callId);
  if (!record?.assistantId) throw new Error(`the record of outbound call ${request.callId} is gone`);
  const place = placeOf(record.id);
  // Held while it rings, however long: released once the call runs or fails (below).
  if (!ctx.liveCalls.hold(place, UNTIL_RELEASED)) throw new AppError(503, "sip_full", SIP_CARRIER_MESSAGES.full);
  let call: SipCall;
  try {
    call = await dialRoute(endpoint, route, uri);
  } catch {
    ctx.liveCalls.unhold(place);
    throw new AppError(502, "sip_unreachable", SIP_CARRIER_MESSAGES.unreachable(route.uri));
  }
  track(call);
  const log = deps.logger.child({ sipCallId: call.callId, callId: record.id });
  follow(call, { ...record, assistantId: record.assistantId }, route, request, deps, log)
    .catch((err: unknown) => {
      log.error({ err }, "an outbound SIP call failed");
      call.hangup();
    })
    .finally(() => ctx.liveCalls.unhold(place));
  return { providerCallId: call.callId };
}

type Ringing = { kind: "answered" } | { kind: "ended"; reason: SipEndReason; status: number | undefined };

/** Waits for the far end's answer, then runs the assistant on the call; closes the record of a call never answered. */
async function follow(call: SipCall, record: outboundRepo.OutboundRecord & { assistantId: string }, route: OutboundRoute, request: PlaceCallRequest, deps: OutboundDeps, log: FastifyBaseLogger) {
  const { ctx, calls } = deps;
  // Read while it rings: the greeting's provider session is opened the moment the callee answers.
  const choice = record.assistantId === route.assistantId ? { pinned: route.assistantVersion } : "live";
  const preparing = calls.loadCall(record.organizationId, record.assistantId, choice, { callerNumber: route.phoneNumber, calledNumber: request.to, direction: "outbound", given: record.variables ?? {} });
  let rangOut = false;
  const timer = setTimeout(() => {
    rangOut = true;
    call.hangup();
  }, deps.ringTimeoutMs ?? RING_TIMEOUT_MS);
  call.once("ringing", () => void outboundRepo.setProviderStatus(ctx.db, record.id, "ringing").catch((err: unknown) => log.warn({ err }, "noting the ringing failed")));
  const outcome = await new Promise<Ringing>((resolve) => {
    if (call.state === "ended") return resolve({ kind: "ended", reason: call.endReason ?? "unreachable", status: undefined });
    call.once("answered", () => resolve({ kind: "answered" }));
    call.once("ended", (reason, status) => resolve({ kind: "ended", reason, status }));
  });
  clearTimeout(timer);
  const endUnanswered = async (status: TwilioCallStatus, endedReason: string) => {
    if (await outboundRepo.endUnanswered(ctx.db, record.id, status, endedReason)) calls.outboundEndedUnanswered(record);
  };
  if (outcome.kind === "ended") {
    const { status, endedReason } = unansweredOutcome(rangOut ? "no-answer" : outcome.reason, outcome.status);
    return endUnanswered(status, endedReason);
  }
  // Made at once: what the callee says before the session starts is kept for it.
  const transport = new SipCallTransport(call);
  await outboundRepo.setProviderStatus(ctx.db, record.id, "in-progress");
  const prepared = await preparing;
  if (!prepared.ok || (call.state as SipCall["state"]) !== "confirmed" || ctx.liveCalls.isClosing) {
    if (!prepared.ok) log.warn({ reason: prepared.reason }, "outbound SIP call hung up: its assistant cannot run");
    call.hangup();
    return endUnanswered("failed", OUTBOUND_ENDED.failed(SIP_OUTBOUND_FAILURES.assistantUnavailable));
  }
  const board = () => boardLine(session);
  const session: CallSession = calls.startCall(transport, prepared.call, log, {
    isTest: false,
    provider: calls.primeProvider(prepared.call, "audio/pcmu", log),
    transfer: sipTransfer(call, transport, { route: async () => route, dial: deps.dial, bridges: deps.bridges, speak: (text, signal) => calls.speak(prepared.call, text, signal), logger: log, ringMs: deps.transferRingMs, board }),
    phone: {
      callerNumber: route.phoneNumber,
      calledNumber: request.to,
      phoneNumberId: request.from.id,
      carrier: "sip",
      providerCallSid: call.callId,
      sipDialog: call.dialog?.state(),
      recordId: record.id,
      variables: prepared.call.variables,
      ...(record.campaignId ? { campaignId: record.campaignId } : {}),
    },
  });
  // The version the call runs says what to do with a machine (Twilio's path asks the same of its assistant).
  const voicemail = prepared.call.voicemail;
  if (voicemail) {
    watchForMachine({ call, transport, session, recordId: record.id, voicemail, variables: prepared.call.variables, db: ctx.db, logger: log, speak: (text, signal) => calls.speak(prepared.call, text, signal) });
  }
  // The carrier's last word on the call, as Twilio's status callback gives it.
  void session.closed
    .then(() => outboundRepo.setFinalStatus(ctx.db, record.id, "completed"))
    .catch((err: unknown) => log.warn({ err }, "noting the call's end failed"));
}
