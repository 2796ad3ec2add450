import { randomUUID } from "node:crypto";
import { and, asc, count, desc, eq, gt, sql } from "drizzle-orm";
import type { Page, PageQuery } from "../../../shared/pages.ts";
import type { Role } from "../../../shared/roles.ts";
import type { Db } from "../../db/client.ts";
import { keysetPage, keysetQuery, type KeysetOrder } from "../../db/keyset.ts";
import { OWNERS_LOCK, withOrganizationLock } from "../../db/organization-lock.ts";
import { invitation, member, organization, session, user } from "../../db/schema.ts";

/** A user's organisations by name (ties by id), as the switcher lists them. */
const BY_ORGANIZATION_NAME: KeysetOrder = {
  parts: [
    { column: organization.name, kind: "text" },
    { column: organization.id, kind: "text" },
  ],
  desc: false,
};
/** Members oldest first, as they joined; better-auth's ids are text, not uuids. */
const BY_JOINING: KeysetOrder = {
  parts: [
    { column: member.createdAt, kind: "timestamp" },
    { column: member.id, kind: "text" },
  ],
  desc: false,
};
/** Invitations newest first. */
const NEWEST_INVITATION: KeysetOrder = {
  parts: [
    { column: invitation.createdAt, kind: "timestamp" },
    { column: invitation.id, kind: "text" },
  ],
  desc: true,
};

export interface Membership {
  organizationId: string;
  organizationName: string;
  role: Role;
}

/** SQL of organisations, members and invitations; every query names the organisation or the user. */
export function createTeamRepo(db: Db) {
  return {
    /**
     * The team a new user owns. It takes the user's id (as the migration gave every existing
     * user's team), so a user's first organisation is found without a lookup table.
     */
    async createPersonal(userId: string, name: string): Promise<void> {
      const id = (await db.select({ id: organization.id }).from(organization).where(eq(organization.id, userId))).length ? randomUUID() : userId;
      await db.transaction(async (tx) => {
        await tx.insert(organization).values({ id, name: `${name}'s team`, slug: id });
        await tx.insert(member).values({ id: randomUUID(), organizationId: id, userId, role: "owner" });
      });
    },

    /** The user's membership in `preferred` if they have one, else in their oldest organisation. */
    async membership(userId: string, preferred: string | null): Promise<Membership | null> {
      const [row] = await db
        .select({ organizationId: member.organizationId, organizationName: organization.name, role: member.role })
        .from(member)
        .innerJoin(organization, eq(organization.id, member.organizationId))
        .where(eq(member.userId, userId))
        .orderBy(desc(sql`${member.organizationId} = ${preferred ?? ""}`), asc(member.createdAt))
        .limit(1);
      return row ?? null;
    },

    async organizationIds(userId: string): Promise<string[]> {
      const rows = await db.select({ id: member.organizationId }).from(member).where(eq(member.userId, userId));
      return rows.map((r) => r.id);
    },

    /** A page of the user's memberships, by organisation name. */
    async pageMemberships(userId: string, query: PageQuery): Promise<Page<Membership>> {
      const q = keysetQuery(BY_ORGANIZATION_NAME, query);
      const rows = await db
        .select({ organizationId: member.organizationId, organizationName: organization.name, role: member.role, page_key: q.key })
        .from(member)
        .innerJoin(organization, eq(organization.id, member.organizationId))
        .where(and(eq(member.userId, userId), q.after))
        .orderBy(...q.orderBy)
        .limit(q.limit);
      return keysetPage(rows, query.limit);
    },

    async setActive(sessionId: string, organizationId: string): Promise<void> {
      await db.update(session).set({ activeOrganizationId: organizationId }).where(eq(session.id, sessionId));
    },

    async rename(organizationId: string, name: string): Promise<void> {
      await db.update(organization).set({ name }).where(eq(organization.id, organizationId));
    },

    /** A page of the organisation's members, oldest first. */
    async pageMembers(organizationId: string, query: PageQuery) {
      const q = keysetQuery(BY_JOINING, query);
      const rows = await db
        .select({ userId: member.userId, name: user.name, email: user.email, role: member.role, createdAt: member.createdAt, page_key: q.key })
        .from(member)
        .innerJoin(user, eq(user.id, member.userId))
        .where(and(eq(member.organizationId, organizationId), q.after))
        .orderBy(...q.orderBy)
        .limit(q.limit);
      return keysetPage(rows, query.limit);
    },

    async roleOf(organizationId: string, userId: string): Promise<Role | null> {
      const [row] = await db.select({ role: member.role }).from(member).where(and(eq(member.organizationId, organizationId), eq(member.userId, userId)));
      return row?.role ?? null;
    },

    /**
     * Sets the member's role (`null` removes them), unless that leaves the organisation without an
     * owner: the owners are counted and the change written under one lock, so two owners stepping
     * down at the same moment cannot both pass the count. "gone" when the member is not there.
     */
    async changeMember(organizationId: string, userId: string, role: Role | null): Promise<"done" | "last_owner" | "gone"> {
      return withOrganizationLock(db, organizationId, OWNERS_LOCK, async (tx) => {
        const mine = and(eq(member.organizationId, organizationId), eq(member.userId, userId));
        const [current] = await tx.select({ role: member.role }).from(member).where(mine);
        if (!current) return "gone";
        if (current.role === "owner" && role !== "owner") {
          const [owners] = await tx.select({ n: count() }).from(member).where(and(eq(member.organizationId, organizationId), eq(member.role, "owner")));
          if ((owners?.n ?? 0) <= 1) return "last_owner";
        }
        if (role) await tx.update(member).set({ role }).where(mine);
        else await tx.delete(member).where(mine);
        return "done";
      });
    },

    async isMemberByEmail(organizationId: string, email: string): Promise<boolean> {
      const rows = await db
        .select({ id: member.id })
        .from(member)
        .innerJoin(user, eq(user.id, member.userId))
        .where(and(eq(member.organizationId, organizationId), sql`lower(${user.email}) = ${email}`));
      return rows.length > 0;
    },

    /** A page of the organisation's invitations still waiting, newest first. */
    async pagePendingInvitations(organizationId: string, now: Date, query: PageQuery) {
      const q = keysetQuery(NEWEST_INVITATION, query);
      const rows = await db
        .select({
          id: invitation.id,
          email: invitation.email,
          role: invitation.role,
          invitedBy: user.name,
          expiresAt: invitation.expiresAt,
          createdAt: invitation.createdAt,
          page_key: q.key,
        })
        .from(invitation)
        .leftJoin(user, eq(user.id, invitation.inviterId))
        .where(and(eq(invitation.organizationId, organizationId), eq(invitation.status, "pending"), gt(invitation.expiresAt, now), q.after))
        .orderBy(...q.orderBy)
        .limit(q.limit);
      return keysetPage(rows, query.limit);
    },

    async hasPendingInvitation(organizationId: string, email: string, now: Date): Promise<boolean> {
      const rows = await db
        .select({ id: invitation.id })
        .from(invitation)
        .where(and(eq(invitation.organizationId, organizationId), eq(invitation.email, email), eq(invitation.status, "pending"), gt(invitation.expiresAt, now)));
      return rows.length > 0;
    },

    /** Any organisation's pending invitation for the address (the `invite` sign-up policy). */
    async invitedAnywhere(email: string, now: Date): Promise<boolean> {
      const rows = await db
        .select({ id: invitation.id })
        .from(invitation)
        .where(and(eq(invitation.email, email.toLowerCase()), eq(invitation.status, "pending"), gt(invitation.expiresAt, now)))
        .limit(1);
      return rows.length > 0;
    },

    async insertInvitation(values: { id: string; organizationId: string; email: string; role: Role; inviterId: string | null; expiresAt: Date }): Promise<void> {
      await db.insert(invitation).values(values);
    },

    async cancelInvitation(organizationId: string, id: string): Promise<boolean> {
      const rows = await db
        .update(invitation)
        .set({ status: "canceled" })
        .where(and(eq(invitation.organizationId, organizationId), eq(invitation.id, id), eq(invitation.status, "pending")))
        .returning({ id: invitation.id });
      return rows.length > 0;
    },

    async invitation(id: string) {
      const [row] = await db
        .select({
          id: invitation.id,
          email: invitation.email,
          role: invitation.role,
          status: invitation.status,
          expiresAt: invitation.expiresAt,
          organizationName: organization.name,
        })
        .from(invitation)
        .innerJoin(organization, eq(organization.id, invitation.organizationId))
        .where(eq(invitation.id, id));
      return row ?? null;
    },

    /** Marks the invitation used and adds the member, once: a second use finds it no longer pending. */
    async accept(id: string, userId: string): Promise<{ organizationId: string } | null> {
      return db.transaction(async (tx) => {
        const [used] = await tx
          .update(invitation)
          .set({ status: "accepted" })
          .where(and(eq(invitation.id, id), eq(invitation.status, "pending")))
          .returning({ organizationId: invitation.organizationId, role: invitation.role });
        if (!used) return null;
        await tx
          .insert(member)
          .values({ id: randomUUID(), organizationId: used.organizationId, userId, role: used.role })
          .onConflictDoNothing();
        return { organizationId: used.organizationId };
      });
    },

    async userCount(): Promise<number> {
      const [row] = await db.select({ n: count() }).from(user);
      return row?.n ?? 0;
    },
  };
}

export type TeamRepo = ReturnType<typeof createTeamRepo>;
