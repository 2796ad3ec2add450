/**
 * Which authenticated HTTP requests the audit log records: one table, like
 * auth/route-permissions.ts, keyed by method and URL pattern. A request is recorded once it has
 * succeeded (status < 400), by the one hook in audit-hook.ts. Each rule says what the entry is
 * about; values come from the URL's parameters, the checked body or the answer — never a secret
 * (credential bodies and webhook secrets stay out of `details`).
 */
import type { AuditAction, AuditTargetType } from "../../../shared/audit.ts";
import type { CampaignAction } from "../../../shared/campaigns.ts";

/** What a rule may read of one request. */
export interface AuditSeen {
  params: Record<string, string>;
  body: Record<string, unknown>;
  query: Record<string, unknown>;
  /** The JSON answer, when there is one. */
  response: Record<string, unknown> | null;
  /** The organisation the request acted in, and the person who acted (null for an API key). */
  organizationId: string;
  userId: string | null;
}

type From = (seen: AuditSeen) => unknown;

export interface AuditRule {
  /** One action, or the one a request's parameters name (a campaign's start, pause, …). */
  action: AuditAction | ((seen: AuditSeen) => AuditAction);
  target: AuditTargetType;
  id?: From;
  name?: From;
  details?: (seen: AuditSeen) => Record<string, unknown>;
  /**
   * The target's name is read before the request runs (by the target type's resolver): a
   * deletion leaves nothing to read afterwards.
   */
  nameBefore?: boolean;
  /** The target is a member: named by the user's name. */
  member?: boolean;
  /** The entry belongs to another organisation than the request's (joining one). */
  organization?: From;
  /** Recorded only when answered with this status (a publish answering 202 has only started the draft's tests). */
  status?: number;
}

const param = (key: string): From => (s) => s.params[key];
const answer = (key: string): From => (s) => s.response?.[key];
const body = (key: string): From => (s) => s.body[key];
/** Which fields a change touched (not their values: prompts are long, some are secrets). */
const changedFields = (s: AuditSeen) => ({ fields: Object.keys(s.body).sort() });
const only =
  (...keys: string[]) =>
  (s: AuditSeen) =>
    Object.fromEntries(keys.filter((k) => s.body[k] !== undefined).map((k) => [k, s.body[k]]));

export const AUDITED_ROUTES: Readonly<Record<string, AuditRule>> = {
  // The organisation and its members
  "PATCH /api/organization": { action: "organization.renamed", target: "organization", id: (s) => s.organizationId, name: body("name") },
  "POST /api/team/invitations": { action: "member.invited", target: "invitation", id: answer("id"), name: body("email"), details: only("role") },
  "DELETE /api/team/invitations/:id": { action: "member.invitation_revoked", target: "invitation", id: param("id") },
  "POST /api/team/invitations/accept": { action: "member.joined", target: "member", organization: answer("organization_id"), id: (s) => s.userId, member: true },
  "PATCH /api/team/members/:userId": { action: "member.role_changed", target: "member", id: param("userId"), member: true, details: only("role") },
  "DELETE /api/team/members/:userId": { action: "member.removed", target: "member", id: param("userId"), member: true },

  // Assistants and tools
  "POST /api/assistants": { action: "assistant.created", target: "assistant", id: answer("id"), name: answer("name") },
  "PATCH /api/assistants/:id": { action: "assistant.updated", target: "assistant", id: param("id"), name: answer("name"), details: changedFields },
  "DELETE /api/assistants/:id": { action: "assistant.deleted", target: "assistant", id: param("id"), nameBefore: true },
  "POST /api/assistants/:id/publish": {
    action: "assistant.published",
    target: "assistant",
    id: param("id"),
    nameBefore: true,
    status: 201,
    details: (s) => ({ version: s.response?.version, note: s.response?.note ?? null, ...(s.response?.published_with_failures ? { with_failing_tests: true } : {}) }),
  },
  "POST /api/assistants/:id/rollback": {
    action: "assistant.rolled_back",
    target: "assistant",
    id: param("id"),
    nameBefore: true,
    details: (s) => ({ to_version: s.body.version, version: s.response?.version }),
  },
  "POST /api/tools": { action: "tool.created", target: "tool", id: answer("id"), name: answer("name") },
  "PATCH /api/tools/:id": { action: "tool.updated", target: "tool", id: param("id"), name: answer("name"), details: changedFields },
  "DELETE /api/tools/:id": { action: "tool.deleted", target: "tool", id: param("id"), nameBefore: true },

  // Knowledge bases and their documents
  "POST /api/knowledge-bases": { action: "knowledge_base.created", target: "knowledge_base", id: answer("id"), name: answer("name") },
  "PATCH /api/knowledge-bases/:id": { action: "knowledge_base.updated", target: "knowledge_base", id: param("id"), name: answer("name"), details: changedFields },
  "DELETE /api/knowledge-bases/:id": { action: "knowledge_base.deleted", target: "knowledge_base", id: param("id"), nameBefore: true },
  "POST /api/knowledge-bases/:id/documents": {
    action: "knowledge_document.added",
    target: "knowledge_document",
    id: answer("id"),
    name: answer("name"),
    details: (s) => ({ knowledge_base_id: s.params.id, source: s.response?.source }),
  },
  "PUT /api/knowledge-bases/:id/documents/:docId": { action: "knowledge_document.replaced", target: "knowledge_document", id: param("docId"), name: answer("name"), details: (s) => ({ knowledge_base_id: s.params.id }) },
  "POST /api/knowledge-bases/:id/documents/:docId/reprocess": { action: "knowledge_document.reprocessed", target: "knowledge_document", id: param("docId"), name: answer("name"), details: (s) => ({ knowledge_base_id: s.params.id }) },
  "DELETE /api/knowledge-bases/:id/documents/:docId": { action: "knowledge_document.deleted", target: "knowledge_document", id: param("docId"), nameBefore: true, details: (s) => ({ knowledge_base_id: s.params.id }) },

  // Phone numbers
  "POST /api/phone-numbers": {
    action: "phone_number.bought",
    target: "phone_number",
    id: answer("id"),
    name: answer("phone_number"),
    details: (s) => ({ assistant_id: s.body.assistant_id, ...(s.body.provider === "sip" ? { provider: "sip", sip_trunk_id: s.body.sip_trunk_id } : {}) }),
  },
  "PATCH /api/phone-numbers/:id": {
    action: "phone_number.relinked",
    target: "phone_number",
    id: param("id"),
    name: answer("phone_number"),
    details: only("assistant_id", "assistant_version"),
  },
  "DELETE /api/phone-numbers/:id": { action: "phone_number.released", target: "phone_number", id: param("id"), nameBefore: true },

  // SIP trunks (which fields changed, never a password)
  "POST /api/sip-trunks": { action: "sip_trunk.created", target: "sip_trunk", id: answer("id"), name: answer("name") },
  "PATCH /api/sip-trunks/:id": { action: "sip_trunk.updated", target: "sip_trunk", id: param("id"), name: answer("name"), details: changedFields },
  "DELETE /api/sip-trunks/:id": { action: "sip_trunk.deleted", target: "sip_trunk", id: param("id"), nameBefore: true },

  // The organisation's settings (which fields of a provider changed, never its key)
  "POST /api/providers": { action: "provider.created", target: "provider", id: answer("id"), name: answer("name"), details: only("kind", "protocol") },
  "PATCH /api/providers/:id": { action: "provider.updated", target: "provider", id: param("id"), name: answer("name"), details: changedFields },
  "DELETE /api/providers/:id": { action: "provider.deleted", target: "provider", id: param("id"), nameBefore: true },
  "PUT /api/credentials/twilio": { action: "credentials.changed", target: "credential", id: () => "twilio", name: () => "twilio" },
  "PUT /api/credentials/:name": { action: "credentials.changed", target: "credential", id: param("name"), name: param("name") },
  "DELETE /api/credentials/:name": { action: "credentials.removed", target: "credential", id: param("name"), name: param("name") },
  "POST /api/api-keys": { action: "api_key.created", target: "api_key", id: answer("id"), name: answer("name"), details: (s) => ({ prefix: s.response?.prefix }) },
  "DELETE /api/api-keys/:id": { action: "api_key.revoked", target: "api_key", id: param("id"), nameBefore: true },
  "POST /api/webhooks": { action: "webhook.created", target: "webhook", id: answer("id"), name: answer("url"), details: only("events", "enabled") },
  "PATCH /api/webhooks/:id": { action: "webhook.updated", target: "webhook", id: param("id"), name: answer("url"), details: only("url", "events", "enabled") },
  "DELETE /api/webhooks/:id": { action: "webhook.deleted", target: "webhook", id: param("id"), nameBefore: true },
  "POST /api/webhooks/:id/rotate": { action: "webhook.secret_rotated", target: "webhook", id: param("id"), name: answer("url") },
  "PUT /api/settings/retention": { action: "retention.changed", target: "settings", id: () => "retention", details: only("recordings_days", "calls_days") },
  "PUT /api/settings/calls": { action: "call_settings.changed", target: "settings", id: () => "calls", details: (s) => ({ ...s.body }) },
  "PUT /api/settings/busy-message": { action: "call_settings.changed", target: "settings", id: () => "calls", details: (s) => ({ ...s.body }) },

  // Calls and recordings
  "GET /api/calls/:id/recording": { action: "recording.played", target: "call", id: param("id") },
  "GET /api/calls/export.csv": { action: "calls.exported", target: "call", details: (s) => ({ filters: s.query }) },
  "DELETE /api/calls/:id": { action: "call.deleted", target: "call", id: param("id") },

  // Dialling: who placed a call, who started a campaign (the compliance record)
  "POST /api/calls/outbound": { action: "call.placed", target: "call", id: answer("id"), name: body("to"), details: only("assistant_id", "phone_number_id") },
  "POST /api/calls/:id/cancel": { action: "call.cancelled", target: "call", id: param("id") },
  "POST /api/campaigns": { action: "campaign.created", target: "campaign", id: answer("id"), name: body("name"), details: (s) => ({ contacts: (s.response?.contacts as { valid?: number } | undefined)?.valid ?? 0 }) },
  "PUT /api/campaigns/:id/contacts": { action: "campaign.contacts_replaced", target: "campaign", id: param("id"), details: (s) => ({ contacts: s.response?.valid }) },
  "POST /api/campaigns/:id/:action": { action: (s) => CAMPAIGN_AUDIT_ACTIONS[s.params.action as keyof typeof CAMPAIGN_AUDIT_ACTIONS], target: "campaign", id: param("id"), name: answer("name") },
  "POST /api/dnc": { action: "do_not_call.added", target: "do_not_call", details: (s) => ({ phones: s.body.phones ?? [s.body.phone] }) },
  "DELETE /api/dnc/:phone": { action: "do_not_call.removed", target: "do_not_call", id: param("phone"), name: param("phone") },

  // Tests
  "POST /api/assistants/:id/scenarios": { action: "scenario.created", target: "scenario", id: answer("id"), name: answer("name"), details: (s) => ({ assistant_id: s.params.id }) },
  "PATCH /api/assistants/:id/scenarios/:sid": { action: "scenario.updated", target: "scenario", id: param("sid"), name: answer("name"), details: changedFields },
  "DELETE /api/assistants/:id/scenarios/:sid": { action: "scenario.deleted", target: "scenario", id: param("sid"), details: (s) => ({ assistant_id: s.params.id }) },
  "POST /api/calls/:id/scenario": { action: "scenario.created", target: "scenario", id: answer("id"), name: answer("name"), details: (s) => ({ from_call: s.params.id }) },
  "POST /api/assistants/:id/test-runs": { action: "test_run.started", target: "test_run", id: answer("id"), details: (s) => ({ assistant_id: s.params.id }) },
  "POST /api/test-runs/:id/cancel": { action: "test_run.cancelled", target: "test_run", id: param("id") },

  // Webhook deliveries a person sent
  "POST /api/webhooks/:id/test": { action: "webhook.tested", target: "webhook", id: param("id") },
  "POST /api/webhooks/deliveries/:id/resend": { action: "webhook.resent", target: "webhook_delivery", id: param("id") },
};

const CAMPAIGN_AUDIT_ACTIONS = { start: "campaign.started", pause: "campaign.paused", resume: "campaign.resumed", cancel: "campaign.cancelled" } as const satisfies Record<CampaignAction, AuditAction>;

/** The rule of a route by its method and URL pattern; HEAD is not a use of anything. */
export function auditRuleOf(method: string, url: string | undefined): AuditRule | undefined {
  return url ? AUDITED_ROUTES[`${method} ${url}`] : undefined;
}
