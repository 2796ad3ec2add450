import { z } from "zod";

/** Organisation roles, highest first; each can do all that the roles after it can. */
export const ROLES = ["owner", "admin", "builder", "supervisor", "viewer"] as const;
export type Role = (typeof ROLES)[number];
export const roleSchema = z.enum(ROLES, { error: "Choose a role." });

export const ROLE_LABELS: Record<Role, string> = {
  owner: "Owner",
  admin: "Admin",
  builder: "Builder",
  supervisor: "Supervisor",
  viewer: "Viewer",
};

export const ROLE_DESCRIPTIONS: Record<Role, string> = {
  owner: "Everything, including deleting the organisation and transferring ownership",
  admin: "Everything but that: members, credentials, API keys, webhooks, retention",
  builder: "Assistants, tools, phone numbers (buy/release needs Admin), test calls, tests, campaigns",
  supervisor: "The live board (listen, guide, take over, end), calls and their recordings, analysis",
  viewer: "Read-only: assistants, calls, stats",
};

/** Said when the app learns that the signed-in person's role changed while a page was open. */
export const ROLE_CHANGE_TEXTS = {
  changed: (role: Role) => `Your role is now ${ROLE_LABELS[role]}. The pages show what it allows.`,
} as const;

const RANK: Record<Role, number> = { viewer: 0, supervisor: 1, builder: 2, admin: 3, owner: 4 };

/** Whether `role` includes everything `needed` can do. */
export const roleAtLeast = (role: Role, needed: Role): boolean => RANK[role] >= RANK[needed];

/**
 * What a request or socket needs, by the lowest role that has it, with the words a refusal says.
 * Every authenticated route names one (src/server/auth/route-permissions.ts).
 */
export const PERMISSIONS = {
  /** Seeing the organisation's assistants, tools, numbers, calls and stats. */
  read: { role: "viewer", message: "You can't see this." },
  /** One's own account, organisations and invitations: every member has one, a key never. */
  account: { role: "viewer", message: "You can't see this." },
  supervise: { role: "supervisor", message: "Only supervisors can watch calls, play recordings and run analyses." },
  build: { role: "builder", message: "Only builders can change assistants, tools, phone numbers and campaigns." },
  numbers: { role: "admin", message: "Only admins can buy or release phone numbers." },
  credentials: { role: "admin", message: "Only admins can manage credentials." },
  apiKeys: { role: "admin", message: "Only admins can manage API keys." },
  webhooks: { role: "admin", message: "Only admins can manage webhooks." },
  webhookSecrets: { role: "admin", message: "Only admins can see or rotate webhook secrets." },
  settings: { role: "admin", message: "Only admins can change the organisation's settings." },
  deleteCalls: { role: "admin", message: "Only admins can delete calls." },
  team: { role: "admin", message: "Only admins can manage members." },
  audit: { role: "admin", message: "Only admins can see the audit log." },
  owner: { role: "owner", message: "Only owners can do this." },
} as const satisfies Record<string, { role: Role; message: string }>;
export type Permission = keyof typeof PERMISSIONS;

export const can = (role: Role, permission: Permission): boolean => roleAtLeast(role, PERMISSIONS[permission].role);

/**
 * What an API key may never do, whatever its creator's role: manage the team (members, roles,
 * invitations, ownership, the organisation), its keys and webhook secrets, or act on a person's
 * own account. A key leaked or left behind must not be able to make more people or keys.
 * `API_KEY_SCOPE` in api-keys.ts says this in words.
 */
const PEOPLE_ONLY: ReadonlySet<Permission> = new Set<Permission>(["account", "team", "apiKeys", "webhookSecrets", "owner"]);

/** Whether an API key may use a permission at all (its creator's role is checked beside it). */
export const keyMay = (permission: Permission): boolean => !PEOPLE_ONLY.has(permission);

export const INVITATION_STATUSES = ["pending", "accepted", "rejected", "canceled"] as const;
export type InvitationStatus = (typeof INVITATION_STATUSES)[number];
