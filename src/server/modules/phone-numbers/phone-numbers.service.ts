import { isUuid } from "../../../shared/ids.ts";
import {
  PHONE_COUNTRIES,
  PHONE_NUMBER_MESSAGES,
  type PhoneNumber,
  type PhoneNumberPurchase,
  type PhoneNumberUpdate,
} from "../../../shared/phone-numbers.ts";
import type { ModuleContext } from "../../context.ts";
import { AppError, badRequest, notFound } from "../../errors.ts";
import { createTwilioRest, numberWebhooks, TwilioError, type TwilioCredentials, type TwilioRest } from "../../telephony/twilio-client.ts";
import { VERSION_MESSAGES } from "../../../shared/versions.ts";
import type { CredentialsService } from "../credentials/credentials.service.ts";
import type { VersionsService } from "../versions/versions.service.ts";
import * as repo from "./phone-numbers.repo.ts";

/** The user's Twilio credentials come from the credentials module. */
export type PhoneNumbersServiceDeps = Pick<ModuleContext, "db" | "config"> & {
  credentials: CredentialsService;
  /** A pinned version must exist: the versions module knows. */
  versions: Pick<VersionsService, "exists">;
};

export interface ReleaseAllResult {
  released: string[];
  /** Numbers still held (and still listed) because Twilio could not release them, with the reason. */
  failed: { phone_number: string; message: string }[];
}

export interface PhoneNumbersService {
  list(organizationId: string): Promise<PhoneNumber[]>;
  purchase(organizationId: string, input: PhoneNumberPurchase): Promise<PhoneNumber>;
  update(organizationId: string, id: string, patch: PhoneNumberUpdate): Promise<PhoneNumber>;
  remove(organizationId: string, id: string): Promise<void>;
  /**
   * Releases every number of a user at Twilio and deletes its row. A number that cannot be
   * released keeps its row and is reported, so nobody pays for a number they can no longer see.
   */
  releaseAll(organizationId: string): Promise<ReleaseAllResult>;
  /**
   * Account deletion: every number is released at Twilio first. One that cannot be released stops
   * the deletion (a 409 naming it), so nobody keeps paying Twilio for a number they can no longer see.
   */
  releaseBeforeAccountDeletion(organizationId: string): Promise<void>;
  /** The user's number an outbound call is made from (server-side: null when it is not theirs). */
  forCall(organizationId: string, id: string): Promise<{ id: string; phoneNumber: string; status: string } | null>;
}

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

const friendlyName = (assistantName: string) => `Switchboard: ${assistantName}`;

export function createPhoneNumbersService(deps: PhoneNumbersServiceDeps): PhoneNumbersService {
  const { db, config } = deps;

  async function twilioFor(organizationId: string): Promise<TwilioRest> {
    const credentials: TwilioCredentials | null = await deps.credentials.readTwilio(organizationId);
    if (!credentials) throw badRequest(PHONE_NUMBER_MESSAGES.twilioCredentialsMissing, "twilio_credentials_missing");
    return createTwilioRest(credentials, config.twilioApiBase);
  }

  async function ownAssistant(organizationId: string, assistantId: string) {
    const assistant = await repo.findOwnAssistant(db, organizationId, assistantId);
    if (!assistant) throw badRequest(PHONE_NUMBER_MESSAGES.unknownAssistant, "unknown_assistant");
    return assistant;
  }

  async function findOr404(organizationId: string, id: string) {
    const row = isUuid(id) ? await repo.findPhoneNumber(db, organizationId, id) : null;
    if (!row) throw notFound("Phone number");
    return row;
  }

  /** Releases at Twilio; a number Twilio no longer has is as good as released. */
  async function release(twilio: TwilioRest, providerSid: string) {
    try {
      await twilio.releaseNumber(providerSid);
    } catch (err) {
      if (err instanceof TwilioError && err.isNotFound) return;
      throw err;
    }
  }

  /** Twilio first: if the release fails the row stays, and the error says why. */
  async function remove(organizationId: string, id: string): Promise<void> {
    const current = await findOr404(organizationId, id);
    if (current.providerSid) await release(await twilioFor(organizationId), current.providerSid).catch(twilioFailure);
    if (!(await repo.deletePhoneNumber(db, organizationId, id))) throw notFound("Phone number");
  }

  async function releaseAll(organizationId: string): Promise<ReleaseAllResult> {
    const result: ReleaseAllResult = { released: [], failed: [] };
    for (const number of await repo.listPhoneNumbers(db, organizationId)) {
      try {
        await remove(organizationId, number.id);
        result.released.push(number.phoneNumber);
      } catch (err) {
        result.failed.push({ phone_number: number.phoneNumber, message: err instanceof Error ? err.message : String(err) });
      }
    }
    return result;
  }

  return {
    remove,
    releaseAll,

    async releaseBeforeAccountDeletion(organizationId) {
      const { failed } = await releaseAll(organizationId);
      if (failed.length === 0) return;
      const list = failed.map((f) => `${f.phone_number} (${f.message})`).join(", ");
      throw new AppError(409, "numbers_not_released", `Your account was not deleted: Twilio did not release ${list}. Delete these numbers on the Phone Numbers page and try again.`);
    },

    async forCall(organizationId, id) {
      const row = isUuid(id) ? await repo.findPhoneNumber(db, organizationId, id) : null;
      return row ? { id: row.id, phoneNumber: row.phoneNumber, status: row.status } : null;
    },

    async list(organizationId: string): Promise<PhoneNumber[]> {
      return (await repo.listPhoneNumbers(db, organizationId)).map(toView);
    },

    /**
     * Search → buy → store. The assistant and credentials are checked before Twilio is asked, and
     * a number bought but not stored is released again, so nothing is half-done either way.
     */
    async purchase(organizationId: string, input: PhoneNumberPurchase): Promise<PhoneNumber> {
      const assistant = await ownAssistant(organizationId, input.assistant_id);
      const twilio = await twilioFor(organizationId);
      const candidates = await twilio.searchLocalVoiceNumbers(input.country_code, CANDIDATES).catch(twilioFailure);
      if (candidates.length === 0) {
        const country = PHONE_COUNTRIES.find((c) => c.code === input.country_code)?.name ?? input.country_code;
        throw badRequest(`Twilio has no local voice numbers available in ${country} right now.`, "no_numbers_available");
      }

      let bought: Awaited<ReturnType<TwilioRest["purchaseNumber"]>> | null = null;
      for (const candidate of candidates) {
        try {
          bought = await twilio.purchaseNumber(candidate.phoneNumber, numberWebhooks(config.publicUrl, friendlyName(assistant.name)));
          break;
        } catch (err) {
          // Someone else bought it between the search and now: the next one will do.
          if (err instanceof TwilioError && err.code === TWILIO_NUMBER_UNAVAILABLE && candidate !== candidates.at(-1)) continue;
          twilioFailure(err);
        }
      }

      try {
        const row = await repo.insertPhoneNumber(db, organizationId, {
          phoneNumber: bought!.phoneNumber,
          countryCode: input.country_code,
          status: "active",
          assistantId: assistant.id,
          providerSid: bought!.sid,
        });
        return toView({ ...row, assistantName: assistant.name });
      } catch (err) {
        // The user would pay for a number they cannot see: give it back before failing.
        await release(twilio, bought!.sid).catch(() => undefined);
        // The assistant was deleted (another tab) while Twilio was buying: the same answer as before.
        if (!(await repo.findOwnAssistant(db, organizationId, assistant.id))) throw badRequest(PHONE_NUMBER_MESSAGES.unknownAssistant, "unknown_assistant");
        throw err;
      }
    },

    /**
     * Re-links the number. It also re-points the number's webhooks at this server's PUBLIC_URL and
     * names it after the assistant in the Twilio Console, so an edit repairs a number bought
     * under an older address. The country is fixed once bought. A pinned version stays while the
     * assistant does; `assistant_version` alone pins or unpins without asking Twilio anything.
     */
    async update(organizationId: string, id: string, patch: PhoneNumberUpdate): Promise<PhoneNumber> {
      const current = await findOr404(organizationId, id);
      if (patch.country_code !== undefined && patch.country_code !== current.countryCode) {
        throw badRequest(PHONE_NUMBER_MESSAGES.countryLocked, "country_locked");
      }
      const assistant = patch.assistant_id !== undefined ? await ownAssistant(organizationId, patch.assistant_id) : null;
      const assistantId = assistant?.id ?? (current.assistantName === null ? null : current.assistantId);
      const keptPin = assistantId === current.assistantId ? current.assistantVersion : null;
      const version = patch.assistant_version !== undefined ? patch.assistant_version : keptPin;
      if (version !== null) {
        if (!assistantId) throw badRequest(VERSION_MESSAGES.pinNeedsAssistant, "no_assistant");
        if (!(await deps.versions.exists(organizationId, assistantId, version))) throw badRequest(VERSION_MESSAGES.unknownVersion(version), "unknown_version");
      }
      if (assistant && current.providerSid) {
        const twilio = await twilioFor(organizationId);
        await twilio.updateNumber(current.providerSid, numberWebhooks(config.publicUrl, friendlyName(assistant.name))).catch(twilioFailure);
      }
      if (!(await repo.setAssistant(db, organizationId, id, assistantId, version))) throw notFound("Phone number");
      return toView({ ...current, assistantId, assistantVersion: version, assistantName: assistant?.name ?? current.assistantName });
    },
  };
}

function toView(row: repo.PhoneNumberWithAssistant): PhoneNumber {
  return {
    id: row.id,
    phone_number: row.phoneNumber,
    country_code: row.countryCode,
    status: row.status,
    assistant_id: row.assistantName === null ? null : row.assistantId,
    assistant_name: row.assistantName,
    assistant_version: row.assistantName === null ? null : row.assistantVersion,
    created_at: row.createdAt.toISOString(),
  };
}
