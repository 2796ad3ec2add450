import { z } from "zod";
import { pageOf } from "./pages.js";
import { roleSchema } from "./roles.js";
import { NOT_BLANK } from "./wire-formats.js";
import { EXAMPLE_INVITATION_TOKEN, withExamples } from "./examples.js";

/** An invitation link works this long (spec: 7 days). */
export const INVITATION_TTL_MS = 7 * 24 * 60 * 60 * 1000;

export const TEAM_MESSAGES = {
  memberNotFound: "Member not found",
  invitationNotFound: "Invitation not found",
  lastOwner: "An organisation needs an owner: make another member an owner first.",
  ownerOnly: "Only owners can make or change owners.",
  alreadyMember: "This person is already a member.",
  alreadyInvited: "This address already has a pending invitation.",
  invitationInvalid: "This invitation link is not valid. Ask for a new one.",
  invitationExpired: "This invitation has expired. Ask for a new one.",
  invitationOtherEmail: "This invitation is for another e-mail address. Sign in with that address.",
  invited: "Invitation sent",
  invitedNoMail: "Invitation created: copy the link and send it",
  linkCopied: "Link copied",
  roleChanged: "Role changed",
  memberRemoved: "Member removed",
  invitationRevoked: "Invitation revoked",
  organizationRenamed: "Organisation renamed",
  switched: "Switched organisation",
  nameRequired: "Name is required",
  signupClosed: "Sign-up on this server is by invitation only.",
  signupDomain: "Sign-up on this server is open to its organisation's e-mail addresses only.",
  // The web app's titles for a refusal (the server's message is the toast's description).
  renameFailed: "Could not rename the organisation",
  changeRoleFailed: "Could not change the role",
  removeFailed: "Could not remove the member",
  revokeFailed: "Could not revoke the invitation",
  inviteFailed: "Could not invite",
  switchFailed: "Could not switch organisation",
  acceptFailed: "Could not join the team",
  joined: "You joined the team",
  /** Signed up through an invitation and not in a team yet: every page but the invitation's waits. */
  invitationPending: "Accept your invitation first: open the link you were sent, signed in with the invited address.",
  /** The /invite page: the address the invitation is for, and what to do when signed in as someone else. */
  invitedAddress: (email: string) => `This invitation is for ${email}.`,
  signedInAs: (email: string) => `Signed in as ${email}.`,
  wrongAccount: (signedIn: string, invited: string) =>
    `You are signed in as ${signedIn}, but this invitation is for ${invited}. Sign out and log in or sign up with ${invited} to accept it.`,
  signOutToAccept: "Sign out and switch account",
  invitePrompt: "You are invited to join a team on Switchboard.",
  inviteSignInPrompt: "Log in or create an account with the invited e-mail address to accept.",
} as const;

export const inviteSchema = withExamples(
  z.object({
    email: z.email("Please enter a valid email address").max(320).transform((e) => e.toLowerCase()),
    role: roleSchema,
  }),
  { email: "sam@example.com", role: "builder" },
);
export type InviteInput = z.infer<typeof inviteSchema>;

export const changeRoleSchema = withExamples(
  z.object({ role: roleSchema }),
  { role: "supervisor" },
);
export const acceptInvitationSchema = withExamples(
  z.object({ token: z.string().min(1, TEAM_MESSAGES.invitationInvalid).max(200) }),
  { token: EXAMPLE_INVITATION_TOKEN },
);
export const renameOrganizationSchema = withExamples(
  z.object({
    name: z.string({ error: TEAM_MESSAGES.nameRequired }).trim().min(1, { error: TEAM_MESSAGES.nameRequired, abort: true }).regex(NOT_BLANK, TEAM_MESSAGES.nameRequired).max(100, "Name must be at most 100 characters"),
  }),
  { name: "Maple Street Clinic" },
);

export const organizationItemSchema = z.object({ id: z.string(), name: z.string(), role: roleSchema, current: z.boolean() });
export type OrganizationItem = z.infer<typeof organizationItemSchema>;
/** The user's organisations, by name. */
export const organizationItemPageSchema = pageOf(organizationItemSchema);

export const teamMemberSchema = z.object({ user_id: z.string(), name: z.string(), email: z.string(), role: roleSchema, joined_at: z.string() });
export type TeamMember = z.infer<typeof teamMemberSchema>;
/** Members, oldest first (as they joined). */
export const teamMemberPageSchema = pageOf(teamMemberSchema);

export const teamInvitationSchema = z.object({
  id: z.string(),
  email: z.string(),
  role: roleSchema,
  invited_by: z.string().nullable(),
  expires_at: z.string(),
  created_at: z.string(),
});
export type TeamInvitation = z.infer<typeof teamInvitationSchema>;
/** Invitations still waiting, newest first. */
export const teamInvitationPageSchema = pageOf(teamInvitationSchema);

/** `POST /api/team/invitations`: the link is shown once, to copy when no e-mail was sent. */
export const createdInvitationSchema = z.object({ id: z.string(), url: z.string(), expires_at: z.string(), emailed: z.boolean() });
export type CreatedInvitation = z.infer<typeof createdInvitationSchema>;

/** `GET /api/invitations/preview?token=`: what a link invites to, readable before signing in. */
export const invitationPreviewSchema = z.object({ organization: z.string(), email: z.string(), role: roleSchema, expires_at: z.string() });
export type InvitationPreview = z.infer<typeof invitationPreviewSchema>;

/** What the app needs about who is working where (the sidebar, and what to hide). */
export const currentMembershipSchema = z.object({ organization: z.object({ id: z.string(), name: z.string() }), role: roleSchema });
export type CurrentMembership = z.infer<typeof currentMembershipSchema>;

/** `SIGNUP`: who may create an account on this server. */
export const SIGNUP_MODES = ["open", "invite", "domain"] as const;
export type SignupPolicy = { mode: "open" } | { mode: "invite" } | { mode: "domain"; domains: string[] };
