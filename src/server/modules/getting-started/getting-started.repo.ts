import { and, eq, inArray, sql, type SQL } from "drizzle-orm";
import type { PgTable } from "drizzle-orm/pg-core";
import type { Db } from "../../db/client.ts";
import { assistants, calls, credentials, phoneNumbers } from "../../db/schema.ts";

/** Whether a row matches: one index probe that stops at the first row. */
async function any(db: Db, table: PgTable, where: SQL | undefined): Promise<boolean> {
  const rows = await db.select({ one: sql`1` }).from(table).where(where).limit(1);
  return rows.length > 0;
}

/** What the organisation has of each thing the checklist asks for. Read only, like the Calls page's stats. */
export async function progressOf(db: Db, organizationId: string) {
  const [credentialRows, assistant, testCall, number, realCall] = await Promise.all([
    db
      .select({ name: credentials.name })
      .from(credentials)
      // Only what the provider accepted: a refused key is stored (Settings says why) but no step done.
      .where(and(eq(credentials.organizationId, organizationId), inArray(credentials.name, ["openai_api_key", "twilio_account_sid", "twilio_auth_token"]), eq(credentials.verified, true))),
    any(db, assistants, eq(assistants.organizationId, organizationId)),
    any(db, calls, and(eq(calls.organizationId, organizationId), eq(calls.isTest, true))),
    any(db, phoneNumbers, eq(phoneNumbers.organizationId, organizationId)),
    any(db, calls, and(eq(calls.organizationId, organizationId), eq(calls.isTest, false))),
  ]);
  const stored = new Set(credentialRows.map((r) => r.name));
  return {
    openaiKey: stored.has("openai_api_key"),
    twilio: stored.has("twilio_account_sid") && stored.has("twilio_auth_token"),
    assistant,
    testCall,
    number,
    realCall,
  };
}
