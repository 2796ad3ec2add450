/**
 * The routes the fuzz and isolation suites walk. Adding a module's routes here is all it takes
 * to put them under both suites: a JSON route with a valid body (the fuzz suite mutates it field
 * by field), and an owned resource path (the isolation suite tries it with another user's id).
 */
import { VALID_DEMO_REQUEST } from "../demo-request.ts";

/** What a suite has set up before it runs: ids of resources owned by the acting user. */
export interface Fixtures {
  toolId: string;
  assistantId: string;
  callId: string;
  /** A number bought through the API at the fake Twilio, linked to the assistant. */
  phoneNumberId: string;
  /** The acting user's Twilio account at the fake Twilio (saved in their settings). */
  twilioSid: string;
  twilioToken: string;
  /** A tool endpoint on the local upstream (tools may run during the fuzz). */
  upstreamUrl: string;
  /** A knowledge base with one pasted document, and a SIP trunk. */
  knowledgeBaseId: string;
  documentId: string;
  sipTrunkId: string;
  /** A draft campaign of the assistant and number (made by the suites that walk campaign routes). */
  campaignId?: string;
}

export interface JsonRoute {
  method: "POST" | "PUT" | "PATCH" | "DELETE";
  /** `:id`-style segments are filled from the fixtures by `path`. */
  path: (f: Fixtures) => string;
  /** Needs the signed-in user's cookie (every /api route outside auth, demo requests and media). */
  auth: boolean;
  /** A body the route accepts; every bad input is a mutation of it. */
  valid: (f: Fixtures) => Record<string, unknown>;
  /** Fields whose absence is an error (the others are optional and may be left out). */
  required: readonly string[];
  /** A path with a non-id where the id goes; omitted for routes without an id. */
  badIdPath?: (badId: string) => string;
  /** Text fields a megabyte fits (their limit is the body's): only a longer one must be refused. */
  longText?: readonly string[];
}

const tool = (f: Fixtures) => ({
  name: "Fuzz tool",
  description: "Fuzzed",
  type: "API",
  http_method: "POST",
  parameter_format: "standard",
  end_point_url: f.upstreamUrl,
  api_key: "sk-fuzz-0123456789abcd",
  http_headers: { "X-Tenant": "acme" },
  parameters: { type: "object", properties: { q: { type: "string" } }, required: [] },
  request_body: { source: "fuzz" },
});

const assistant = () => ({
  name: "Fuzz assistant",
  description: "Fuzzed",
  first_message: "Hello",
  instructions: "Be brief.",
  tool_ids: [],
  voice: "marin",
});

export const JSON_ROUTES: Record<string, JsonRoute> = {
  "sign-up": {
    method: "POST",
    path: () => "/api/auth/sign-up/email",
    auth: false,
    valid: () => ({ name: "Fuzz User", email: "fuzz-signup@example.com", password: "correct-horse-battery" }),
    required: ["name", "email", "password"],
  },
  "sign-in": {
    method: "POST",
    path: () => "/api/auth/sign-in/email",
    auth: false,
    valid: () => ({ email: "fuzz-signin@example.com", password: "correct-horse-battery" }),
    required: ["email", "password"],
  },
  "update-user": {
    method: "POST",
    path: () => "/api/auth/update-user",
    auth: true,
    valid: () => ({ name: "Renamed User" }),
    required: [],
  },
  "change-password": {
    method: "POST",
    path: () => "/api/auth/change-password",
    auth: true,
    valid: () => ({ currentPassword: "correct-horse-battery", newPassword: "another-horse-battery" }),
    required: ["currentPassword", "newPassword"],
  },
  "request password reset": {
    method: "POST",
    path: () => "/api/auth/request-password-reset",
    auth: false,
    valid: () => ({ email: "fuzz-reset@example.com", redirectTo: "/reset-password" }),
    required: ["email"],
  },
  "reset password": {
    method: "POST",
    path: () => "/api/auth/reset-password",
    auth: false,
    valid: () => ({ token: "fuzz-reset-token", newPassword: "another-horse-battery" }),
    required: ["token", "newPassword"],
  },
  "create tool": { method: "POST", path: () => "/api/tools", auth: true, valid: tool, required: ["name", "type", "http_method", "parameter_format", "end_point_url"] },
  "update tool": {
    method: "PATCH",
    path: (f) => `/api/tools/${f.toolId}`,
    auth: true,
    valid: tool,
    required: [],
    badIdPath: (id) => `/api/tools/${id}`,
  },
  "execute tool": {
    method: "POST",
    path: (f) => `/api/tools/${f.toolId}/execute`,
    auth: true,
    valid: () => ({ parameters: { q: "hello" } }),
    required: [],
    badIdPath: (id) => `/api/tools/${id}/execute`,
  },
  "create assistant": { method: "POST", path: () => "/api/assistants", auth: true, valid: assistant, required: ["name"] },
  "update assistant": {
    method: "PATCH",
    path: (f) => `/api/assistants/${f.assistantId}`,
    auth: true,
    valid: assistant,
    required: [],
    badIdPath: (id) => `/api/assistants/${id}`,
  },
  "publish assistant": {
    method: "POST",
    path: (f) => `/api/assistants/${f.assistantId}/publish`,
    auth: true,
    valid: () => ({ note: "Fuzzed release" }),
    required: [],
    badIdPath: (id) => `/api/assistants/${id}/publish`,
  },
  "create scenario": {
    method: "POST",
    path: (f) => `/api/assistants/${f.assistantId}/scenarios`,
    auth: true,
    valid: () => ({ name: "Fuzz caller", persona: "You are Ada.", goal: "Learn where order 42 is", rubric: "Gives the status", max_turns: 3, tool_answers: { lookup: { status: "shipped" } } }),
    required: ["name", "persona", "goal", "rubric"],
    badIdPath: (id) => `/api/assistants/${id}/scenarios`,
  },
  "start test run": {
    method: "POST",
    path: (f) => `/api/assistants/${f.assistantId}/test-runs`,
    auth: true,
    valid: () => ({ version: "draft" }),
    required: [],
    badIdPath: (id) => `/api/assistants/${id}/test-runs`,
  },
  "roll back assistant": {
    method: "POST",
    path: (f) => `/api/assistants/${f.assistantId}/rollback`,
    auth: true,
    valid: () => ({ version: 1 }),
    required: ["version"],
    badIdPath: (id) => `/api/assistants/${id}/rollback`,
  },
  "pin a version on a number": {
    method: "PATCH",
    path: (f) => `/api/phone-numbers/${f.phoneNumberId}`,
    auth: true,
    valid: () => ({ assistant_version: 1 }),
    required: ["assistant_version"],
    badIdPath: (id) => `/api/phone-numbers/${id}`,
  },
  "run a call's analysis again": {
    method: "POST",
    path: (f) => `/api/calls/${f.callId}/analysis`,
    auth: true,
    valid: () => ({}),
    required: [],
    badIdPath: (id) => `/api/calls/${id}/analysis`,
  },
  "replay a call against the draft": {
    method: "POST",
    path: (f) => `/api/calls/${f.callId}/replay`,
    auth: true,
    valid: () => ({}),
    required: [],
    badIdPath: (id) => `/api/calls/${id}/replay`,
  },
  "save a call as a test": {
    method: "POST",
    path: (f) => `/api/calls/${f.callId}/scenario`,
    auth: true,
    valid: () => ({ name: "From a call", rubric: "Offers a callback." }),
    required: ["name", "rubric"],
    badIdPath: (id) => `/api/calls/${id}/scenario`,
  },
  "analyse past calls": {
    method: "POST",
    path: (f) => `/api/assistants/${f.assistantId}/analysis-runs`,
    auth: true,
    valid: () => ({ last: 10 }),
    required: [],
    badIdPath: (id) => `/api/assistants/${id}/analysis-runs`,
  },
  "analyse past calls in a date range": {
    method: "POST",
    path: (f) => `/api/assistants/${f.assistantId}/analysis-runs`,
    auth: true,
    valid: () => ({ from: "2026-01-01T00:00:00Z", to: "2026-02-01T00:00:00Z" }),
    required: [],
    badIdPath: (id) => `/api/assistants/${id}/analysis-runs`,
  },
  "save credential": {
    method: "PUT",
    path: () => "/api/credentials/openai_api_key",
    auth: true,
    valid: () => ({ value: "sk-fuzz-credential-000" }),
    required: ["value"],
    badIdPath: (id) => `/api/credentials/${id}`,
  },
  "test session": {
    method: "POST",
    path: () => "/api/calls/test-session",
    auth: true,
    valid: (f) => ({ assistantId: f.assistantId }),
    required: ["assistantId"],
  },
  "buy phone number": {
    method: "POST",
    path: () => "/api/phone-numbers",
    auth: true,
    valid: (f) => ({ country_code: "US", assistant_id: f.assistantId }),
    required: ["country_code", "assistant_id"],
  },
  "add SIP trunk": {
    method: "POST",
    path: () => "/api/sip-trunks",
    auth: true,
    valid: () => ({
      name: "Fuzz trunk",
      inbound_addresses: ["203.0.113.0/24", "2001:db8::1"],
      inbound_username: "fuzz",
      inbound_password: "fuzz-password",
      outbound_uri: "sip:pbx.example.com:5060",
      outbound_username: "out",
      outbound_password: "out-password",
      register: false,
      register_expires: 3600,
      caller_id: "+14155550100",
      prefix: "9",
      transport: "udp",
    }),
    required: ["name"],
  },
  "edit SIP trunk": {
    method: "PATCH",
    path: (f) => `/api/sip-trunks/${f.sipTrunkId}`,
    auth: true,
    valid: () => ({ name: "Fuzz trunk renamed", inbound_addresses: ["198.51.100.0/24"], caller_id: "+14155550101" }),
    required: [],
    badIdPath: (id) => `/api/sip-trunks/${id}`,
  },
  "add knowledge base": {
    method: "POST",
    path: () => "/api/knowledge-bases",
    auth: true,
    valid: () => ({ name: "Fuzz FAQ", description: "What callers ask" }),
    required: ["name"],
  },
  "rename knowledge base": {
    method: "PATCH",
    path: (f) => `/api/knowledge-bases/${f.knowledgeBaseId}`,
    auth: true,
    valid: () => ({ name: "Fuzz FAQ renamed" }),
    required: [],
    badIdPath: (id) => `/api/knowledge-bases/${id}`,
  },
  "paste a document": {
    method: "POST",
    path: (f) => `/api/knowledge-bases/${f.knowledgeBaseId}/documents`,
    auth: true,
    valid: () => ({ name: "Fuzz hours", text: "Open every day from 8 to 20." }),
    required: ["name", "text"],
    badIdPath: (id) => `/api/knowledge-bases/${id}/documents`,
    longText: ["text"],
  },
  "search a knowledge base": {
    method: "POST",
    path: (f) => `/api/knowledge-bases/${f.knowledgeBaseId}/search`,
    auth: true,
    valid: () => ({ query: "when are you open", limit: 3 }),
    required: ["query"],
    badIdPath: (id) => `/api/knowledge-bases/${id}/search`,
  },
  "add provider": {
    method: "POST",
    path: () => "/api/providers",
    auth: true,
    // A closed local port: the key check on save reaches no real service, and an unanswered check does not stop the save.
    valid: () => ({ name: "Fuzz voice", kind: "voice", protocol: "elevenlabs", base_url: "http://127.0.0.1:9", api_key: "xi-fuzz-0123456789" }),
    required: ["name", "kind", "protocol", "api_key"],
  },
  "relink phone number": {
    method: "PATCH",
    path: (f) => `/api/phone-numbers/${f.phoneNumberId}`,
    auth: true,
    // The number's own country: re-linking to another country is refused, so this body is accepted.
    valid: (f) => ({ assistant_id: f.assistantId, country_code: "US" }),
    required: ["assistant_id"],
    badIdPath: (id) => `/api/phone-numbers/${id}`,
  },
  "save twilio credentials": {
    method: "PUT",
    path: () => "/api/credentials/twilio",
    auth: true,
    valid: (f) => ({ account_sid: f.twilioSid, auth_token: f.twilioToken }),
    required: ["account_sid", "auth_token"],
  },
  "retention settings": {
    method: "PUT",
    path: () => "/api/settings/retention",
    auth: true,
    valid: () => ({ recordings_days: 30, calls_days: 90 }),
    required: ["recordings_days", "calls_days"],
  },
  "call settings": {
    method: "PUT",
    path: () => "/api/settings/calls",
    auth: true,
    valid: () => ({ max_concurrent_calls: 5 }),
    required: ["max_concurrent_calls"],
  },
  "dial allow-list": {
    method: "PUT",
    path: () => "/api/settings/dial-allow-list",
    auth: true,
    valid: () => ({ allowed: ["+88216"] }),
    required: ["allowed"],
  },
  "add to do-not-call list": { method: "POST", path: () => "/api/dnc", auth: true, valid: () => ({ phone: "+442071230000" }), required: ["phone"] },
  "outbound call": {
    method: "POST",
    path: () => "/api/calls/outbound",
    auth: true,
    valid: (f) => ({ assistant_id: f.assistantId, phone_number_id: f.phoneNumberId, to: "+442071230001", variables: { first_name: "Ann" } }),
    required: ["assistant_id", "phone_number_id", "to"],
  },
  "rename account": {
    method: "PATCH",
    path: () => "/api/account/name",
    auth: true,
    valid: () => ({ name: "Renamed Account" }),
    required: ["name"],
  },
  "account password": {
    method: "POST",
    path: () => "/api/account/password",
    auth: true,
    valid: () => ({ currentPassword: "correct-horse-battery", newPassword: "another-horse-battery" }),
    required: ["currentPassword", "newPassword"],
  },
  "delete account": {
    method: "DELETE",
    path: () => "/api/account",
    auth: true,
    valid: () => ({ password: "correct-horse-battery" }),
    required: ["password"],
  },
  "demo request": {
    method: "POST",
    path: () => "/api/demo-requests",
    auth: false,
    valid: () => ({ ...VALID_DEMO_REQUEST }),
    required: ["first_name", "last_name", "company", "work_email", "role", "phone_number", "location", "yearly_call_volume"],
  },
};

/**
 * GET routes driven by a query string: the fuzz suite replaces one parameter at a time with bad
 * values. `typed` parameters must then be refused with a 4xx; free text (`text`) may also be
 * answered 200, but never with a 5xx.
 */
export interface QueryRoute {
  path: string | ((f: Fixtures) => string);
  valid: (f: Fixtures) => Record<string, string>;
  typed: readonly string[];
  text: readonly string[];
}

const callFilters = (f: Fixtures) => ({ assistant_id: f.assistantId, assistant_version: "1", type: "real", from: "2026-01-01T00:00:00Z", to: "2027-01-01T00:00:00Z" });
const FILTERS = ["assistant_id", "assistant_version", "type", "from", "to"] as const;

export const QUERY_ROUTES: Record<string, QueryRoute> = {
  "call list": {
    path: "/api/calls",
    valid: (f) => ({ ...callFilters(f), status: "completed", direction: "outbound", q: "refund", limit: "20", success: "pass", success_min: "1", success_max: "10", "data.order_id": "42" }),
    typed: [...FILTERS, "status", "direction", "limit", "cursor", "success_min", "success_max"],
    text: ["q"],
  },
  "call stats": { path: "/api/calls/stats", valid: (f) => ({ ...callFilters(f), tz: "Europe/Paris" }), typed: [...FILTERS, "tz"], text: [] },
  "call export": { path: "/api/calls/export.csv", valid: (f) => ({ ...callFilters(f), status: "error", q: "refund" }), typed: [...FILTERS, "status"], text: ["q"] },
  // A bare date `to` takes in that whole day, so the audit log's empty range is from > to.
  "audit log": { path: "/api/audit-log", valid: () => ({ from: "2026-01-01", to: "2027-01-01T00:00:00Z", action: "assistant.created", limit: "20" }), typed: ["from", "to", "action", "limit", "cursor"], text: ["actor"] },
  "audit log CSV": { path: "/api/audit-log.csv", valid: () => ({ from: "2026-01-01T00:00:00Z", to: "2027-01-01" }), typed: ["from", "to", "action"], text: ["actor"] },
  "do-not-call list": { path: "/api/dnc", valid: () => ({ limit: "50" }), typed: ["limit", "cursor"], text: [] },
  "campaign contacts": { path: (f) => `/api/campaigns/${f.campaignId}/contacts`, valid: () => ({ limit: "50" }), typed: ["limit", "cursor"], text: [] },
};

export type Verb = "GET" | "POST" | "PUT" | "PATCH" | "DELETE";
export const VERBS: readonly Verb[] = ["GET", "POST", "PUT", "PATCH", "DELETE"];

/**
 * Paths that name one user's resource. The isolation suite tries every verb on each with the
 * owner's ids while signed in as someone else; `body` is what it sends with POST/PUT/PATCH.
 */
export interface OwnedRoute {
  path: (f: Fixtures) => string;
  body?: (f: Fixtures) => Record<string, unknown>;
  /** A list filtered by the owner's id: another user may get a 2xx, but an empty one. */
  listing?: boolean;
}

export const OWNED_ROUTES: Record<string, OwnedRoute> = {
  tool: { path: (f) => `/api/tools/${f.toolId}`, body: (f) => ({ ...tool(f), name: "Taken over" }) },
  "tool execute": { path: (f) => `/api/tools/${f.toolId}/execute`, body: () => ({ parameters: {} }) },
  assistant: { path: (f) => `/api/assistants/${f.assistantId}`, body: () => ({ ...assistant(), name: "Taken over" }) },
  call: { path: (f) => `/api/calls/${f.callId}`, body: () => ({ ended_reason: "taken over" }) },
  "assistant versions": { path: (f) => `/api/assistants/${f.assistantId}/versions` },
  "assistant version": { path: (f) => `/api/assistants/${f.assistantId}/versions/1` },
  "publish the owner's assistant": { path: (f) => `/api/assistants/${f.assistantId}/publish`, body: () => ({ note: "taken over" }) },
  "roll back the owner's assistant": { path: (f) => `/api/assistants/${f.assistantId}/rollback`, body: () => ({ version: 1 }) },
  "pin on the owner's number": { path: (f) => `/api/phone-numbers/${f.phoneNumberId}`, body: () => ({ assistant_version: 1 }) },
  "call analysis": { path: (f) => `/api/calls/${f.callId}/analysis`, body: () => ({}) },
  "call replay": { path: (f) => `/api/calls/${f.callId}/replay`, body: () => ({}) },
  "cancel the owner's call": { path: (f) => `/api/calls/${f.callId}/cancel`, body: () => ({}) },
  "call saved as a test": { path: (f) => `/api/calls/${f.callId}/scenario`, body: () => ({ name: "Taken over", rubric: "z" }) },
  "scenarios of the owner's assistant": { path: (f) => `/api/assistants/${f.assistantId}/scenarios`, body: () => ({ name: "Taken over", persona: "x", goal: "y", rubric: "z" }) },
  "test runs of the owner's assistant": { path: (f) => `/api/assistants/${f.assistantId}/test-runs`, body: () => ({}) },
  "latest test run of the owner's assistant": { path: (f) => `/api/assistants/${f.assistantId}/test-runs/latest` },
  "analysis runs": { path: (f) => `/api/assistants/${f.assistantId}/analysis-runs`, body: () => ({ last: 5 }) },
  "latest analysis run": { path: (f) => `/api/assistants/${f.assistantId}/analysis-runs/latest` },
  credential: { path: () => "/api/credentials/openai_api_key", body: () => ({ value: "sk-taken-over-000" }) },
  "test session": { path: () => "/api/calls/test-session", body: (f) => ({ assistantId: f.assistantId }) },
  "phone number": { path: (f) => `/api/phone-numbers/${f.phoneNumberId}`, body: (f) => ({ assistant_id: f.assistantId }) },
  "number bought for the owner's assistant": { path: () => "/api/phone-numbers", body: (f) => ({ country_code: "US", assistant_id: f.assistantId }) },
  "outbound call with the owner's assistant and number": { path: () => "/api/calls/outbound", body: (f) => ({ assistant_id: f.assistantId, phone_number_id: f.phoneNumberId, to: "+442071230002" }) },
  "calls filtered by the owner's assistant": { path: (f) => `/api/calls?assistant_id=${f.assistantId}`, listing: true },
  "stats filtered by the owner's assistant": { path: (f) => `/api/calls/stats?assistant_id=${f.assistantId}`, listing: true },
  "export filtered by the owner's assistant": { path: (f) => `/api/calls/export.csv?assistant_id=${f.assistantId}`, listing: true },
  "twilio credentials": { path: () => "/api/credentials/twilio", body: (f) => ({ account_sid: f.twilioSid, auth_token: f.twilioToken }) },
  "twilio account sid": { path: () => "/api/credentials/twilio_account_sid" },
  "knowledge base": { path: (f) => `/api/knowledge-bases/${f.knowledgeBaseId}`, body: () => ({ name: "Taken over" }) },
  "documents of the owner's knowledge base": { path: (f) => `/api/knowledge-bases/${f.knowledgeBaseId}/documents`, body: () => ({ name: "Taken over", text: "x" }) },
  "document of the owner's knowledge base": { path: (f) => `/api/knowledge-bases/${f.knowledgeBaseId}/documents/${f.documentId}`, body: () => ({ name: "Taken over", text: "x" }) },
  "reprocess the owner's document": { path: (f) => `/api/knowledge-bases/${f.knowledgeBaseId}/documents/${f.documentId}/reprocess`, body: () => ({}) },
  "search the owner's knowledge base": { path: (f) => `/api/knowledge-bases/${f.knowledgeBaseId}/search`, body: () => ({ query: "returned" }) },
  "assistant with the owner's knowledge base": { path: () => "/api/assistants", body: (f) => ({ name: "Borrower", knowledge_base_ids: [f.knowledgeBaseId] }) },
  "SIP trunk": { path: (f) => `/api/sip-trunks/${f.sipTrunkId}`, body: () => ({ name: "Taken over" }) },
  "SIP number on the owner's trunk": { path: () => "/api/phone-numbers", body: (f) => ({ provider: "sip", sip_trunk_id: f.sipTrunkId, phone_number: "+14155550177" }) },
  "assistant with the owner's tool": { path: () => "/api/assistants", body: (f) => ({ name: "Borrower", tool_ids: [f.toolId] }) },
};

/** Lists: every verb, and none may show the owner's data. */
export const LIST_ROUTES: readonly string[] = [
  "/api/tools",
  "/api/knowledge-bases",
  "/api/sip-trunks",
  "/api/assistants",
  "/api/calls",
  "/api/assistants/defaults",
  "/api/phone-numbers",
  "/api/calls/stats",
  "/api/calls/export.csv",
  "/api/settings/retention",
  "/api/account",
  "/api/account/name",
  "/api/account/password",
];
