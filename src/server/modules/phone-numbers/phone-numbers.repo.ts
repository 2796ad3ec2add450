import { and, desc, eq } from "drizzle-orm";
import type { Page, PageQuery } from "../../../shared/pages.ts";
import type { Db } from "../../db/client.ts";
import { keysetPage, keysetQuery, newestFirst } from "../../db/keyset.ts";
import { assistants, phoneNumbers, sipTrunks } from "../../db/schema.ts";

export type PhoneNumberRow = typeof phoneNumbers.$inferSelect;
export type PhoneNumberWithAssistant = PhoneNumberRow & { assistantName: string | null; sipTrunkName: string | null };

/** Every query here is scoped to `organizationId`: another user's numbers are invisible, never forbidden. */

const withAssistant = (db: Db) =>
  db
    .select({ number: phoneNumbers, assistantName: assistants.name, sipTrunkName: sipTrunks.name })
    .from(phoneNumbers)
    // The assistant (and trunk) must be the owner's too: a row can only ever show its owner's names.
    .leftJoin(assistants, and(eq(assistants.id, phoneNumbers.assistantId), eq(assistants.organizationId, phoneNumbers.organizationId)))
    .leftJoin(sipTrunks, and(eq(sipTrunks.id, phoneNumbers.sipTrunkId), eq(sipTrunks.organizationId, phoneNumbers.organizationId)));

export async function listPhoneNumbers(db: Db, organizationId: string): Promise<PhoneNumberWithAssistant[]> {
  const rows = await withAssistant(db)
    .where(eq(phoneNumbers.organizationId, organizationId))
    .orderBy(desc(phoneNumbers.createdAt), desc(phoneNumbers.id));
  return rows.map((r) => ({ ...r.number, assistantName: r.assistantName, sipTrunkName: r.sipTrunkName }));
}

/** A page of the organisation's numbers, newest first: the keyset in SQL (db/keyset.ts). */
export async function pagePhoneNumbers(db: Db, organizationId: string, query: PageQuery): Promise<Page<PhoneNumberWithAssistant>> {
  const q = keysetQuery(newestFirst(phoneNumbers.createdAt, phoneNumbers.id), query);
  const rows = await db
    .select({ number: phoneNumbers, assistantName: assistants.name, sipTrunkName: sipTrunks.name, page_key: q.key })
    .from(phoneNumbers)
    .leftJoin(assistants, and(eq(assistants.id, phoneNumbers.assistantId), eq(assistants.organizationId, phoneNumbers.organizationId)))
    .leftJoin(sipTrunks, and(eq(sipTrunks.id, phoneNumbers.sipTrunkId), eq(sipTrunks.organizationId, phoneNumbers.organizationId)))
    .where(and(eq(phoneNumbers.organizationId, organizationId), q.after))
    .orderBy(...q.orderBy)
    .limit(q.limit);
  const page = keysetPage(rows, query.limit);
  return { data: page.data.map((r) => ({ ...r.number, assistantName: r.assistantName, sipTrunkName: r.sipTrunkName })), next_cursor: page.next_cursor };
}

export async function findPhoneNumber(db: Db, organizationId: string, id: string): Promise<PhoneNumberWithAssistant | null> {
  const [row] = await withAssistant(db).where(and(eq(phoneNumbers.organizationId, organizationId), eq(phoneNumbers.id, id)));
  return row ? { ...row.number, assistantName: row.assistantName, sipTrunkName: row.sipTrunkName } : null;
}

export async function findOwnAssistant(db: Db, organizationId: string, id: string): Promise<{ id: string; name: string } | null> {
  const [row] = await db
    .select({ id: assistants.id, name: assistants.name })
    .from(assistants)
    .where(and(eq(assistants.organizationId, organizationId), eq(assistants.id, id)));
  return row ?? null;
}

export type NewPhoneNumber = Pick<PhoneNumberRow, "phoneNumber" | "countryCode" | "status" | "assistantId" | "providerSid"> &
  Partial<Pick<PhoneNumberRow, "provider" | "sipTrunkId">>;

/** The organisation's SIP number `phoneNumber` (on whichever trunk), with its trunk's name. */
export async function findSipNumber(db: Db, organizationId: string, phoneNumber: string): Promise<{ id: string; trunkName: string | null } | null> {
  const [row] = await db
    .select({ id: phoneNumbers.id, trunkName: sipTrunks.name })
    .from(phoneNumbers)
    .leftJoin(sipTrunks, and(eq(sipTrunks.id, phoneNumbers.sipTrunkId), eq(sipTrunks.organizationId, phoneNumbers.organizationId)))
    .where(and(eq(phoneNumbers.organizationId, organizationId), eq(phoneNumbers.provider, "sip"), eq(phoneNumbers.phoneNumber, phoneNumber)));
  return row ?? null;
}

export async function insertPhoneNumber(db: Db, organizationId: string, values: NewPhoneNumber): Promise<PhoneNumberRow> {
  const [row] = await db
    .insert(phoneNumbers)
    .values({ ...values, organizationId })
    .returning();
  return row!;
}

export async function setAssistant(db: Db, organizationId: string, id: string, assistantId: string | null, assistantVersion: number | null): Promise<boolean> {
  const rows = await db
    .update(phoneNumbers)
    .set({ assistantId, assistantVersion })
    .where(and(eq(phoneNumbers.organizationId, organizationId), eq(phoneNumbers.id, id)))
    .returning({ id: phoneNumbers.id });
  return rows.length > 0;
}

export async function deletePhoneNumber(db: Db, organizationId: string, id: string): Promise<boolean> {
  const rows = await db
    .delete(phoneNumbers)
    .where(and(eq(phoneNumbers.organizationId, organizationId), eq(phoneNumbers.id, id)))
    .returning({ id: phoneNumbers.id });
  return rows.length > 0;
}
