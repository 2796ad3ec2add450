import type { CredentialName } from "@shared/credentials";

/**
 * Every React Query key of the client, in one place: several pages read the same data (the
 * assistants list feeds the Assistants page, the phone-number dialog and the calls filter), so a
 * change made on one page must invalidate the key the others read.
 */
export const queryKeys = {
  session: ["session"],
  accountOptions: ["account-options"],
  account: ["account"],
  assistants: ["assistants"],
  /** Each assistant's draft against what callers hear (under "assistants": saving one changes it). */
  drafts: ["assistants", "drafts"],
  assistantDefaults: ["assistant-defaults"],
  tools: ["tools"],
  /** Knowledge bases (the Knowledge page and the assistant form's picker), each base's documents, and whether search is by meaning. */
  knowledgeBases: ["knowledge-bases"],
  knowledgeDocuments: (baseId: string) => ["knowledge-bases", baseId, "documents"] as const,
  knowledgeStatus: ["knowledge-bases", "status"],
  calls: ["calls"],
  phoneNumbers: ["phone-numbers"],
  sipTrunks: ["sip-trunks"],
  providers: ["providers"],
  sipListener: ["sip-trunks", "listener"],
  retention: ["settings", "retention"],
  /** An assistant's published versions (its History panel); publishing also changes what numbers run. */
  versions: (assistantId: string) => ["assistants", assistantId, "versions"] as const,
  version: (assistantId: string, n: number) => ["assistants", assistantId, "versions", n] as const,
  /** An assistant's test scenarios and its latest test run (the Tests tab; publishing starts a run too; "Save as test" and live calls' suggestions add scenarios). */
  scenarios: (assistantId: string) => ["assistants", assistantId, "scenarios"] as const,
  latestTestRun: (assistantId: string) => ["assistants", assistantId, "test-runs", "latest"] as const,
  testRun: (runId: string) => ["test-runs", runId] as const,
  demoRequests: ["demo-requests"],
  reachability: ["telephony", "reachability"],
  webhooks: ["webhooks"],
  webhookDeliveries: (endpointId: string) => ["webhooks", endpointId, "deliveries"] as const,
  apiKeys: ["api-keys"],
  /** The organisation the session works in and the role there (GET /api/organization). */
  organization: ["organization"],
  teamMembers: ["team", "members"],
  /** The audit log, per filter set; any change elsewhere may add an entry, so it is read fresh. */
  auditLog: (filters: Record<string, string>) => ["audit-log", filters] as const,
  credential: (name: CredentialName) => ["credentials", name] as const,
  /** Every organisation of the signed-in person (the sidebar's switcher). */
  organizations: ["organizations"],
  /** What an invitation link invites to (GET /api/invitations/preview), per token. */
  invitationPreview: (token: string) => ["invitation-preview", token] as const,
  teamInvitations: ["team", "invitations"],
  /** The Assistants page's checklist: ticked from data other pages change, so read fresh on each visit. */
  gettingStarted: ["getting-started"],
  /** Campaigns: the list and each one (counts move while it runs), and its contacts. */
  campaigns: ["campaigns"],
  campaign: (id: string) => ["campaigns", id] as const,
  campaignContacts: (id: string) => ["campaigns", id, "contacts"] as const,
  /** Settings → Calls (the outbound limit) and the do-not-call list. */
  callSettings: ["settings", "calls"],
  /** Settings → Calls → Allowed destinations (the Create Campaign preview applies it too). */
  dialAllowList: ["settings", "dial-allow-list"],
  busyMessage: ["settings", "busy-message"],
  doNotCall: ["do-not-call"],
} as const;
