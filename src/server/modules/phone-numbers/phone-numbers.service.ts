import { isUuid } from "../../../shared/ids.ts";
import {
  PHONE_NUMBER_MESSAGES,
  type PhoneNumber,
  type PhoneNumberPurchase,
  type PhoneNumberUpdate,
  type SipPhoneNumberInput,
} from "../../../shared/phone-numbers.ts";
import { SIP_NUMBER_MESSAGES, type Carrier } from "../../../shared/sip-trunks.ts";
import { isUniqueViolation } from "../../db/pg-errors.ts";
import type { ModuleContext } from "../../context.ts";
import { AppError, badRequest, notFound } from "../../errors.ts";
import type { Carriers } from "../../carriers/carrier.ts";
import { VERSION_MESSAGES } from "../../../shared/versions.ts";
import type { SipTrunksService } from "../sip-trunks/sip-trunks.service.ts";
import type { VersionsService } from "../versions/versions.service.ts";
import * as repo from "./phone-numbers.repo.ts";
import type { Page, PageQuery } from "../../../shared/pages.ts";
import { mapPage } from "../../http/pages.ts";

/** Numbers are bought, re-pointed and released by their carrier (Twilio); a SIP number needs none of it. */
export type PhoneNumbersServiceDeps = Pick<ModuleContext, "db"> & {
  carriers: Pick<Carriers, "twilio">;
  /** A pinned version must exist: the versions module knows. */
  versions: Pick<VersionsService, "exists">;
  /** A SIP number's trunk must be the organisation's. */
  sipTrunks: Pick<SipTrunksService, "find">;
};

export interface ReleaseAllResult {
  released: string[];
  /** Numbers still held (and still listed) because Twilio could not release them, with the reason. */
  failed: { phone_number: string; message: string }[];
}

export interface PhoneNumbersService {
  list(organizationId: string): Promise<PhoneNumber[]>;
  /** A page of them, newest first (src/shared/pages.ts). */
  page(organizationId: string, query: PageQuery): Promise<Page<PhoneNumber>>;
  purchase(organizationId: string, input: PhoneNumberPurchase): Promise<PhoneNumber>;
  /** A number on one of the organisation's SIP trunks: nothing to buy, active at once. */
  addSip(organizationId: string, input: SipPhoneNumberInput): Promise<PhoneNumber>;
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
  forCall(organizationId: string, id: string): Promise<{ id: string; phoneNumber: string; status: string; provider: Carrier } | null>;
}

export function createPhoneNumbersService(deps: PhoneNumbersServiceDeps): PhoneNumbersService {
  const { db, carriers } = deps;

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

  /** The carrier first: if the release fails the row stays, and the error says why. A SIP number has nothing to release. */
  async function remove(organizationId: string, id: string): Promise<void> {
    const current = await findOr404(organizationId, id);
    if (current.provider === "twilio" && current.providerSid) await carriers.twilio.numbers.release(organizationId, current.providerSid);
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
      return row ? { id: row.id, phoneNumber: row.phoneNumber, status: row.status, provider: row.provider } : null;
    },

    async addSip(organizationId, input) {
      const assistant = await ownAssistant(organizationId, input.assistant_id);
      const trunk = await deps.sipTrunks.find(organizationId, input.sip_trunk_id);
      if (!trunk) throw badRequest(SIP_NUMBER_MESSAGES.unknownTrunk, "unknown_sip_trunk");
      const taken = async () => {
        const existing = await repo.findSipNumber(db, organizationId, input.phone_number);
        return existing ? new AppError(409, "sip_number_taken", SIP_NUMBER_MESSAGES.alreadyOnTrunk(input.phone_number, existing.trunkName ?? trunk.name)) : null;
      };
      const before = await taken();
      if (before) throw before;
      try {
        const row = await repo.insertPhoneNumber(db, organizationId, {
          phoneNumber: input.phone_number,
          countryCode: null,
          status: "active",
          assistantId: assistant.id,
          providerSid: null,
          provider: "sip",
          sipTrunkId: trunk.id,
        });
        return toView({ ...row, assistantName: assistant.name, sipTrunkName: trunk.name });
      } catch (err) {
        // Added by another request at the same moment: the unique index said so.
        if (isUniqueViolation(err)) throw (await taken()) ?? err;
        throw err;
      }
    },

    async page(organizationId: string, query: PageQuery): Promise<Page<PhoneNumber>> {
      return mapPage(await repo.pagePhoneNumbers(db, organizationId, query), (rows) => rows.map(toView));
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
      const bought = await carriers.twilio.numbers.provision(organizationId, { countryCode: input.country_code, label: assistant.name });
      try {
        const row = await repo.insertPhoneNumber(db, organizationId, {
          phoneNumber: bought.phoneNumber,
          countryCode: input.country_code,
          status: "active",
          assistantId: assistant.id,
          providerSid: bought.providerSid,
        });
        return toView({ ...row, assistantName: assistant.name, sipTrunkName: null });
      } catch (err) {
        // The user would pay for a number they cannot see: give it back before failing.
        await carriers.twilio.numbers.release(organizationId, bought.providerSid).catch(() => undefined);
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
      if (assistant && current.provider === "twilio" && current.providerSid) await carriers.twilio.numbers.relink(organizationId, current.providerSid, assistant.name);
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
    provider: row.provider,
    sip_trunk_id: row.sipTrunkId,
    sip_trunk_name: row.sipTrunkName,
    assistant_id: row.assistantName === null ? null : row.assistantId,
    assistant_name: row.assistantName,
    assistant_version: row.assistantName === null ? null : row.assistantVersion,
    created_at: row.createdAt.toISOString(),
  };
}
