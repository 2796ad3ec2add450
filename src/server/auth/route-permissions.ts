/**
 * Who may call each authenticated route: one table, read whole when a role's powers are in
 * question. `requireUser` refuses a request whose role lacks the route's permission (403 in the
 * words of src/shared/roles.ts), sockets included (their upgrade is a GET). An authenticated route
 * missing here stops the server at start-up, so none is left open by omission. An API key is
 * refused the people-only permissions whatever its creator's role (`keyMay` in src/shared/roles.ts):
 * the team, API keys, webhook secrets, a person's own account.
 */
import type { Permission } from "../../shared/roles.ts";

export const ROUTE_PERMISSIONS: Readonly<Record<string, Permission>> = {
  // Assistants, their versions, tools, test calls
  "GET /api/assistants/defaults": "read",
  "GET /api/getting-started": "read",
  "GET /api/assistants": "read",
  "GET /api/assistants/:id": "read",
  "POST /api/assistants": "build",
  "PATCH /api/assistants/:id": "build",
  "DELETE /api/assistants/:id": "build",
  "GET /api/assistants/drafts": "read",
  "GET /api/assistants/:id/versions": "read",
  "GET /api/assistants/:id/versions/:n": "read",
  "POST /api/assistants/:id/publish": "build",
  "POST /api/assistants/:id/rollback": "build",
  "GET /api/assistants/:id/scenarios": "read",
  "POST /api/assistants/:id/scenarios": "build",
  "PATCH /api/assistants/:id/scenarios/:sid": "build",
  "DELETE /api/assistants/:id/scenarios/:sid": "build",
  "POST /api/assistants/:id/test-runs": "build",
  "GET /api/assistants/:id/test-runs/latest": "read",
  "GET /api/test-runs/:id": "read",
  "POST /api/test-runs/:id/cancel": "build",
  "GET /api/tools": "read",
  "GET /api/tools/:id": "read",
  "POST /api/tools": "build",
  "PATCH /api/tools/:id": "build",
  "DELETE /api/tools/:id": "build",
  "POST /api/tools/:id/execute": "build",
  "GET /api/knowledge-bases/status": "read",
  "GET /api/knowledge-bases": "read",
  "GET /api/knowledge-bases/:id": "read",
  "POST /api/knowledge-bases": "build",
  "PATCH /api/knowledge-bases/:id": "build",
  "DELETE /api/knowledge-bases/:id": "build",
  "GET /api/knowledge-bases/:id/documents": "read",
  "POST /api/knowledge-bases/:id/documents": "build",
  "PUT /api/knowledge-bases/:id/documents/:docId": "build",
  "POST /api/knowledge-bases/:id/documents/:docId/reprocess": "build",
  "DELETE /api/knowledge-bases/:id/documents/:docId": "build",
  // The same search a call runs; reading, so viewers may try it too.
  "POST /api/knowledge-bases/:id/search": "read",
  "POST /api/calls/test-session": "build",
  "GET /api/calls/live": "build",

  // Calls, recordings, analysis, the live board
  "GET /api/calls": "read",
  "GET /api/calls/stats": "read",
  "GET /api/calls/:id": "read",
  "GET /api/calls/export.csv": "supervise",
  "GET /api/calls/:id/recording": "supervise",
  "DELETE /api/calls/:id": "deleteCalls",
  "POST /api/calls/:id/analysis": "supervise",
  "POST /api/assistants/:id/analysis-runs": "supervise",
  // Replaying a call tries the draft (like a test call), on the organisation's key.
  "POST /api/calls/:id/replay": "build",
  "POST /api/calls/:id/scenario": "build",
  "GET /api/assistants/:id/analysis-runs/latest": "read",
  "GET /api/assistants/:id/analysis-runs/:runId": "read",
  "GET /api/live/board": "supervise",
  "GET /api/live/calls/:callId": "supervise",

  // Outbound calls and campaigns
  "POST /api/calls/outbound": "build",
  // Whoever may place a call may stop it before it is answered.
  "POST /api/calls/:id/cancel": "build",
  "GET /api/campaigns": "read",
  "GET /api/campaigns/:id": "read",
  "GET /api/campaigns/:id/contacts": "read",
  // A download of the contacts (phones and variables) is an export, as the calls' is.
  "GET /api/campaigns/:id/contacts.csv": "supervise",
  "POST /api/campaigns": "build",
  "POST /api/campaigns/:id/:action": "build",
  "PUT /api/campaigns/:id/contacts": "build",
  "GET /api/dnc": "read",
  "POST /api/dnc": "build",
  "DELETE /api/dnc/:phone": "build",

  // Phone numbers: linking is building, buying and releasing cost money
  "GET /api/phone-numbers": "read",
  "GET /api/telephony/reachability": "read",
  "POST /api/phone-numbers": "numbers",
  "PATCH /api/phone-numbers/:id": "build",
  "DELETE /api/phone-numbers/:id": "numbers",
  // SIP trunks: configuration of the way calls come in, like linking numbers
  "GET /api/sip-trunks": "read",
  "GET /api/sip-trunks/listener": "read",
  "GET /api/sip-trunks/:id": "read",
  "POST /api/sip-trunks": "build",
  "PATCH /api/sip-trunks/:id": "build",
  "DELETE /api/sip-trunks/:id": "build",

  // The organisation's settings
  "GET /api/credentials/:name": "credentials",
  "PUT /api/credentials/:name": "credentials",
  "PUT /api/credentials/twilio": "credentials",
  "DELETE /api/credentials/:name": "credentials",
  // Providers: builders read them to pick an assistant's pipeline; keys are managed like credentials.
  "GET /api/providers": "read",
  "GET /api/providers/:id": "read",
  "POST /api/providers": "credentials",
  "PATCH /api/providers/:id": "credentials",
  "DELETE /api/providers/:id": "credentials",
  "POST /api/providers/:id/preview": "build",
  "GET /api/settings/retention": "read",
  "PUT /api/settings/retention": "settings",
  "GET /api/settings/calls": "read",
  "PUT /api/settings/calls": "settings",
  "GET /api/settings/dial-allow-list": "read",
  "PUT /api/settings/dial-allow-list": "settings",
  "GET /api/settings/busy-message": "read",
  "PUT /api/settings/busy-message": "settings",
  "GET /api/webhooks": "webhooks",
  "GET /api/webhooks/:id": "webhooks",
  "GET /api/webhooks/:id/deliveries": "webhooks",
  "POST /api/webhooks": "webhooks",
  "PATCH /api/webhooks/:id": "webhooks",
  "DELETE /api/webhooks/:id": "webhooks",
  "POST /api/webhooks/:id/rotate": "webhookSecrets",
  "POST /api/webhooks/:id/test": "webhooks",
  "POST /api/webhooks/deliveries/:id/resend": "webhooks",
  "GET /api/api-keys": "apiKeys",
  "POST /api/api-keys": "apiKeys",
  "DELETE /api/api-keys/:id": "apiKeys",

  // The team
  "GET /api/organizations": "account",
  "POST /api/organizations/:id/switch": "account",
  "GET /api/organization": "read",
  "PATCH /api/organization": "team",
  "GET /api/team/members": "read",
  "PATCH /api/team/members/:userId": "team",
  "DELETE /api/team/members/:userId": "team",
  "GET /api/team/invitations": "team",
  "POST /api/team/invitations": "team",
  "DELETE /api/team/invitations/:id": "team",
  "POST /api/team/invitations/accept": "account",
  "GET /api/audit-log": "audit",
  "GET /api/audit-log.csv": "audit",

  // One's own account (every member has one; a key has none)
  "GET /api/account": "account",
  "PATCH /api/account/name": "account",
  "POST /api/account/password": "account",
  "DELETE /api/account": "account",
  "GET /api/demo-requests": "account",
};

/**
 * What someone in no organisation yet may do while an invitation waits for them (they signed up
 * to join a team and have none of their own): accept it. Everything else says to accept it first.
 */
export const BEFORE_JOINING: ReadonlySet<string> = new Set(["POST /api/team/invitations/accept"]);

/** The permission of a route by its method and URL pattern (HEAD is its GET). */
export function permissionOf(method: string, url: string): Permission | undefined {
  return ROUTE_PERMISSIONS[`${method === "HEAD" ? "GET" : method} ${url}`];
}
