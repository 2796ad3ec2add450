/**
 * The assistant's hand-off to a person on a SIP call (voice/builtins.ts `CallTransfer`).
 *
 * First a blind transfer by REFER (RFC 3515): the trunk or PBX is asked to call the destination
 * in our place — Refer-To the destination's number at the trunk's outbound address (or at the far
 * end that sent us the call) — and reports how it went in NOTIFYs. Accepted and connected: the
 * session ends "Transferred to <label>" and we hang up our leg.
 *
 * A destination that is a SIP address (a PBX's queue or extension) is handed on as written.
 *
 * A trunk that takes no REFER (it answers 405, 501, 403... or nothing), or one set to bridge
 * (`transfer_method`), gets the Twilio path's transfer instead: this server calls the
 * destination through the trunk, briefs whoever answers and bridges the two calls
 * (bridged-transfer.ts) — a SIP address only when it is on the trunk's host (target-uri.ts:
 * never an open relay). Failed either way (busy, no answer, refused):
 * the transfer rejects with what happened, the record's transcript says so, and the assistant
 * goes on with the caller, as after a failed Twilio transfer.
 */
import { isSipDestination } from "../../../shared/assistants.ts";
import { HANDOFF_TEXTS } from "../../../shared/calls.ts";
import type { CarriedCall } from "../../modules/calls/live-calls.ts";
import type { OutboundRoute } from "../../modules/sip-trunks/sip-trunks.service.ts";
import type { CallTransfer } from "../carrier.ts";
import { formatUri, parseUri } from "../sip/address.ts";
import { TransferRefused, type SipCall } from "../sip/call.ts";
import type { SipCallTransport } from "../sip/call-transport.ts";
import type { Bridges } from "./bridge.ts";
import { bridgeTransfer, type BridgeDialer } from "./bridged-transfer.ts";
import { sipAddressThroughTrunk, targetUri } from "./target-uri.ts";

/** What the caller's side says of a refused or failed transfer, in the transcript's words. */
export function transferFailure(err: TransferRefused): string {
  return err.stage === "refer" ? `the phone system refused the transfer (${err.message})` : `the destination did not take the call (${err.message})`;
}

/** Where the far end is asked to send the caller: the trunk's outbound address when it has one, else the far end itself. */
export function referTarget(call: SipCall, route: Pick<OutboundRoute, "uri" | "prefix"> | null, phoneNumber: string): string | null {
  // A SIP address (a PBX's queue) is handed on as written: the far end places that call, under its own rules.
  if (isSipDestination(phoneNumber)) return phoneNumber;
  if (route) return targetUri(route, phoneNumber);
  const remote = call.dialog ? parseUri(call.dialog.remoteTarget) : null;
  return remote ? formatUri({ scheme: remote.scheme, user: phoneNumber, host: remote.host, ...(remote.port ? { port: remote.port } : {}), params: remote.params.transport ? { transport: remote.params.transport } : {} }) : null;
}

/** Why a SIP address cannot be called by bridging, in the transcript's words. */
export function notOnTrunk(address: string): string {
  return `${address} is not on this call's trunk, and this server calls SIP addresses only through the trunk`;
}

/** The Request-URI a bridged transfer calls through `route`: the number at the trunk, or a SIP address on the trunk's host. */
function bridgeTarget(route: OutboundRoute, destination: string): string | null {
  return isSipDestination(destination) ? sipAddressThroughTrunk(route, destination) : targetUri(route, destination);
}

export interface SipTransferDeps extends Omit<BridgeDialer, "dial"> {
  /** The call's trunk's way out, read when the transfer happens (most calls never transfer). */
  route(): Promise<OutboundRoute | null>;
  /** Places a call through `route` (the runtime's endpoint, which tracks it). */
  dial(route: OutboundRoute, uri: string): Promise<SipCall>;
  /** Where a bridge made here is kept until it ends (drain waits for it). */
  bridges: Bridges;
  /** The call's line on the live board now (its session's), for the bridged call to stay there; null when not on it. */
  board?(): CarriedCall | null;
}

/** The board line of a call bridged to `who`: the session's last line, with nobody watching or in control any more. */
function bridgedLine(line: CarriedCall, who: string): CarriedCall {
  return { organizationId: line.organizationId, summary: { ...line.summary, bridgedTo: who, takenOverBy: null, watchers: 0, stuck: [] } };
}

export function sipTransfer(call: SipCall, transport: SipCallTransport, deps: SipTransferDeps): CallTransfer {
  let bridging = false;
  return {
    get holdsCaller() {
      return bridging;
    },
    async transfer(destination, summary) {
      const route = await deps.route();
      const to = destination.phone_number;
      let refused: TransferRefused | null = null;
      // A trunk set to bridge is never asked to REFER: the person gets the briefing.
      if (route?.transferMethod !== "bridge") {
        const target = referTarget(call, route, to);
        if (!target) throw new Error("this call has no address to transfer to");
        try {
          await call.refer(target);
          return { how: HANDOFF_TEXTS.referredTo(destination.label, to) };
        } catch (err) {
          if (!(err instanceof TransferRefused)) throw err;
          // Refused after the trunk took it (busy, no answer): a second try by bridging would ring the same person.
          if (err.stage !== "refer" || !route) throw new Error(transferFailure(err));
          refused = err;
        }
      }
      const uri = bridgeTarget(route!, to);
      if (!uri) throw new Error(refused ? `${transferFailure(refused)}; ${notOnTrunk(to)}` : notOnTrunk(to));
      bridging = true;
      try {
        const bridge = await bridgeTransfer(call, transport, uri, summary, { ...deps, dial: (u) => deps.dial(route!, u) });
        const line = deps.board?.() ?? null;
        deps.bridges.add(bridge, line ? bridgedLine(line, `${destination.label} (${to})`) : undefined);
      } finally {
        bridging = false;
      }
      return { how: HANDOFF_TEXTS.bridgedTo(destination.label, to, refused?.message ?? null) };
    },
  };
}
