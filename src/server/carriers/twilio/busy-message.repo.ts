/**
 * The account's busy message (Settings → Calls, `call_settings.busy_message`): read and saved
 * per organisation, and found by the number a call came in on (the voice webhook knows only that).
 */
import { desc, eq } from "drizzle-orm";
import { DEFAULT_MAX_CONCURRENT_CALLS } from "../../../shared/outbound.ts";
import type { Db } from "../../db/client.ts";
import { callSettings, phoneNumbers } from "../../db/schema.ts";

export async function readBusyMessage(db: Db, organizationId: string): Promise<string | null> {
  const [row] = await db.select({ message: callSettings.busyMessage }).from(callSettings).where(eq(callSettings.organizationId, organizationId));
  return row?.message ?? null;
}

/** null puts back the default. The row may not exist yet: it is made with the default outbound limit. */
export async function saveBusyMessage(db: Db, organizationId: string, message: string | null): Promise<void> {
  await db
    .insert(callSettings)
    .values({ organizationId, maxConcurrentCalls: DEFAULT_MAX_CONCURRENT_CALLS, busyMessage: message })
    .onConflictDoUpdate({ target: callSettings.organizationId, set: { busyMessage: message, updatedAt: new Date() } });
}

/** The owner of the number Twilio called and its busy message (null: the default); null when no such number. */
export async function findBusyMessageByNumber(db: Db, e164: string): Promise<{ organizationId: string; message: string | null } | null> {
  const [row] = await db
    .select({ organizationId: phoneNumbers.organizationId, message: callSettings.busyMessage })
    .from(phoneNumbers)
    .leftJoin(callSettings, eq(callSettings.organizationId, phoneNumbers.organizationId))
    .where(eq(phoneNumbers.phoneNumber, e164))
    .orderBy(desc(phoneNumbers.createdAt))
    .limit(1);
  return row ?? null;
}
