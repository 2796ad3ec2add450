import type { PhoneCountryCode } from "../../../shared/phone-numbers.ts";
import type { Readable } from "node:stream";
import { CAMPAIGN_TEXTS, CAMPAIGN_TRANSITIONS, type Campaign, type CampaignAction, type CampaignContact, type CampaignInput, type ContactsImport, type InvalidContact } from "../../../shared/campaigns.ts";
import { dialRefusal } from "../../../shared/dial-safety.ts";
import { isUuid } from "../../../shared/ids.ts";
import type { Page, PageQuery } from "../../../shared/pages.ts";
import type { ModuleContext } from "../../context.ts";
import { decodeKey } from "../../db/keyset.ts";
import { encodeCursor } from "../../http/pages.ts";
import { AppError, notFound } from "../../errors.ts";
import type { AssistantsService } from "../assistants/assistants.service.ts";
import type { DoNotCallService } from "../do-not-call/do-not-call.service.ts";
import type { OutboundService } from "../outbound/outbound.service.ts";
import type { PhoneNumbersService } from "../phone-numbers/phone-numbers.service.ts";
import * as repo from "./campaigns.repo.ts";
import { importContacts } from "./contacts-csv.ts";
import { createDialler } from "./dialler.ts";
import { mapPage } from "../../http/pages.ts";

/** A page of contacts stops at about this many bytes of phones and variables, whatever its `limit`. */
export const CONTACTS_PAGE_MAX_BYTES = 1024 * 1024;

export interface CampaignsDeps {
  ctx: Pick<ModuleContext, "db" | "jobs" | "clock">;
  assistants: AssistantsService;
  phoneNumbers: PhoneNumbersService;
  doNotCall: DoNotCallService;
  outbound: OutboundService;
  logger: { warn(obj: object, msg: string): void; error(obj: object, msg: string): void };
  /** campaign.started / campaign.completed webhooks. */
  emit: (organizationId: string, type: "campaign.started" | "campaign.completed", data: unknown) => Promise<void>;
}

export function createCampaignsService({ ctx, assistants, phoneNumbers, doNotCall, outbound, logger, emit }: CampaignsDeps) {
  const { db } = ctx;
  const announce = (c: repo.CampaignRow, type: "campaign.started" | "campaign.completed") =>
    void view([c])
      .then(([v]) => emit(c.organizationId, type, { campaign_id: c.id, name: c.name, status: type === "campaign.completed" ? "completed" : "running", counts: v!.counts }))
      .catch((err: unknown) => logger.warn({ err, campaignId: c.id }, "campaign webhook not stored"));
  const dialler = createDialler({ db, jobs: ctx.jobs, outbound, now: ctx.clock, logger, onCompleted: (c) => announce(c, "campaign.completed") });

  async function findOr404(organizationId: string, id: string) {
    const row = isUuid(id) ? await repo.findCampaign(db, organizationId, id) : null;
    if (!row) throw notFound("Campaign");
    return row;
  }

  /** Reads the CSV into the campaign's contacts, a batch at a time (see contacts-csv.ts). */
  const importInto = async (organizationId: string, id: string, csv: string | Readable, defaultCountry: PhoneCountryCode | null) => {
    const policy = await outbound.dialPolicy(organizationId);
    return importContacts(csv, {
      defaultCountry,
      dncListed: (phones) => doNotCall.listed(organizationId, phones),
      refusal: (phone) => dialRefusal(phone, policy)?.reason ?? null,
      write: (batch) => repo.insertContacts(db, id, batch),
    });
  };

  async function view(rows: repo.CampaignRow[]): Promise<Campaign[]> {
    const ids = rows.map((r) => r.id);
    const [counts, success] = await Promise.all([repo.countsOf(db, ids), repo.successOf(db, ids)]);
    return rows.map((r) => ({
      id: r.id,
      name: r.name,
      assistant_id: r.assistantId,
      phone_number_id: r.phoneNumberId,
      status: r.status === "running" && r.waitingReason ? "waiting" : r.status,
      waiting_reason: r.status === "running" ? r.waitingReason : null,
      max_concurrent_calls: r.maxConcurrentCalls,
      calls_per_minute: r.callsPerMinute,
      schedule: { timezone: r.timezone, start_at: r.startAt?.toISOString() ?? null, windows: r.windows },
      retry: r.retry,
      counts: counts.get(r.id)!,
      success_by_outcome: success.get(r.id)!,
      created_at: r.createdAt.toISOString(),
    }));
  }

  return {
    dialler,
    resumeAll: () => dialler.resumeAll(),

    async create(organizationId: string, input: CampaignInput): Promise<{ id: string; status: "draft"; contacts: { valid: number; invalid: InvalidContact[] } }> {
      const assistant = await assistants.forCall(organizationId, input.assistant_id);
      if (!assistant) throw notFound("Assistant");
      const number = await phoneNumbers.forCall(organizationId, input.phone_number_id);
      if (!number) throw notFound("Phone number");
      const id = await repo.insertCampaign(db, {
        organizationId,
        name: input.name,
        assistantId: assistant.id,
        phoneNumberId: number.id,
        timezone: input.schedule.timezone,
        startAt: input.schedule.start_at ? new Date(input.schedule.start_at) : null,
        windows: input.schedule.windows,
        maxConcurrentCalls: input.max_concurrent_calls,
        callsPerMinute: input.calls_per_minute ?? null,
        retry: input.retry,
      });
      if (input.contacts_csv === undefined) return { id, status: "draft", contacts: { valid: 0, invalid: [] } };
      try {
        const result = await importInto(organizationId, id, input.contacts_csv, input.default_country ?? null);
        return { id, status: "draft", contacts: { valid: result.valid, invalid: result.invalid } };
      } catch (err) {
        // Nothing half-written: a CSV that cannot be read leaves no campaign behind.
        await repo.deleteCampaign(db, id);
        throw err;
      }
    },

    /**
     * PUT /api/campaigns/:id/contacts: a draft's contacts replaced by a CSV read as it arrives
     * (up to 100,000 rows, never held whole). A CSV that cannot be read leaves the draft with no
     * contacts, not some of them.
     */
    async replaceContacts(organizationId: string, id: string, csv: Readable, defaultCountry: PhoneCountryCode | null = null): Promise<ContactsImport> {
      const current = await findOr404(organizationId, id);
      if (current.status !== "draft") throw new AppError(409, "invalid_transition", CAMPAIGN_TEXTS.notDraft);
      await repo.deleteContacts(db, id);
      try {
        const result = await importInto(organizationId, id, csv, defaultCountry);
        return { valid: result.valid, invalid: result.invalid };
      } catch (err) {
        await repo.deleteContacts(db, id);
        throw err;
      }
    },

    async page(organizationId: string, query: PageQuery): Promise<Page<Campaign>> {
      return mapPage(await repo.pageCampaigns(db, organizationId, query), view);
    },

    async get(organizationId: string, id: string): Promise<Campaign> {
      const [one] = await view([await findOr404(organizationId, id)]);
      return one!;
    },

    async act(organizationId: string, id: string, action: CampaignAction): Promise<Campaign> {
      const current = await findOr404(organizationId, id);
      const { from, to } = CAMPAIGN_TRANSITIONS[action];
      if (to === "running") {
        const number = current.phoneNumberId ? await phoneNumbers.forCall(organizationId, current.phoneNumberId) : null;
        if (number) outbound.assertCanDial(number.provider);
      }
      if (!(await repo.setStatus(db, organizationId, id, from, to))) throw new AppError(409, "invalid_transition", CAMPAIGN_TEXTS.notAllowed(action, current.status));
      if (to === "running") await dialler.kick(id);
      if (action === "start") announce(current, "campaign.started");
      return this.get(organizationId, id);
    },

    async contacts(organizationId: string, id: string, query: PageQuery): Promise<Page<CampaignContact>> {
      // The cursor is checked before anything is read; the campaign is the organisation's, or 404.
      const after = query.cursor === undefined ? undefined : decodeKey(repo.contactOrder, query.cursor);
      await findOr404(organizationId, id);
      const { rows, more } = await repo.contactsPage(db, id, query.limit, after, CONTACTS_PAGE_MAX_BYTES);
      return {
        data: rows.map((r) => ({
          row: r.row,
          phone: r.phone,
          timezone: r.timezone,
          variables: r.variables,
          state: r.state,
          attempts: r.attempts,
          last_outcome: r.lastOutcome,
          next_attempt_at: r.state === "pending" ? (r.nextAttemptAt?.toISOString() ?? null) : null,
          call_id: r.callId,
        })),
        next_cursor: more ? encodeCursor([rows[rows.length - 1]!.row]) : null,
      };
    },
  };
}

export type CampaignsService = ReturnType<typeof createCampaignsService>;
