import { createHash, randomBytes } from "node:crypto";
import { INVITE_PATH } from "../../../shared/page-paths.ts";
import type { Page, PageQuery } from "../../../shared/pages.ts";
import type { Role } from "../../../shared/roles.ts";
import {
  INVITATION_TTL_MS,
  TEAM_MESSAGES,
  type CreatedInvitation,
  type CurrentMembership,
  type InvitationPreview,
  type InviteInput,
  type OrganizationItem,
  type SignupPolicy,
  type TeamInvitation,
  type TeamMember,
} from "../../../shared/team.ts";
import type { Mailer } from "../../auth/mailer.ts";
import type { Db } from "../../db/client.ts";
import { AppError } from "../../errors.ts";
import { mapPage } from "../../http/pages.ts";
import { createTeamRepo, type Membership } from "./team.repo.ts";

/** Who is acting: a signed-in member, or an API key for the member who made it (at their current role). */
export interface Actor {
  userId: string;
  organizationId: string;
  role: Role;
  via: "session" | "api_key";
}

export interface TeamService {
  /**
   * The sign-up hook: a new user owns a team of their own, unless an invitation waits for their
   * address: they came to join that team, and an empty one of their own would only be in the way.
   */
  createPersonal(user: { id: string; name: string; email: string }): Promise<void>;
  /**
   * The organisation a session works in: its chosen one while still a member, else the oldest.
   * null for someone in no organisation whom an invitation still waits for (they accept it first).
   */
  resolve(user: { id: string; name: string; email: string }, session: { id: string; activeOrganizationId: string | null }): Promise<Membership | null>;
  /** A page of the organisations the user belongs to, `current` marked. */
  organizations(userId: string, current: string, query: PageQuery): Promise<Page<OrganizationItem>>;
  /** Every organisation the user belongs to (their sign-in is audited in each). */
  organizationIds(userId: string): Promise<string[]>;
  /** The actor's own membership: the organisation's name and the role acted with. */
  current(actor: Actor): Promise<CurrentMembership>;
  switchTo(userId: string, sessionId: string, organizationId: string): Promise<void>;
  rename(actor: Actor, name: string): Promise<void>;
  members(actor: Actor, query: PageQuery): Promise<Page<TeamMember>>;
  changeRole(actor: Actor, userId: string, role: Role): Promise<void>;
  removeMember(actor: Actor, userId: string): Promise<void>;
  invitations(actor: Actor, query: PageQuery): Promise<Page<TeamInvitation>>;
  invite(actor: Actor, input: InviteInput): Promise<CreatedInvitation>;
  revokeInvitation(actor: Actor, id: string): Promise<void>;
  accept(user: { id: string; email: string }, sessionId: string, token: string): Promise<{ organization_id: string }>;
  /** What an invitation link is for, shown before signing in (the token is the secret). */
  preview(token: string): Promise<InvitationPreview>;
  /** Whether `email` may create an account under `policy` (the first user of a server always may). */
  maySignUp(policy: SignupPolicy, email: string): Promise<boolean>;
}

export interface TeamServiceDeps {
  db: Db;
  publicUrl: string;
  mailer?: Mailer;
  clock: () => Date;
}

const forbidden = (message: string) => new AppError(403, "forbidden", message);
const tokenId = (token: string) => createHash("sha256").update(token).digest("hex");

export function createTeamService({ db, publicUrl, mailer, clock }: TeamServiceDeps): TeamService {
  const repo = createTeamRepo(db);

  async function memberOr404(organizationId: string, userId: string): Promise<Role> {
    const role = await repo.roleOf(organizationId, userId);
    if (!role) throw new AppError(404, "not_found", TEAM_MESSAGES.memberNotFound);
    return role;
  }

  /** Owners alone make, unmake or remove owners; the last owner stays (checked in the same step as the write). */
  async function changeMember(actor: Actor, userId: string, current: Role, next: Role | null): Promise<void> {
    if ((current === "owner" || next === "owner") && actor.role !== "owner") throw forbidden(TEAM_MESSAGES.ownerOnly);
    const outcome = await repo.changeMember(actor.organizationId, userId, next);
    if (outcome === "last_owner") throw new AppError(409, "last_owner", TEAM_MESSAGES.lastOwner);
    if (outcome === "gone") throw new AppError(404, "not_found", TEAM_MESSAGES.memberNotFound);
  }

  /** A pending, unexpired invitation by its link's token. */
  async function usable(token: string) {
    const found = await repo.invitation(tokenId(token));
    if (!found || found.status !== "pending") throw new AppError(404, "invitation_invalid", TEAM_MESSAGES.invitationInvalid);
    if (found.expiresAt <= clock()) throw new AppError(410, "invitation_expired", TEAM_MESSAGES.invitationExpired);
    return found;
  }

  return {
    async createPersonal(user) {
      if (!(await repo.invitedAnywhere(user.email, clock()))) await repo.createPersonal(user.id, user.name);
    },

    async resolve(user, session) {
      let found = await repo.membership(user.id, session.activeOrganizationId);
      if (!found) {
        if (await repo.invitedAnywhere(user.email, clock())) return null;
        // Removed from every organisation (or their own was deleted), or the invitation they
        // signed up for is gone: a new team of their own.
        await repo.createPersonal(user.id, user.name);
        found = await repo.membership(user.id, null);
      }
      if (!found) throw new Error("no organisation after creating one");
      if (found.organizationId !== session.activeOrganizationId && session.id) await repo.setActive(session.id, found.organizationId);
      return found;
    },

    async organizations(userId, current, query) {
      return mapPage(await repo.pageMemberships(userId, query), (rows) =>
        rows.map((r) => ({ id: r.organizationId, name: r.organizationName, role: r.role, current: r.organizationId === current })),
      );
    },

    organizationIds: (userId) => repo.organizationIds(userId),

    async current(actor) {
      const found = await repo.membership(actor.userId, actor.organizationId);
      const name = found?.organizationId === actor.organizationId ? found.organizationName : "";
      return { organization: { id: actor.organizationId, name }, role: actor.role };
    },

    async switchTo(userId, sessionId, organizationId) {
      if (!(await repo.roleOf(organizationId, userId))) throw new AppError(404, "not_found", "Organisation not found");
      await repo.setActive(sessionId, organizationId);
    },

    rename: (actor, name) => repo.rename(actor.organizationId, name),

    async members(actor, query) {
      return mapPage(await repo.pageMembers(actor.organizationId, query), (rows) =>
        rows.map((r) => ({ user_id: r.userId, name: r.name, email: r.email, role: r.role, joined_at: r.createdAt.toISOString() })),
      );
    },

    async changeRole(actor, userId, role) {
      const current = await memberOr404(actor.organizationId, userId);
      if (current === role) return;
      await changeMember(actor, userId, current, role);
    },

    async removeMember(actor, userId) {
      const current = await memberOr404(actor.organizationId, userId);
      await changeMember(actor, userId, current, null);
    },

    async invitations(actor, query) {
      return mapPage(await repo.pagePendingInvitations(actor.organizationId, clock(), query), (rows) =>
        rows.map((r) => ({
        id: r.id,
        email: r.email,
        role: r.role,
        invited_by: r.invitedBy,
        expires_at: r.expiresAt.toISOString(),
          created_at: r.createdAt.toISOString(),
        })),
      );
    },

    async invite(actor, input) {
      if (input.role === "owner" && actor.role !== "owner") throw forbidden(TEAM_MESSAGES.ownerOnly);
      if (await repo.isMemberByEmail(actor.organizationId, input.email)) throw new AppError(409, "already_member", TEAM_MESSAGES.alreadyMember);
      const now = clock();
      if (await repo.hasPendingInvitation(actor.organizationId, input.email, now)) throw new AppError(409, "already_invited", TEAM_MESSAGES.alreadyInvited);
      // The link carries the token; only its hash is stored (as the invitation's id).
      const token = randomBytes(32).toString("base64url");
      const id = tokenId(token);
      const expiresAt = new Date(now.getTime() + INVITATION_TTL_MS);
      await repo.insertInvitation({ id, organizationId: actor.organizationId, email: input.email, role: input.role, inviterId: actor.userId, expiresAt });
      const url = `${publicUrl.replace(/\/$/, "")}${INVITE_PATH}?token=${token}`;
      let emailed = false;
      if (mailer) {
        const team = (await repo.membership(actor.userId, actor.organizationId))?.organizationName ?? "a team";
        await mailer.send({
          to: input.email,
          subject: "You are invited to a Switchboard team",
          text: `Hello,\n\nYou are invited to join ${team} on Switchboard as ${input.role}. To accept, open:\n${url}\n\nThe link works for 7 days, once, and only for this address.\n`,
        });
        emailed = true;
      }
      return { id, url, expires_at: expiresAt.toISOString(), emailed };
    },

    async revokeInvitation(actor, id) {
      if (!(await repo.cancelInvitation(actor.organizationId, id))) throw new AppError(404, "not_found", TEAM_MESSAGES.invitationNotFound);
    },

    async preview(token) {
      const found = await usable(token);
      return { organization: found.organizationName, email: found.email, role: found.role, expires_at: found.expiresAt.toISOString() };
    },

    async accept(user, sessionId, token) {
      const found = await usable(token);
      if (found.email !== user.email.toLowerCase()) throw new AppError(403, "invitation_other_email", TEAM_MESSAGES.invitationOtherEmail);
      const joined = await repo.accept(found.id, user.id);
      if (!joined) throw new AppError(404, "invitation_invalid", TEAM_MESSAGES.invitationInvalid);
      if (sessionId) await repo.setActive(sessionId, joined.organizationId);
      return { organization_id: joined.organizationId };
    },

    async maySignUp(policy, email) {
      if (policy.mode === "open" || (await repo.userCount()) === 0) return true;
      if (await repo.invitedAnywhere(email, clock())) return true;
      if (policy.mode === "domain") return policy.domains.includes(email.split("@").pop()!.toLowerCase());
      return false;
    },
  };
}
