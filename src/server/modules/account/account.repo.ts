import { and, count, eq, inArray, sql } from "drizzle-orm";
import type { Db } from "../../db/client.ts";
import { lockOrganization, OWNERS_LOCK } from "../../db/organization-lock.ts";
import { account, assistants, calls, member, organization, phoneNumbers, tools, user } from "../../db/schema.ts";

/** SQL of the account module; every query is scoped to the one user it names (and their own organisations). */
export function createAccountRepo(db: Db) {
  const countOf = async (table: typeof assistants | typeof tools | typeof phoneNumbers | typeof calls, organizationIds: string[]) =>
    organizationIds.length ? ((await db.select({ n: count() }).from(table).where(inArray(table.organizationId, organizationIds)))[0]?.n ?? 0) : 0;

  return {
    /**
     * The user's organisations by what deleting the account does to them: those with no other
     * member go with it; those with others where the user is the only owner stop the deletion.
     */
    async organizations(userId: string): Promise<{ alone: string[]; lastOwnerOf: string[] }> {
      const rows = await db
        .select({
          id: member.organizationId,
          name: organization.name,
          role: member.role,
          members: sql<number>`(SELECT count(*)::int FROM ${member} m WHERE m.organization_id = ${member.organizationId})`,
          owners: sql<number>`(SELECT count(*)::int FROM ${member} m WHERE m.organization_id = ${member.organizationId} AND m.role = 'owner')`,
        })
        .from(member)
        .innerJoin(organization, eq(organization.id, member.organizationId))
        .where(eq(member.userId, userId));
      return {
        alone: rows.filter((r) => r.members === 1).map((r) => r.id),
        lastOwnerOf: rows.filter((r) => r.members > 1 && r.role === "owner" && r.owners === 1).map((r) => r.name),
      };
    },

    async counts(organizationIds: string[]) {
      const [a, t, p] = await Promise.all([countOf(assistants, organizationIds), countOf(tools, organizationIds), countOf(phoneNumbers, organizationIds)]);
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

    /** Every call id and stored recording key of these organisations, for removal from storage. */
    async callRecordings(organizationIds: string[]): Promise<Array<{ id: string; recording: string | null }>> {
      if (!organizationIds.length) return [];
      return db.select({ id: calls.id, recording: calls.recording }).from(calls).where(inArray(calls.organizationId, organizationIds));
    },

    /**
     * Removes the user and the organisations only they belonged to in one transaction; every
     * product table references its organisation with ON DELETE CASCADE, so all goes or nothing.
     */
    async deleteUser(userId: string, organizationIds: string[]): Promise<"deleted" | "gone" | { lastOwnerOf: string }> {
      return db.transaction(async (tx) => {
        // The other teams this user owns: under the owners' lock, another owner must still be
        // there (one may have stepped down since the check), or nothing is deleted.
        const owned = await tx
          .select({ id: member.organizationId })
          .from(member)
          .where(and(eq(member.userId, userId), eq(member.role, "owner")));
        for (const { id } of owned.filter((o) => !organizationIds.includes(o.id)).sort((a, b) => a.id.localeCompare(b.id))) {
          await lockOrganization(tx as unknown as Db, id, OWNERS_LOCK);
          const [row] = await tx
            .select({ name: organization.name, owners: sql<number>`(SELECT count(*)::int FROM ${member} m WHERE m.organization_id = ${id} AND m.role = 'owner')` })
            .from(organization)
            .where(eq(organization.id, id));
          if (row && row.owners <= 1) return { lastOwnerOf: row.name };
        }
        if (organizationIds.length) await tx.delete(organization).where(inArray(organization.id, organizationIds));
        const rows = await tx.delete(user).where(eq(user.id, userId)).returning({ id: user.id });
        return rows.length > 0 ? "deleted" : "gone";
      });
    },
  };
}
