import { DNC_TEXTS, e164Schema, type DncInput, type DncPage } from "../../../shared/outbound.ts";
import type { PageQuery } from "../../../shared/pages.ts";
import type { Db } from "../../db/client.ts";
import { notFound } from "../../errors.ts";
import * as repo from "./do-not-call.repo.ts";

export interface DoNotCallService {
  list(organizationId: string, query: PageQuery): Promise<DncPage>;
  add(organizationId: string, input: DncInput): Promise<{ added: number }>;
  remove(organizationId: string, phone: string): Promise<void>;
  /** Whether a number is on the list (checked right before each dial). */
  isListed(organizationId: string, phone: string): Promise<boolean>;
  /** Which of these numbers are on the list (campaign validation). */
  listed(organizationId: string, phones: string[]): Promise<Set<string>>;
}

const phoneOf = e164Schema(DNC_TEXTS.phoneInvalid);

export function createDoNotCallService({ db }: { db: Db }): DoNotCallService {
  return {
    async list(organizationId, query) {
      const { page, total } = await repo.page(db, organizationId, query);
      return { data: page.data.map((r) => ({ phone: r.phone, created_at: r.createdAt.toISOString() })), next_cursor: page.next_cursor, total };
    },
    async add(organizationId, input) {
      const phones = "phone" in input ? [input.phone] : [...new Set(input.phones)];
      return { added: await repo.addNumbers(db, organizationId, phones) };
    },
    async remove(organizationId, phone) {
      const parsed = phoneOf.safeParse(phone);
      if (!parsed.success || !(await repo.removeNumber(db, organizationId, parsed.data))) throw notFound("Number");
    },
    async isListed(organizationId, phone) {
      return (await repo.listed(db, organizationId, [phone])).has(phone);
    },
    listed: (organizationId, phones) => repo.listed(db, organizationId, phones),
  };
}
