import { withinDateBounds } from "../../../shared/bounds.ts";
import { DNC_TEXTS, e164Schema, type DncInput, type DncPage } from "../../../shared/outbound.ts";
import type { Db } from "../../db/client.ts";
import { badRequest, notFound } from "../../errors.ts";
import * as repo from "./do-not-call.repo.ts";

export interface DoNotCallService {
  list(organizationId: string, options: { limit: number; cursor?: string }): Promise<DncPage>;
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
    async list(organizationId, { limit, cursor }) {
      let after: { createdAt: Date; phone: string } | null = null;
      if (cursor) {
        const [at, phone] = Buffer.from(cursor, "base64url").toString("utf8").split("|");
        const createdAt = new Date(at ?? "");
        if (!phone || Number.isNaN(createdAt.getTime()) || !withinDateBounds(createdAt.toISOString())) throw badRequest("cursor is not one this list gave", "invalid_cursor");
        after = { createdAt, phone };
      }
      const { rows, total } = await repo.page(db, organizationId, limit, after);
      const last = rows.length === limit ? rows[rows.length - 1] : undefined;
      return {
        data: rows.map((r) => ({ phone: r.phone, created_at: r.createdAt.toISOString() })),
        total,
        next_cursor: last ? Buffer.from(`${last.createdAt.toISOString()}|${last.phone}`).toString("base64url") : null,
      };
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
