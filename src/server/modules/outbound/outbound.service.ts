/**
 * One outbound call: checks everything that can be refused before anything is dialled (the
 * assistant, the number, the credentials, the do-not-call list, the dial-safety rules of
 * shared/dial-safety.ts, the account's concurrent-call limit), records the call, then asks the
 * number's carrier (carriers/carrier.ts: Twilio on the owner's own account, or the number's SIP
 * trunk) to dial it. The carrier's callbacks and the answered call are the carrier's runtime's.
 */
import { DIAL_SAFETY_TEXTS, dialRefusal, type DialAllowList, type DialPolicy } from "../../../shared/dial-safety.ts";
import { reachabilityOf, TWILIO_UNREACHABLE } from "../../../shared/reachability.ts";
import { CALL_MESSAGES } from "../../../shared/call-records.ts";
import { isUuid } from "../../../shared/ids.ts";
import { isUnanswered, OUTBOUND_ENDED, OUTBOUND_TEXTS, type CallSettings, type CancelledCall, type OutboundCall, type OutboundCallInput } from "../../../shared/outbound.ts";
import type { ModuleContext } from "../../context.ts";
import { AppError, badRequest, notFound } from "../../errors.ts";
import type { Carriers } from "../../carriers/carrier.ts";
import type { AssistantsService } from "../assistants/assistants.service.ts";
import { MISSING_API_KEY_MESSAGE, type CallsService } from "../calls/calls.service.ts";
import type { CredentialsService } from "../credentials/credentials.service.ts";
import type { DoNotCallService } from "../do-not-call/do-not-call.service.ts";
import type { PhoneNumbersService } from "../phone-numbers/phone-numbers.service.ts";
import * as repo from "./outbound.repo.ts";

export interface OutboundDeps {
  ctx: Pick<ModuleContext, "db" | "config">;
  assistants: AssistantsService;
  phoneNumbers: PhoneNumbersService;
  credentials: CredentialsService;
  doNotCall: DoNotCallService;
  carriers: Carriers;
  /** A call that ended before it reached the assistant: its call.ended still goes out. */
  onEndedUnanswered: CallsService["outboundEndedUnanswered"];
}

export interface OutboundService {
  /** Throws 409 `twilio_unreachable` for a Twilio number while Twilio could not reach this server to take an answered call. */
  assertCanDial(provider: string): void;
  /** `campaignId`: the call is one of a campaign's (kept on the record). */
  place(organizationId: string, input: OutboundCallInput, options?: { campaignId?: string }): Promise<OutboundCall>;
  /**
   * Cancels an outbound call nobody has answered yet, through its carrier (a ringing phone stops
   * ringing); 404 for another organisation's, 409 for one answered or over.
   */
  cancel(organizationId: string, callId: string): Promise<CancelledCall>;
  settings(organizationId: string): Promise<CallSettings>;
  saveSettings(organizationId: string, settings: CallSettings): Promise<CallSettings>;
  /** What the dial-safety rules need: the organisation's own numbers and its allow-list. */
  dialPolicy(organizationId: string): Promise<DialPolicy>;
  allowList(organizationId: string): Promise<DialAllowList>;
  saveAllowList(organizationId: string, input: DialAllowList): Promise<DialAllowList>;
}

export function createOutboundService({ ctx, assistants, phoneNumbers, credentials, doNotCall, carriers, onEndedUnanswered }: OutboundDeps): OutboundService {
  const { db, config } = ctx;
  async function dialPolicy(organizationId: string): Promise<DialPolicy> {
    const [numbers, allowed] = await Promise.all([phoneNumbers.list(organizationId), repo.readDialAllowList(db, organizationId)]);
    return { ownNumbers: numbers.map((n) => n.phone_number), allowed };
  }
  function assertCanDial(provider: string) {
    if (provider !== "twilio") return;
    const reach = reachabilityOf(config.publicUrl, config.twilioApiBase);
    if (reach.dialling === "refused") throw new AppError(409, TWILIO_UNREACHABLE, reach.dialling_note!);
  }
  return {
    dialPolicy,
    assertCanDial,

    async allowList(organizationId) {
      return { allowed: await repo.readDialAllowList(db, organizationId) };
    },

    async saveAllowList(organizationId, input) {
      await repo.saveDialAllowList(db, organizationId, [...new Set(input.allowed)]);
      return this.allowList(organizationId);
    },

    async place(organizationId, input, options = {}) {
      const assistant = await assistants.forCall(organizationId, input.assistant_id);
      if (!assistant) throw notFound("Assistant");
      const number = await phoneNumbers.forCall(organizationId, input.phone_number_id);
      if (!number) throw notFound("Phone number");
      if (number.status !== "active") throw new AppError(409, "number_inactive", OUTBOUND_TEXTS.numberInactive);
      // Whoever answered would hear Twilio's application error, whatever else is right.
      assertCanDial(number.provider);
      const carrier = carriers[number.provider];
      await carrier.calls.assertCanPlace(organizationId, number);
      // Without it the callee would answer to silence.
      if (!(await credentials.readUsable(organizationId, "openai_api_key"))) throw badRequest(MISSING_API_KEY_MESSAGE, "missing_api_key");
      if (await doNotCall.isListed(organizationId, input.to)) throw new AppError(409, "do_not_call", OUTBOUND_TEXTS.doNotCall(input.to));
      const refused = dialRefusal(input.to, await dialPolicy(organizationId));
      if (refused) throw new AppError(409, "destination_refused", DIAL_SAFETY_TEXTS.refused(input.to, refused.reason));
      const max = await repo.readMaxConcurrentCalls(db, organizationId);
      const id = await repo.insertWithinLimit(
        db,
        { organizationId, assistantId: assistant.id, phoneNumberId: number.id, carrier: number.provider, from: number.phoneNumber, to: input.to, variables: input.variables ?? {}, ...(options.campaignId ? { campaignId: options.campaignId } : {}) },
        max,
      );
      if (!id) throw new AppError(429, "concurrent_call_limit", OUTBOUND_TEXTS.limit(max));
      try {
        const placed = await carrier.calls.place({ organizationId, callId: id, from: number, to: input.to, machineDetection: !!assistant.voicemail });
        await repo.setCarrierCallId(db, id, number.provider, placed.providerCallId);
        return { id, status: "queued", twilio_call_sid: number.provider === "twilio" ? placed.providerCallId : null, carrier: number.provider };
      } catch (err) {
        // The carrier refused: nothing was dialled, so nothing is kept.
        await repo.deleteUndialled(db, id);
        throw err;
      }
    },

    async cancel(organizationId, callId) {
      const call = isUuid(callId) ? await repo.findOwnOutbound(db, organizationId, callId) : null;
      if (!call) throw new AppError(404, "not_found", CALL_MESSAGES.notFound);
      const refuse = (message: string) => new AppError(409, "call_not_cancellable", message);
      if (call.direction !== "outbound") throw refuse(OUTBOUND_TEXTS.cancelInbound);
      if (call.endTime) throw refuse(OUTBOUND_TEXTS.cancelEnded);
      if (!isUnanswered(call.providerStatus)) throw refuse(OUTBOUND_TEXTS.cancelAnswered);
      const carrierCallId = call.carrier === "sip" ? call.sipCallId : call.providerCallSid;
      // Dialled this very moment: the carrier has no id for it yet to be told to stop.
      if (!carrierCallId) throw refuse(OUTBOUND_TEXTS.cancelNotPlaced);
      await carriers[call.carrier].calls.end(organizationId, carrierCallId);
      const cancelled = { id: call.id, twilio_status: "canceled", ended_reason: OUTBOUND_ENDED.cancelled } as const;
      if (await repo.endCancelled(db, call.id, OUTBOUND_ENDED.cancelled)) {
        onEndedUnanswered({ ...call, organizationId });
        return cancelled;
      }
      const now = await repo.findOwnOutbound(db, organizationId, call.id);
      // The carrier may announce the cancel (its status callback closed the record) before it
      // answers the request: the call ended because of this cancel, so it is one.
      if (now?.endTime && now.providerStatus === "canceled") return cancelled;
      // The callee answered (or the call ended) between the check and the carrier's answer.
      throw refuse(now?.endTime ? OUTBOUND_TEXTS.cancelEnded : OUTBOUND_TEXTS.cancelAnswered);
    },

    async settings(organizationId) {
      return { max_concurrent_calls: await repo.readMaxConcurrentCalls(db, organizationId) };
    },

    async saveSettings(organizationId, settings) {
      await repo.saveMaxConcurrentCalls(db, organizationId, settings.max_concurrent_calls);
      return this.settings(organizationId);
    },
  };
}
