/**
 * One outbound call: checks everything that can be refused before anything is dialled (the
 * assistant, the number, the credentials, the do-not-call list, the dial-safety rules of
 * shared/dial-safety.ts, the account's concurrent-call limit), records the call, then asks Twilio to dial it with the owner's own account. Twilio's
 * callbacks and the answered call are telephony's (telephony/outbound-calls.ts).
 */
import { DIAL_SAFETY_TEXTS, dialRefusal, type DialAllowList, type DialPolicy } from "../../../shared/dial-safety.ts";
import { OUTBOUND_TEXTS, type CallSettings, type OutboundCall, type OutboundCallInput } from "../../../shared/outbound.ts";
import type { ModuleContext } from "../../context.ts";
import { AppError, badRequest, notFound } from "../../errors.ts";
import { outboundUrls } from "../../telephony/outbound-calls.ts";
import { VOICE_PATH } from "../../telephony/telephony.service.ts";
import { createTwilioRest, TwilioError } from "../../telephony/twilio-client.ts";
import type { AssistantsService } from "../assistants/assistants.service.ts";
import { MISSING_API_KEY_MESSAGE } from "../calls/calls.service.ts";
import type { CredentialsService } from "../credentials/credentials.service.ts";
import type { DoNotCallService } from "../do-not-call/do-not-call.service.ts";
import type { PhoneNumbersService } from "../phone-numbers/phone-numbers.service.ts";
import * as repo from "./outbound.repo.ts";

export const STATUS_PATH = "/telephony/twilio/status";

export interface OutboundDeps {
  ctx: Pick<ModuleContext, "db" | "config">;
  assistants: AssistantsService;
  phoneNumbers: PhoneNumbersService;
  credentials: CredentialsService;
  doNotCall: DoNotCallService;
}

export interface OutboundService {
  /** `campaignId`: the call is one of a campaign's (kept on the record). */
  place(organizationId: string, input: OutboundCallInput, options?: { campaignId?: string }): Promise<OutboundCall>;
  settings(organizationId: string): Promise<CallSettings>;
  saveSettings(organizationId: string, settings: CallSettings): Promise<CallSettings>;
  /** What the dial-safety rules need: the organisation's own numbers and its allow-list. */
  dialPolicy(organizationId: string): Promise<DialPolicy>;
  allowList(organizationId: string): Promise<DialAllowList>;
  saveAllowList(organizationId: string, input: DialAllowList): Promise<DialAllowList>;
}

export function createOutboundService({ ctx, assistants, phoneNumbers, credentials, doNotCall }: OutboundDeps): OutboundService {
  const { db, config } = ctx;
  async function dialPolicy(organizationId: string): Promise<DialPolicy> {
    const [numbers, allowed] = await Promise.all([phoneNumbers.list(organizationId), repo.readDialAllowList(db, organizationId)]);
    return { ownNumbers: numbers.map((n) => n.phone_number), allowed };
  }
  return {
    dialPolicy,

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
      const pair = await credentials.readTwilio(organizationId);
      if (!pair) throw badRequest(OUTBOUND_TEXTS.noTwilio, "twilio_credentials_missing");
      // Without it the callee would answer to silence.
      if (!(await credentials.readUsable(organizationId, "openai_api_key"))) throw badRequest(MISSING_API_KEY_MESSAGE, "missing_api_key");
      if (await doNotCall.isListed(organizationId, input.to)) throw new AppError(409, "do_not_call", OUTBOUND_TEXTS.doNotCall(input.to));
      const refused = dialRefusal(input.to, await dialPolicy(organizationId));
      if (refused) throw new AppError(409, "destination_refused", DIAL_SAFETY_TEXTS.refused(input.to, refused.reason));
      const max = await repo.readMaxConcurrentCalls(db, organizationId);
      const id = await repo.insertWithinLimit(
        db,
        { organizationId, assistantId: assistant.id, phoneNumberId: number.id, from: number.phoneNumber, to: input.to, variables: input.variables ?? {}, ...(options.campaignId ? { campaignId: options.campaignId } : {}) },
        max,
      );
      if (!id) throw new AppError(429, "concurrent_call_limit", OUTBOUND_TEXTS.limit(max));
      const urls = outboundUrls(config.publicUrl, id, { voice: VOICE_PATH, status: STATUS_PATH });
      try {
        const created = await createTwilioRest(pair, config.twilioApiBase).createCall({
          to: input.to,
          from: number.phoneNumber,
          url: urls.voice,
          statusCallback: urls.status,
          ...(assistant.voicemail ? { machineDetection: { callback: urls.amd } } : {}),
        });
        await repo.setCallSid(db, id, created.sid);
        return { id, status: "queued", twilio_call_sid: created.sid };
      } catch (err) {
        await repo.deleteUndialled(db, id);
        if (!(err instanceof TwilioError)) throw err;
        if (err.status === 0 || err.status >= 500) throw new AppError(502, "twilio_unavailable", err.message);
        throw badRequest(OUTBOUND_TEXTS.twilioRefused(err.message), "twilio_refused");
      }
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
