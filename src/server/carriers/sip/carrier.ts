/**
 * SIP trunks behind the carrier seam (carriers/carrier.ts). A trunk's numbers are the customer's
 * own: nothing is bought, re-pointed or released at a carrier. Calls go out through the number's
 * trunk only (`SipTrunksService.outboundRoute`, scoped by organisation: no call is relayed from
 * one organisation's trunk to another's). Placing and ending calls belong to the SIP runtime
 * (sip-runtime/outbound.ts); while it is not listening this carrier refuses them in words the user
 * can act on.
 */
import { SIP_CARRIER_MESSAGES } from "../../../shared/sip-trunks.ts";
import { AppError, badRequest } from "../../errors.ts";
import type { SipTrunksService } from "../../modules/sip-trunks/sip-trunks.service.ts";
import type { CarrierCalls, CarrierImpl } from "../carrier.ts";

export interface SipCarrierDeps {
  sipTrunks: Pick<SipTrunksService, "outboundRoute">;
  /** The SIP runtime's calls; `listening` is false while SIP is off on this instance. */
  calls?: Pick<CarrierCalls, "place" | "end"> & { readonly listening: boolean };
}

const unavailable = () => new AppError(503, "sip_unavailable", SIP_CARRIER_MESSAGES.unavailable);

export function createSipCarrier({ sipTrunks, calls }: SipCarrierDeps): CarrierImpl {
  return {
    name: "sip",
    numbers: {
      async provision() {
        throw badRequest(SIP_CARRIER_MESSAGES.nothingToBuy, "sip_nothing_to_buy");
      },
      async relink() {},
      async release() {},
    },
    calls: {
      async assertCanPlace(organizationId, from) {
        if (!(await sipTrunks.outboundRoute(organizationId, from.id))) throw new AppError(409, "sip_no_outbound_route", SIP_CARRIER_MESSAGES.noOutboundRoute);
        if (!calls?.listening) throw unavailable();
      },
      async place(request) {
        if (!calls) throw unavailable();
        return calls.place(request);
      },
      async end(organizationId, providerCallId) {
        if (!calls) throw unavailable();
        return calls.end(organizationId, providerCallId);
      },
    },
  };
}
