import { and, count, eq } from "drizzle-orm";
import type { Db } from "../../db/client.ts";
import { account, assistants, calls, phoneNumbers, tools, user } from "../../db/schema.ts";

/** SQL of the account module; every query is scoped to the one user it names. */
export function createAccountRepo(db: Db) {
  const countOf = async (table: typeof assistants | typeof tools | typeof phoneNumbers | typeof calls, userId: string) =>
    (await db.select({ n: count() }).from(table).where(eq(table.userId, userId)))[0]?.n ?? 0;

  return {
    async counts(userId: string) {
      const [a, t, p] = await Promise.all([countOf(assistants, userId), countOf(tools, userId), countOf(phoneNumbers, userId)]);
      return { assistants: a, tools: t, phoneNumbers: p };
    },

    /** The stored password hash of the e-mail + password login (null for none). */
    async passwordHash(userId: string): Promise<string | null> {
      const [row] = await db
        .select({ password: account.password })
        .from(account)
        .where(and(eq(account.userId, userId), eq(account.providerId, "credential")));
      return row?.password ?? null;
    },

    /** Every call id and stored recording key of the user, for removal from storage. */
    async callRecordings(userId: string): Promise<Array<{ id: string; recording: string | null }>> {
      return db.select({ id: calls.id, recording: calls.recording }).from(calls).where(eq(calls.userId, userId));
    },

    /**
     * Removes the user; every product table references it with ON DELETE CASCADE (assistants,
     * tools, numbers, calls, credentials, sessions), so one statement removes it all or nothing.
     */
    async deleteUser(userId: string): Promise<boolean> {
      const rows = await db.delete(user).where(eq(user.id, userId)).returning({ id: user.id });
      return rows.length > 0;
    },
  };
}
