/**
 * Twilio behind the carrier seam (carriers/carrier.ts): numbers bought and released on the
 * organisation's own Twilio account, calls placed with Calls.create and ended over REST. Twilio's
 * refusals become AppErrors in the user's words here, so no module knows Twilio's errors.
 */
import { OUTBOUND_TEXTS } from "../../../shared/outbound.ts";
import { PHONE_COUNTRIES, PHONE_NUMBER_MESSAGES } from "../../../shared/phone-numbers.ts";
import { TWILIO_CREDENTIAL_MESSAGES } from "../../../shared/credentials.ts";
import type { Config } from "../../config.ts";
import { AppError, badRequest } from "../../errors.ts";
import type { CredentialsService } from "../../modules/credentials/credentials.service.ts";
import type { AccountCredentials, CarrierImpl, CredentialCheck } from "../carrier.ts";
import { outboundUrls, STATUS_PATH } from "./outbound-calls.ts";
import { VOICE_PATH } from "./telephony.service.ts";
import { createTwilioRest, numberWebhooks, TwilioError, type TwilioRest } from "./twilio-client.ts";

/** How many of Twilio's offered numbers a purchase tries when one is taken in the meantime. */
const CANDIDATES = 5;
const TWILIO_NUMBER_UNAVAILABLE = 21422;

/**
 * Twilio's refusal in Twilio's own words, as a 4xx the page shows in its banner; no answer at all
 * is a 502 (our upstream failed, the request itself was fine).
 */
export function twilioFailure(err: unknown): never {
  if (!(err instanceof TwilioError)) throw err;
  if (err.status === 0 || err.status >= 500) throw new AppError(502, "twilio_unavailable", err.message);
  if (err.isAuthFailure) {
    throw badRequest(`Twilio did not accept your credentials (${err.message}). Check the Account SID and Auth Token in Settings.`, "twilio_auth_failed");
  }
  throw badRequest(err.message, "twilio_error");
}

const friendlyName = (label: string) => `Switchboard: ${label}`;

export interface TwilioCarrierDeps {
  config: Pick<Config, "publicUrl" | "twilioApiBase">;
  credentials: Pick<CredentialsService, "readTwilio">;
}

export function createTwilioCarrier({ config, credentials }: TwilioCarrierDeps): CarrierImpl {
  /** The organisation's own account, or the refusal `missing` says. */
  async function rest(organizationId: string, missing: { message: string; code: string }): Promise<TwilioRest> {
    const pair = await credentials.readTwilio(organizationId);
    if (!pair) throw badRequest(missing.message, missing.code);
    return createTwilioRest(pair, config.twilioApiBase);
  }
  const forNumbers = (organizationId: string) => rest(organizationId, { message: PHONE_NUMBER_MESSAGES.twilioCredentialsMissing, code: "twilio_credentials_missing" });
  const forCalls = (organizationId: string) => rest(organizationId, { message: OUTBOUND_TEXTS.noTwilio, code: "twilio_credentials_missing" });

  /** A number Twilio no longer has is as good as released. */
  async function release(twilio: TwilioRest, providerSid: string) {
    try {
      await twilio.releaseNumber(providerSid);
    } catch (err) {
      if (err instanceof TwilioError && err.isNotFound) return;
      throw err;
    }
  }

  return {
    name: "twilio",
    numbers: {
      /** Search, then buy the first still free, with this server's webhooks. */
      async provision(organizationId, { countryCode, label }) {
        const twilio = await forNumbers(organizationId);
        const candidates = await twilio.searchLocalVoiceNumbers(countryCode, CANDIDATES).catch(twilioFailure);
        if (candidates.length === 0) {
          const country = PHONE_COUNTRIES.find((c) => c.code === countryCode)?.name ?? countryCode;
          throw badRequest(`Twilio has no local voice numbers available in ${country} right now.`, "no_numbers_available");
        }
        for (const candidate of candidates) {
          try {
            const bought = await twilio.purchaseNumber(candidate.phoneNumber, numberWebhooks(config.publicUrl, friendlyName(label)));
            return { phoneNumber: bought.phoneNumber, providerSid: bought.sid };
          } catch (err) {
            // Someone else bought it between the search and now: the next one will do.
            if (err instanceof TwilioError && err.code === TWILIO_NUMBER_UNAVAILABLE && candidate !== candidates.at(-1)) continue;
            twilioFailure(err);
          }
        }
        throw new AppError(502, "twilio_unavailable", PHONE_NUMBER_MESSAGES.purchaseFailed);
      },

      async relink(organizationId, providerSid, label) {
        const twilio = await forNumbers(organizationId);
        await twilio.updateNumber(providerSid, numberWebhooks(config.publicUrl, friendlyName(label))).catch(twilioFailure);
      },

      async release(organizationId, providerSid) {
        await release(await forNumbers(organizationId), providerSid).catch(twilioFailure);
      },
    },

    calls: {
      async assertCanPlace(organizationId) {
        await forCalls(organizationId);
      },

      async place({ organizationId, callId, from, to, machineDetection }) {
        const twilio = await forCalls(organizationId);
        const urls = outboundUrls(config.publicUrl, callId, { voice: VOICE_PATH, status: STATUS_PATH });
        try {
          const created = await twilio.createCall({ to, from: from.phoneNumber, url: urls.voice, statusCallback: urls.status, ...(machineDetection ? { machineDetection: { callback: urls.amd } } : {}) });
          return { providerCallId: created.sid };
        } catch (err) {
          if (!(err instanceof TwilioError)) throw err;
          if (err.status === 0 || err.status >= 500) throw new AppError(502, "twilio_unavailable", err.message);
          throw badRequest(OUTBOUND_TEXTS.twilioRefused(err.message), "twilio_refused");
        }
      },

      async end(organizationId, providerCallId) {
        const twilio = await forCalls(organizationId);
        await twilio.endCall(providerCallId).catch((err: unknown) => {
          if (err instanceof TwilioError && err.isNotFound) return;
          twilioFailure(err);
        });
      },
    },
  };
}

/** Twilio's check of an Account SID and Auth Token, for the credentials module. */
export const twilioCredentialCheck =
  (apiBase: string): CredentialCheck =>
  (credentials) =>
    verifyTwilioCredentials(apiBase, credentials);

/** `GET /Accounts/{sid}.json` is Twilio's cheapest authenticated call; a suspended account is no use either. */
async function verifyTwilioCredentials(apiBase: string, credentials: AccountCredentials): Promise<{ verified: boolean; message: string }> {
  try {
    const account = await createTwilioRest(credentials, apiBase).fetchAccount();
    if (account.status !== "active") return { verified: false, message: `Twilio says the account is ${account.status}.` };
    return { verified: true, message: `Twilio accepted the credentials for ${account.friendlyName}.` };
  } catch (err) {
    // Twilio's own words for a refusal ("Authenticate") tell a user nothing: say what it means.
    if (err instanceof TwilioError && err.isAuthFailure) return { verified: false, message: TWILIO_CREDENTIAL_MESSAGES.refused };
    if (err instanceof TwilioError && err.status === 0) return { verified: false, message: TWILIO_CREDENTIAL_MESSAGES.unreachable };
    const reason = err instanceof Error ? err.message : String(err);
    return { verified: false, message: `Twilio did not accept the credentials: ${reason}` };
  }
}
