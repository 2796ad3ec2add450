/**
 * A call a trunk or PBX sends us, from INVITE to a running CallSession: the refusals that cost
 * nothing come first (a source refused too often, a draining or full instance), then the number
 * and its trunk (admission.ts), then the call runs as a Twilio call does — the number's assistant
 * (or pinned version), its provider session opened while the phone rings, the record, the board.
 */
import type { FastifyBaseLogger } from "fastify";
import type { ModuleContext } from "../../context.ts";
import { UNTIL_RELEASED, type CarriedCall } from "../../modules/calls/live-calls.ts";
import type { OutboundRoute } from "../../modules/sip-trunks/sip-trunks.service.ts";
import type { CallsService } from "../../modules/calls/calls.service.ts";
import type { CallSession } from "../../voice/call-session.ts";
import { parseNameAddr, parseUri } from "../sip/address.ts";
import type { SipCall } from "../sip/call.ts";
import { SipCallTransport } from "../sip/call-transport.ts";
import type { DigestChallenger } from "../sip/digest.ts";
import { headerValue } from "../sip/message.ts";
import { admit, type RefusalLimiter } from "./admission.ts";
import type { Bridges } from "./bridge.ts";
import { sipTransfer } from "./transfer.ts";
import type { SipInboundCandidate, SipTrunkDirectory } from "./directory.ts";

/** Seconds a trunk is asked to wait before offering a refused call here again (RFC 3261 §20.33). */
export const RETRY_AFTER_S = "5";

export interface InboundDeps {
  ctx: Pick<ModuleContext, "liveCalls" | "drain">;
  calls: CallsService;
  directory: SipTrunkDirectory;
  challenger: DigestChallenger;
  limiter: RefusalLimiter;
  logger: FastifyBaseLogger;
  /** Places a call through a trunk for a transfer that bridges (the runtime tracks it). */
  dial(route: OutboundRoute, uri: string): Promise<SipCall>;
  /** How long a transfer's destination may ring (tests shorten it). */
  transferRingMs?: number;
  /** The calls bridged by transfers, kept until they end. */
  bridges: Bridges;
}

/** The user part of a SIP URI or name-addr (`sip:+1555@host` → `+1555`); "" when there is none. */
export function userOf(text: string): string {
  const uri = parseUri(text) ?? parseUri(parseNameAddr(text)?.uri ?? "");
  return uri?.user ?? "";
}

/**
 * The numbers an INVITE may be for: its Request-URI's user, or, when that names none, its To's. A
 * carrier we register with sends calls to the Contact we registered (the trunk's username), with
 * the number called in To.
 */
async function numbersCalled(call: SipCall, directory: SipTrunkDirectory): Promise<SipInboundCandidate[]> {
  const dialled = userOf(call.invite.uri);
  const found = await directory.inboundCandidates(dialled);
  const to = userOf(call.to);
  return found.length > 0 || !to || to === dialled ? found : directory.inboundCandidates(to);
}

/** A session's line on the live board (null before its record or after its end): what a bridged call keeps showing. */
export function boardLine(session: Pick<CallSession, "supervision"> | null): CarriedCall | null {
  if (!session?.supervision.isLive) return null;
  return { organizationId: session.supervision.organizationId, summary: session.supervision.summary() };
}

/** Place-holding key of a SIP call in LiveCalls (Twilio's are CallSids: no clash). */
const placeOf = (call: SipCall) => `sip:${call.callId}`;

export async function takeInboundCall(call: SipCall, deps: InboundDeps): Promise<void> {
  const { ctx, limiter } = deps;
  const source = call.peer.address;
  if (limiter.blocked(source)) return call.reject(403);
  // Full or draining: refused at once, before any lookup, so the trunk tries its next gateway now.
  // The place is taken here, not after the lookup, so a burst beyond MAX_CALLS is refused at once
  // too; it is held until released below (setting a call up may outlast a Twilio stream's hold).
  if (ctx.drain.isDraining || ctx.liveCalls.isClosing || !ctx.liveCalls.hold(placeOf(call), UNTIL_RELEASED)) {
    return call.reject(503, [["retry-after", RETRY_AFTER_S]]);
  }
  try {
    const candidates = await numbersCalled(call, deps.directory);
    if (call.state === "ended") return;
    const verdict = admit(candidates, source, headerValue(call.invite.headers, "authorization"), deps.challenger);
    if (verdict.kind !== "admitted") {
      limiter.strike(source);
      return verdict.kind === "challenge" ? call.reject(401, verdict.headers) : call.reject(403);
    }
    limiter.clear(source);
    const number = verdict.candidate;
    // A number without an assistant answers nobody: the trunk may route the call elsewhere.
    if (!number.assistantId) return call.reject(480);
    await runCall(call, number as SipInboundCandidate & { assistantId: string }, deps);
  } finally {
    // Running (the call now counts itself) or not: the place held for it goes.
    ctx.liveCalls.unhold(placeOf(call));
  }
}

async function runCall(call: SipCall, number: SipInboundCandidate & { assistantId: string }, deps: InboundDeps) {
  const log = deps.logger.child({ sipCallId: call.callId });
  call.ring();
  const callerNumber = userOf(call.from);
  const prepared = await deps.calls.loadCall(number.organizationId, number.assistantId, { pinned: number.assistantVersion }, { callerNumber, calledNumber: number.phoneNumber, direction: "inbound" });
  if (call.state !== "ringing") return; // the caller gave up meanwhile (CANCEL: 487 sent)
  if (!prepared.ok) {
    log.warn({ reason: prepared.reason }, "SIP call refused: its assistant cannot run");
    return call.reject(480);
  }
  // Opened while our 200 OK and the caller's ACK cross: the greeting is ready as the call is up.
  const provider = deps.calls.primeProvider(prepared.call, "audio/pcmu", log);
  await call.answer();
  // Read afresh: the caller may have hung up, or our 200 gone unacknowledged, while we waited.
  const answered = (call.state as SipCall["state"]) === "confirmed";
  if (!answered || deps.ctx.liveCalls.isClosing) {
    provider.close(1000, "Call not taken");
    if (answered) call.hangup();
    return;
  }
  const transport = new SipCallTransport(call);
  let session: CallSession | null = null;
  session = deps.calls.startCall(transport, prepared.call, log, {
    isTest: false,
    provider,
    transfer: sipTransfer(call, transport, {
      route: () => deps.directory.outboundRoute(number.organizationId, number.phoneNumberId),
      dial: deps.dial,
      bridges: deps.bridges,
      speak: (text, signal) => deps.calls.speak(prepared.call, text, signal),
      logger: log,
      ringMs: deps.transferRingMs,
      board: () => boardLine(session),
    }),
    phone: { callerNumber, calledNumber: number.phoneNumber, phoneNumberId: number.phoneNumberId, carrier: "sip", providerCallSid: call.callId, sipDialog: call.dialog?.state(), variables: prepared.call.variables },
  });
}
