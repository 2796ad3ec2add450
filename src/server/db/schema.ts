import { sql } from "drizzle-orm";
import { boolean, customType, doublePrecision, foreignKey, index, integer, jsonb, numeric, pgTable, primaryKey, smallint, text, timestamp, uniqueIndex, uuid } from "drizzle-orm/pg-core";
import type { AnalysisSettings, CallAnalysis } from "../../shared/analysis.ts";
import { ASSISTANT_VOICES, type TransferDestination, type Voicemail } from "../../shared/assistants.ts";
import { CALL_DIRECTIONS, TWILIO_CALL_STATUSES } from "../../shared/outbound.ts";
import { CAMPAIGN_STATUSES, CONTACT_OUTCOMES, CONTACT_STATES, type CampaignRetry, type CampaignWindow } from "../../shared/campaigns.ts";
import { CALL_STATUS_FILTERS, type ProviderCost } from "../../shared/call-records.ts";
import type { CallLogs } from "../../shared/calls.ts";
import { CREDENTIAL_NAMES } from "../../shared/credentials.ts";
import { CALL_VOLUME_VALUES, DEMO_COUNTRIES } from "../../shared/demo-requests.ts";
import { PHONE_COUNTRY_CODES, PHONE_NUMBER_STATUSES } from "../../shared/phone-numbers.ts";
import type { AssistantContent } from "../../shared/versions.ts";
import { INVITATION_STATUSES, ROLES } from "../../shared/roles.ts";
import { HTTP_METHODS, PARAMETER_FORMATS, TOOL_TYPES, type ToolRequestBody } from "../../shared/tools.ts";
import { DOCUMENT_SOURCES, DOCUMENT_STATUSES, URL_REFRESH, type AssistantKnowledge } from "../../shared/knowledge.ts";
import { WEBHOOK_DELIVERY_STATUSES } from "../../shared/webhooks.ts";
import { AUDIT_ACTIONS, AUDIT_TARGET_TYPES, AUDIT_VIA } from "../../shared/audit.ts";
import { CARRIERS, SIP_REGISTRATION_STATES, SIP_TRANSFER_METHODS, SIP_TRANSPORTS } from "../../shared/sip-trunks.ts";
import { PROVIDER_KINDS, PROVIDER_PROTOCOLS, type VoiceEngine } from "../../shared/providers.ts";
import { SCENARIO_SOURCES, SCENARIO_STATUSES, TEST_RESULT_STATUSES, type TestTurn } from "../../shared/scenarios.ts";

// Text columns whose values are a shared enum say so (`{ enum }`): TypeScript-only, the SQL stays
// plain text, so changing an enum needs no migration.

const createdAt = () => timestamp("created_at", { withTimezone: true }).notNull().defaultNow();
const updatedAt = () =>
  timestamp("updated_at", { withTimezone: true })
    .notNull()
    .defaultNow()
    .$onUpdate(() => new Date());

// ── Accounts (shape owned by better-auth; property names are its field names) ──────────────

export const user = pgTable("user", {
  id: text("id").primaryKey(),
  name: text("name").notNull(),
  email: text("email").notNull().unique(),
  emailVerified: boolean("email_verified").notNull().default(false),
  image: text("image"),
  createdAt: createdAt(),
  updatedAt: updatedAt(),
});

export const session = pgTable(
  "session",
  {
    id: text("id").primaryKey(),
    expiresAt: timestamp("expires_at", { withTimezone: true }).notNull(),
    token: text("token").notNull().unique(),
    createdAt: createdAt(),
    updatedAt: updatedAt(),
    ipAddress: text("ip_address"),
    userAgent: text("user_agent"),
    /** The organisation the session works in (better-auth's organization plugin field). */
    activeOrganizationId: text("active_organization_id"),
    userId: text("user_id")
      .notNull()
      .references(() => user.id, { onDelete: "cascade" }),
  },
  (t) => [index("session_user_id_idx").on(t.userId)],
);

export const account = pgTable(
  "account",
  {
    id: text("id").primaryKey(),
    accountId: text("account_id").notNull(),
    providerId: text("provider_id").notNull(),
    userId: text("user_id")
      .notNull()
      .references(() => user.id, { onDelete: "cascade" }),
    accessToken: text("access_token"),
    refreshToken: text("refresh_token"),
    idToken: text("id_token"),
    accessTokenExpiresAt: timestamp("access_token_expires_at", { withTimezone: true }),
    refreshTokenExpiresAt: timestamp("refresh_token_expires_at", { withTimezone: true }),
    scope: text("scope"),
    password: text("password"),
    createdAt: createdAt(),
    updatedAt: updatedAt(),
  },
  (t) => [index("account_user_id_idx").on(t.userId)],
);

export const verification = pgTable(
  "verification",
  {
    id: text("id").primaryKey(),
    identifier: text("identifier").notNull(),
    value: text("value").notNull(),
    expiresAt: timestamp("expires_at", { withTimezone: true }).notNull(),
    createdAt: createdAt(),
    updatedAt: updatedAt(),
  },
  (t) => [index("verification_identifier_idx").on(t.identifier)],
);

/** Organisations own every product row below; better-auth's organization plugin (its field names). */
export const organization = pgTable("organization", {
  id: text("id").primaryKey(),
  name: text("name").notNull(),
  slug: text("slug").notNull().unique(),
  logo: text("logo"),
  metadata: text("metadata"),
  createdAt: createdAt(),
});

/** A user's place in an organisation; `role` is one of ROLES (src/shared/roles.ts). */
export const member = pgTable(
  "member",
  {
    id: text("id").primaryKey(),
    organizationId: text("organization_id")
      .notNull()
      .references(() => organization.id, { onDelete: "cascade" }),
    userId: text("user_id")
      .notNull()
      .references(() => user.id, { onDelete: "cascade" }),
    role: text("role", { enum: ROLES }).notNull(),
    createdAt: createdAt(),
  },
  (t) => [uniqueIndex("member_organization_user_idx").on(t.organizationId, t.userId), index("member_user_idx").on(t.userId)],
);

/** An invitation by e-mail; the link's token is the id, so only its SHA-256 is stored here. */
export const invitation = pgTable(
  "invitation",
  {
    id: text("id").primaryKey(),
    organizationId: text("organization_id")
      .notNull()
      .references(() => organization.id, { onDelete: "cascade" }),
    email: text("email").notNull(),
    role: text("role", { enum: ROLES }).notNull(),
    status: text("status", { enum: INVITATION_STATUSES }).notNull().default("pending"),
    inviterId: text("inviter_id").references(() => user.id, { onDelete: "set null" }),
    expiresAt: timestamp("expires_at", { withTimezone: true }).notNull(),
    createdAt: createdAt(),
  },
  (t) => [index("invitation_organization_idx").on(t.organizationId, t.createdAt), index("invitation_email_idx").on(t.email)],
);

// ── Product data (spec §3 field names) ─────────────────────────────────────────────────────

/** The organisation a row belongs to: every query of it is scoped by this id. */
const owner = () =>
  text("organization_id")
    .notNull()
    .references(() => organization.id, { onDelete: "cascade" });

export const tools = pgTable(
  "tools",
  {
    id: uuid("id").primaryKey().defaultRandom(),
    organizationId: owner(),
    name: text("name").notNull(),
    description: text("description"),
    type: text("type", { enum: TOOL_TYPES }).notNull(),
    httpMethod: text("http_method", { enum: HTTP_METHODS }).notNull(),
    parameterFormat: text("parameter_format", { enum: PARAMETER_FORMATS }).notNull(),
    endPointUrl: text("end_point_url").notNull(),
    /** AES-GCM sealed (secrets/crypto.ts); never returned whole. */
    apiKeyEncrypted: text("api_key_encrypted"),
    /**
     * Header names with masked values (what the API shows) once `httpHeadersEncrypted` is set;
     * rows written before header encryption hold clear values here and none there (read both).
     */
    httpHeaders: jsonb("http_headers").$type<Record<string, string>>().notNull().default({}),
    /** AES-GCM sealed JSON of the headers with their real values; null when there are none. */
    httpHeadersEncrypted: text("http_headers_encrypted"),
    parameters: jsonb("parameters").$type<Record<string, unknown>>().notNull().default({}),
    requestBody: jsonb("request_body").$type<ToolRequestBody>().notNull().default({}),
    createdAt: createdAt(),
    updatedAt: updatedAt(),
  },
  (t) => [index("tools_org_idx").on(t.organizationId, t.createdAt)],
);

export const assistants = pgTable(
  "assistants",
  {
    id: uuid("id").primaryKey().defaultRandom(),
    organizationId: owner(),
    name: text("name").notNull(),
    description: text("description"),
    firstMessage: text("first_message"),
    instructions: text("instructions"),
    toolIds: jsonb("tool_ids").$type<string[]>().notNull().default([]),
    voice: text("voice", { enum: ASSISTANT_VOICES }).notNull().default("marin"),
    model: text("model").notNull(),
    transferDestinations: jsonb("transfer_destinations").$type<TransferDestination[]>().notNull().default([]),
    allowEndCall: boolean("allow_end_call").notNull().default(true),
    keypadInput: boolean("keypad_input").notNull().default(true),
    /** IANA zone of `{{now}}`. */
    timezone: text("timezone").notNull().default("UTC"),
    /** Outbound calls: what to do when a machine answers; null = no machine detection. */
    voicemail: jsonb("voicemail").$type<Voicemail>(),
    /** The built-in function that adds the caller to the do-not-call list. */
    allowDoNotCall: boolean("allow_do_not_call").notNull().default(false),
    /** Post-call analysis settings; null on assistants from before analysis: DEFAULT_ANALYSIS_SETTINGS. */
    analysis: jsonb("analysis").$type<AnalysisSettings>(),
    /** The knowledge bases it answers from (JSON, no foreign key: a deleted base is skipped). */
    knowledgeBaseIds: jsonb("knowledge_base_ids").$type<string[]>().notNull().default([]),
    /** How it uses them; null on assistants from before knowledge bases: DEFAULT_ASSISTANT_KNOWLEDGE. */
    knowledge: jsonb("knowledge").$type<AssistantKnowledge>(),
    /** Which engine its calls run on; null on assistants from before providers: OpenAI Realtime. */
    voiceEngine: jsonb("voice_engine").$type<VoiceEngine>(),
    createdAt: createdAt(),
    updatedAt: updatedAt(),
  },
  (t) => [index("assistants_org_idx").on(t.organizationId, t.createdAt)],
);

/**
 * Published versions of an assistant (the assistants row is the draft): immutable once written,
 * numbered 1, 2, … per assistant. `content` is the wire shape of src/shared/versions.ts.
 */
export const assistantVersions = pgTable(
  "assistant_versions",
  {
    id: uuid("id").primaryKey().defaultRandom(),
    organizationId: owner(),
    assistantId: uuid("assistant_id")
      .notNull()
      .references(() => assistants.id, { onDelete: "cascade" }),
    version: integer("version").notNull(),
    content: jsonb("content").$type<AssistantContent>().notNull(),
    note: text("note"),
    /** Who published it; kept (as null) when that user is deleted. */
    publishedBy: text("published_by").references(() => user.id, { onDelete: "set null" }),
    publishedWithFailures: boolean("published_with_failures").notNull().default(false),
    rolledBackFrom: integer("rolled_back_from"),
    createdAt: createdAt(),
  },
  (t) => [uniqueIndex("assistant_versions_assistant_version_idx").on(t.assistantId, t.version), index("assistant_versions_org_idx").on(t.organizationId)],
);

/**
 * A SIP trunk or PBX of an organisation: who may send its calls (source addresses, a digest
 * username and password) and where calls to it go. Passwords are AES-GCM sealed
 * (secrets/crypto.ts) and never returned. The last four columns are written by the SIP runtime.
 */
/**
 * A transcriber, language model or voice service of an organisation, with its key AES-GCM sealed
 * (secrets/crypto.ts) and never returned. Assistants name it in their voice engine (JSON, no
 * foreign key: deleting one in use is refused by the service).
 */
export const providers = pgTable(
  "providers",
  {
    id: uuid("id").primaryKey().defaultRandom(),
    organizationId: owner(),
    name: text("name").notNull(),
    kind: text("kind", { enum: PROVIDER_KINDS }).notNull(),
    protocol: text("protocol", { enum: PROVIDER_PROTOCOLS }).notNull(),
    /** Null: the service's own address (shared/providers.ts). */
    baseUrl: text("base_url"),
    apiKeyEncrypted: text("api_key_encrypted").notNull(),
    /** USD per the kind's unit (shared/service-prices.ts); null: the vendor's list price. */
    unitPrice: doublePrecision("unit_price"),
    createdAt: createdAt(),
    updatedAt: updatedAt(),
  },
  (t) => [index("providers_org_idx").on(t.organizationId, t.createdAt)],
);

export const sipTrunks = pgTable(
  "sip_trunks",
  {
    id: uuid("id").primaryKey().defaultRandom(),
    organizationId: owner(),
    name: text("name").notNull(),
    /** IPv4/IPv6 addresses and CIDR ranges a call may come from. */
    inboundAddresses: text("inbound_addresses").array().notNull().default(sql`'{}'::text[]`),
    inboundUsername: text("inbound_username"),
    inboundPasswordEncrypted: text("inbound_password_encrypted"),
    outboundUri: text("outbound_uri"),
    outboundUsername: text("outbound_username"),
    outboundPasswordEncrypted: text("outbound_password_encrypted"),
    register: boolean("register").notNull().default(false),
    registerExpires: integer("register_expires").notNull().default(3600),
    /** E.164 presented on outbound calls; null: the calling number's own. */
    callerId: text("caller_id"),
    /** Dialled before the destination on outbound calls, and stripped from inbound Request-URIs. */
    prefix: text("prefix"),
    transport: text("transport", { enum: SIP_TRANSPORTS }).notNull().default("udp"),
    /** How a transfer leaves a call on this trunk: REFER first (bridged when refused), or always bridged here. */
    transferMethod: text("transfer_method", { enum: SIP_TRANSFER_METHODS }).notNull().default("refer"),
    lastOptionsAt: timestamp("last_options_at", { withTimezone: true }),
    registrationState: text("registration_state", { enum: SIP_REGISTRATION_STATES }).notNull().default("unregistered"),
    /** When the registration state was last reported (a refresh's 200 moves it on). */
    registrationStateAt: timestamp("registration_state_at", { withTimezone: true }),
    lastError: text("last_error"),
    lastErrorAt: timestamp("last_error_at", { withTimezone: true }),
    createdAt: createdAt(),
    updatedAt: updatedAt(),
  },
  (t) => [index("sip_trunks_org_idx").on(t.organizationId, t.createdAt), index("sip_trunks_register_idx").on(t.id).where(sql`register`)],
);

export const phoneNumbers = pgTable(
  "phone_numbers",
  {
    id: uuid("id").primaryKey().defaultRandom(),
    organizationId: owner(),
    /** E.164; a SIP number may also be an extension (2–15 digits). */
    phoneNumber: text("phone_number").notNull(),
    /** Twilio numbers' country; null for SIP numbers. */
    countryCode: text("country_code", { enum: PHONE_COUNTRY_CODES }),
    /** Who carries the number's calls: bought at Twilio, or on one of the organisation's SIP trunks. */
    provider: text("provider", { enum: CARRIERS }).notNull().default("twilio"),
    /**
     * A trunk in use cannot be deleted: its numbers go first. NO ACTION rather than RESTRICT, so
     * an organisation's deletion (which cascades to both) checks only once both are gone.
     */
    sipTrunkId: uuid("sip_trunk_id").references(() => sipTrunks.id, { onDelete: "no action" }),
    status: text("status", { enum: PHONE_NUMBER_STATUSES }).notNull().default("pending"),
    /** Deleting an assistant leaves its numbers unassigned rather than deleting them. */
    assistantId: uuid("assistant_id").references(() => assistants.id, { onDelete: "set null" }),
    /** A published version of the assistant pinned on the number; null runs the latest published one. */
    assistantVersion: integer("assistant_version"),
    providerSid: text("provider_sid"),
    createdAt: createdAt(),
  },
  (t) => [
    index("phone_numbers_org_idx").on(t.organizationId, t.createdAt),
    // One organisation's SIP number is on one of its trunks, once.
    uniqueIndex("phone_numbers_sip_number_idx").on(t.organizationId, t.phoneNumber).where(sql`provider = 'sip'`),
    // An inbound INVITE looks its Request-URI's user up across organisations.
    index("phone_numbers_sip_lookup_idx").using("btree", sql`ltrim(phone_number, '+')`).where(sql`provider = 'sip'`),
    index("phone_numbers_sip_trunk_idx").on(t.sipTrunkId),
  ],
);

/**
 * The text search reads (q of GET /api/calls): the caller's number as digits, its last 10 and last
 * 4 digits (so "5551234567" and "4567" find "+15551234567"), and every transcript entry's
 * content, and the analysis's summary. 'simple' keeps words as typed (no stemming, any language). Stored (ADR 019): a search
 * that walks one owner's calls newest first tests each row without re-parsing its transcript.
 */
export const CALL_SEARCH_DOCUMENT =
  "to_tsvector('simple'::regconfig, coalesce(ltrim(caller_number, '+') || ' ' || right(caller_number, 10) || ' ' || right(caller_number, 4), ''))" +
  " || to_tsvector('simple'::regconfig, jsonb_path_query_array(logs, '$.transcript[*].content'))" +
  " || to_tsvector('simple'::regconfig, coalesce(analysis ->> 'summary', ''))";

const tsvector = customType<{ data: string }>({ dataType: () => "tsvector" });

export const calls = pgTable(
  "calls",
  {
    id: uuid("id").primaryKey().defaultRandom(),
    organizationId: owner(),
    /** Past calls outlive their assistant; the name is kept for the record. */
    assistantId: uuid("assistant_id").references(() => assistants.id, { onDelete: "set null" }),
    assistantName: text("assistant_name"),
    /** The published version the call ran; null for a browser test call of the draft (and older records). */
    assistantVersion: integer("assistant_version"),
    startTime: timestamp("start_time", { withTimezone: true }).notNull().defaultNow(),
    endTime: timestamp("end_time", { withTimezone: true }),
    endedReason: text("ended_reason"),
    cost: doublePrecision("cost"),
    /** Storage key of the stereo WAV (caller left, assistant right). */
    recording: text("recording"),
    /** Phone calls only (null for browser test calls): who called, which number, Twilio's CallSid. */
    callerNumber: text("caller_number"),
    calledNumber: text("called_number"),
    phoneNumberId: uuid("phone_number_id").references(() => phoneNumbers.id, { onDelete: "set null" }),
    providerCallSid: text("provider_call_sid"),
    /** Who carried the phone call: Twilio, or a SIP trunk (then `sip_call_id` is its Call-ID). */
    carrier: text("carrier", { enum: CARRIERS }).notNull().default("twilio"),
    sipCallId: text("sip_call_id"),
    /**
     * A live SIP call's dialog (carriers/sip/dialog.ts `DialogState`): what another instance
     * needs to hang the call up with a BYE if the one carrying it dies. Null for other calls.
     */
    sipDialog: jsonb("sip_dialog").$type<Record<string, unknown>>(),
    /**
     * What the engine writes (CallLogs); `{}` is the column default, and records from older
     * versions may differ, so readers parse it (calls-wire.ts) rather than trust this type.
     */
    logs: jsonb("logs").$type<CallLogs | Record<string, unknown>>().notNull().default(sql`'{}'::jsonb`),
    /** What the call cost at the AI provider, from the usage it reported; null before the call ends (or for older records). */
    providerCost: jsonb("provider_cost").$type<ProviderCost>(),
    /**
     * Phone calls: what Twilio charged for the call (USD, positive), from its Calls API once it has
     * rated the call (some time after it ended); null until then, and for browser test calls.
     */
    telephonyCost: doublePrecision("telephony_cost"),
    /**
     * Derived from the record so the Calls page's filters use a btree instead of reading jsonb
     * (ADR 019). The database keeps them in step with every write; nothing sets them.
     * is_test: logs.isTest when it is a boolean (Test/Real), else null (Unknown).
     */
    isTest: boolean("is_test").generatedAlwaysAs(
      sql`CASE WHEN jsonb_typeof(logs -> 'isTest') = 'boolean' THEN (logs ->> 'isTest')::boolean END`,
    ),
    /** The status filter's classes; the same rule as callStatus() in src/shared/call-records.ts. */
    status: text("status", { enum: CALL_STATUS_FILTERS }).generatedAlwaysAs(
      sql`CASE WHEN end_time IS NULL THEN 'in_progress' WHEN ended_reason ~* '(error|fail)' THEN 'error' ELSE 'completed' END`,
    ),
    /** What q searches (CALL_SEARCH_DOCUMENT); never selected for the wire. */
    search: tsvector("search").generatedAlwaysAs(sql.raw(CALL_SEARCH_DOCUMENT)),
    /** Post-call analysis (summary, extracted data, success); null until the call has ended. */
    analysis: jsonb("analysis").$type<CallAnalysis>(),
    /** The instance carrying the call while it is live (instances.id); null on records from before ownership. */
    instanceId: text("instance_id"),
    /** Who dialled: Twilio called us (inbound, also browser test calls) or we called out. */
    direction: text("direction", { enum: CALL_DIRECTIONS }).notNull().default("inbound"),
    /** Outbound calls: Twilio's status of the call as its callbacks report it. */
    providerStatus: text("provider_status", { enum: TWILIO_CALL_STATUSES }),
    /** Outbound calls with machine detection: Twilio's AnsweredBy (human, machine_end_beep, ...). */
    answeredBy: text("answered_by"),
    /** A campaign's call: which campaign (and its contact row) dialled it. */
    campaignId: uuid("campaign_id"),
    /** The `{{name}}` values the call ran with (built-ins included). */
    variables: jsonb("variables").$type<Record<string, string>>(),
  },
  (t) => [
    // Newest first per owner; id breaks ties so the keyset cursor (start_time, id) is exact.
    index("calls_org_start_idx").on(t.organizationId, t.startTime, t.id),
    index("calls_org_assistant_start_idx").on(t.organizationId, t.assistantId, t.startTime, t.id),
    index("calls_org_assistant_version_start_idx").on(t.organizationId, t.assistantId, t.assistantVersion, t.startTime, t.id),
    index("calls_org_type_start_idx").on(t.organizationId, t.isTest, t.startTime, t.id),
    index("calls_org_status_start_idx").on(t.organizationId, t.status, t.startTime, t.id),
    // Search (q): the caller's number and the transcript's words.
    index("calls_search_idx").using("gin", t.search),
    // Open calls by the instance carrying them: what a lease sweep looks for.
    index("calls_open_idx").on(t.instanceId).where(sql`end_time IS NULL`),
    index("calls_org_direction_start_idx").on(t.organizationId, t.direction, t.startTime, t.id),
    // Open outbound calls per owner: the concurrency limit's count.
    index("calls_open_outbound_idx").on(t.organizationId).where(sql`end_time IS NULL AND direction = 'outbound'`),
    // Analyses not finished yet: what the analysis recovery looks for (few rows, whatever the table's size).
    index("calls_analysis_pending_idx").on(t.id).where(sql`(analysis ->> 'status') = 'pending'`),
  ],
);

/**
 * The Calls page's stats summed per hour and per UTC day (`span` 1 or 24) and per group of the
 * stats' filters and figures (ADR 061). Written only by the database: triggers on `calls` add each
 * statement's change as deltas (drizzle/ hand-written SQL), so the sums stay equal to the rows under
 * concurrent writers, later corrections and retention deletes. `npm run stats:rebuild` recomputes them.
 */
export const callRollups = pgTable(
  "call_rollups",
  {
    organizationId: owner(),
    span: smallint("span").notNull(),
    /** The bucket's start: a UTC hour or a UTC midnight. */
    bucket: timestamp("bucket", { withTimezone: true }).notNull(),
    /** md5 of the group's columns below: one short unique key, however long a name or success value is. */
    groupKey: text("group_key").notNull(),
    assistantId: uuid("assistant_id"),
    assistantName: text("assistant_name"),
    assistantVersion: integer("assistant_version"),
    isTest: boolean("is_test"),
    direction: text("direction", { enum: CALL_DIRECTIONS }).notNull(),
    /** The analysis's success value (jsonb_typeof and text), and whether the success figures count it. */
    successType: text("success_type"),
    successValue: text("success_value"),
    analysed: boolean("analysed").notNull(),
    calls: integer("calls").notNull(),
    ended: integer("ended").notNull(),
    /** Exact sums (numeric), so any split of the rows adds up to the raw aggregate's very value. */
    endedMs: numeric("ended_ms").notNull(),
    cost: numeric("cost").notNull(),
    errors: integer("errors").notNull(),
    transferred: integer("transferred").notNull(),
    /**
     * A day row's running count of calls by the end of each UTC hour of its day (24 counts, the
     * last one `calls`; null on hour rows): the calls of any run of the day's hours in two reads,
     * for the hours a time zone moves to the neighbouring local day (ADR 085).
     */
    callsThroughHour: integer("calls_through_hour").array(),
  },
  (t) => [uniqueIndex("call_rollups_key_idx").on(t.organizationId, t.span, t.bucket, t.groupKey)],
);

/**
 * The turns' latencies (end of speech → first audio sent) counted per exact value, per UTC hour,
 * day and week (`span` 1, 24, 168; weeks from Monday, ADR 079) and per filtered column: a median
 * cannot be summed, but counts of each value can, and give the very median of the turns (ADR 073). One row holds a bucket's values and their counts
 * as two sorted arrays (a busy day's thousands of turns in one row per group), and `group_key`
 * 'all' holds every call's turns for the requests without such filters. Kept by the same
 * triggers as `call_rollups`.
 */
export const callLatencyRollups = pgTable(
  "call_latency_rollups",
  {
    organizationId: owner(),
    span: smallint("span").notNull(),
    bucket: timestamp("bucket", { withTimezone: true }).notNull(),
    /** md5 of the filtered columns below, or 'all' (those columns null). */
    groupKey: text("group_key").notNull(),
    assistantId: uuid("assistant_id"),
    assistantVersion: integer("assistant_version"),
    isTest: boolean("is_test"),
    direction: text("direction", { enum: CALL_DIRECTIONS }),
    successType: text("success_type"),
    successValue: text("success_value"),
    /** The turns' `firstAudioSentMs` as written (numeric: exact whatever it holds), ascending, each once. */
    latencies: numeric("latencies").array().notNull(),
    /** How many turns had each of `latencies`. */
    counts: integer("counts").array().notNull(),
  },
  (t) => [uniqueIndex("call_latency_rollups_key_idx").on(t.organizationId, t.span, t.bucket, t.groupKey)],
);

/**
 * A live call's transcript entries and tool calls, one row each, written as they change
 * (docs/decisions/036-transcript-entries.md): a turn costs one small row, whatever the call's
 * length, where rewriting `calls.logs` cost the whole transcript and its search vector. When the
 * call ends its final logs go into `calls.logs` once (the search built then) and these rows go.
 * `position` is the entry's slot in the transcript (holes allowed) or the tool call's index.
 */
export const callEntries = pgTable(
  "call_entries",
  {
    callId: uuid("call_id")
      .notNull()
      .references(() => calls.id, { onDelete: "cascade" }),
    kind: text("kind", { enum: ["transcript", "tool"] }).notNull(),
    position: integer("position").notNull(),
    body: jsonb("body").notNull(),
  },
  (t) => [primaryKey({ columns: [t.callId, t.kind, t.position] })],
);

/**
 * "Analyse past calls" for an assistant: one row per request, its progress counted up by each
 * call's analysis job as it finishes (the calls themselves carry their analysis).
 */
export const analysisRuns = pgTable(
  "analysis_runs",
  {
    id: uuid("id").primaryKey().defaultRandom(),
    organizationId: owner(),
    assistantId: uuid("assistant_id")
      .notNull()
      .references(() => assistants.id, { onDelete: "cascade" }),
    total: integer("total").notNull(),
    finished: integer("finished").notNull().default(0),
    createdAt: createdAt(),
  },
  (t) => [index("analysis_runs_org_assistant_idx").on(t.organizationId, t.assistantId, t.createdAt)],
);

// ── Several instances (docs/decisions/025-shared-state.md) ─────────────────────────────────

/**
 * One row per running server instance. Its lease is renewed by a heartbeat; once it has
 * expired, any other instance closes the live calls that name it (instance-lease.ts).
 */
export const instances = pgTable("instances", {
  id: text("id").primaryKey(),
  startedAt: timestamp("started_at", { withTimezone: true }).notNull().defaultNow(),
  leaseExpiresAt: timestamp("lease_expires_at", { withTimezone: true }).notNull(),
  /** Where Twilio reaches this instance (INSTANCE_URL, else PUBLIC_URL): a full instance redirects calls here. */
  publicUrl: text("public_url"),
  /** Its load as of its last heartbeat: calls carried (places held included), MAX_CALLS, draining. */
  calls: integer("calls").notNull().default(0),
  maxCalls: integer("max_calls").notNull().default(0),
  draining: boolean("draining").notNull().default(false),
});

/**
 * Counters with an expiry shared by every instance: rate-limit windows, failed-login counts and
 * used single-use tokens (shared-state/pg-counter-store.ts). Unused when REDIS_URL is set.
 */
export const sharedCounters = pgTable(
  "shared_counters",
  {
    key: text("key").primaryKey(),
    count: integer("count").notNull(),
    expiresAt: timestamp("expires_at", { withTimezone: true }).notNull(),
  },
  (t) => [index("shared_counters_expires_at_idx").on(t.expiresAt)],
);

/** A call's retention rule per owner (Settings): null days = keep forever. */
export const callRetention = pgTable("call_retention", {
  organizationId: text("organization_id")
    .primaryKey()
    .references(() => organization.id, { onDelete: "cascade" }),
  recordingsDays: integer("recordings_days"),
  callsDays: integer("calls_days"),
  updatedAt: updatedAt(),
});

// ── Campaigns ──────────────────────────────────────────────────────────────────────────────

export const campaigns = pgTable(
  "campaigns",
  {
    id: uuid("id").primaryKey().defaultRandom(),
    organizationId: owner(),
    name: text("name").notNull(),
    assistantId: uuid("assistant_id").references(() => assistants.id, { onDelete: "set null" }),
    phoneNumberId: uuid("phone_number_id").references(() => phoneNumbers.id, { onDelete: "set null" }),
    /** draft, running, paused, completed, cancelled ("waiting" is running outside its windows). */
    status: text("status", { enum: CAMPAIGN_STATUSES }).notNull().default("draft"),
    waitingReason: text("waiting_reason"),
    timezone: text("timezone").notNull(),
    startAt: timestamp("start_at", { withTimezone: true }),
    windows: jsonb("windows").$type<CampaignWindow[]>().notNull(),
    maxConcurrentCalls: integer("max_concurrent_calls").notNull(),
    callsPerMinute: integer("calls_per_minute"),
    /** The dialler's token bucket (calls it may start now) and when it was last filled; null = full. */
    paceTokens: doublePrecision("pace_tokens"),
    pacedAt: timestamp("paced_at", { withTimezone: true }),
    retry: jsonb("retry").$type<CampaignRetry>().notNull(),
    createdAt: createdAt(),
  },
  (t) => [index("campaigns_org_created_idx").on(t.organizationId, t.createdAt)],
);

export const campaignContacts = pgTable(
  "campaign_contacts",
  {
    campaignId: uuid("campaign_id")
      .notNull()
      .references(() => campaigns.id, { onDelete: "cascade" }),
    /** The CSV's data row (1 = the first after the header). */
    row: integer("row").notNull(),
    phone: text("phone").notNull(),
    timezone: text("timezone"),
    variables: jsonb("variables").$type<Record<string, string>>().notNull(),
    state: text("state", { enum: CONTACT_STATES }).notNull().default("pending"),
    attempts: integer("attempts").notNull().default(0),
    nextAttemptAt: timestamp("next_attempt_at", { withTimezone: true }),
    lastDialledAt: timestamp("last_dialled_at", { withTimezone: true }),
    lastOutcome: text("last_outcome", { enum: CONTACT_OUTCOMES }),
    callId: uuid("call_id"),
  },
  (t) => [
    primaryKey({ columns: [t.campaignId, t.row] }),
    index("campaign_contacts_due_idx").on(t.campaignId, t.state, t.nextAttemptAt),
    index("campaign_contacts_dialled_idx").on(t.campaignId, t.lastDialledAt),
  ],
);

/** Settings → Calls per owner; no row = the defaults. */
export const callSettings = pgTable("call_settings", {
  organizationId: text("organization_id")
    .primaryKey()
    .references(() => organization.id, { onDelete: "cascade" }),
  maxConcurrentCalls: integer("max_concurrent_calls").notNull(),
  /** What a phone caller hears when every line is taken; null = PHONE_BUSY_MESSAGE. */
  busyMessage: text("busy_message"),
  /** E.164 prefixes outbound calls may dial though a dial-safety rule refuses them (shared/dial-safety.ts). */
  dialAllowList: jsonb("dial_allow_list").$type<string[]>().notNull().default([]),
  updatedAt: updatedAt(),
});

/** Numbers never to be dialled, per owner (E.164). */
export const doNotCall = pgTable(
  "do_not_call",
  {
    organizationId: owner(),
    phone: text("phone").notNull(),
    createdAt: createdAt(),
  },
  (t) => [primaryKey({ columns: [t.organizationId, t.phone] })],
);

export const credentials = pgTable(
  "credentials",
  {
    organizationId: owner(),
    name: text("name", { enum: CREDENTIAL_NAMES }).notNull(),
    valueEncrypted: text("value_encrypted").notNull(),
    updatedAt: updatedAt(),
    // The provider's answer to the last check of this value (null: never checked), kept so a
    // reload still says whether the provider accepted it and in what words.
    verified: boolean("verified"),
    verificationMessage: text("verification_message"),
    checkedAt: timestamp("checked_at", { withTimezone: true }),
  },
  (t) => [primaryKey({ columns: [t.organizationId, t.name] })],
);

export const demoRequests = pgTable("demo_requests", {
  id: uuid("id").primaryKey().defaultRandom(),
  firstName: text("first_name").notNull(),
  lastName: text("last_name").notNull(),
  company: text("company").notNull(),
  workEmail: text("work_email").notNull(),
  role: text("role").notNull(),
  phoneNumber: text("phone_number").notNull(),
  location: text("location", { enum: DEMO_COUNTRIES }).notNull(),
  yearlyCallVolume: text("yearly_call_volume", { enum: CALL_VOLUME_VALUES }).notNull(),
  comments: text("comments"),
  createdAt: createdAt(),
});

// ── Integrations: webhooks and API keys ────────────────────────────────────────────────────

export const webhookEndpoints = pgTable(
  "webhook_endpoints",
  {
    id: uuid("id").primaryKey().defaultRandom(),
    organizationId: owner(),
    url: text("url").notNull(),
    description: text("description"),
    events: jsonb("events").$type<string[]>().notNull(),
    enabled: boolean("enabled").notNull().default(true),
    /** `whsec_…`, AES-GCM sealed (secrets/crypto.ts): shown on creation and rotation only, kept for signing. */
    secretEncrypted: text("secret_encrypted").notNull(),
    /** The secret before the last rotation, sealed: it signs too until `previousSecretExpiresAt`. */
    previousSecretEncrypted: text("previous_secret_encrypted"),
    previousSecretExpiresAt: timestamp("previous_secret_expires_at", { withTimezone: true }),
    /** The first failed attempt since the last success; 3 days of that disables the endpoint. */
    failingSince: timestamp("failing_since", { withTimezone: true }),
    /**
     * The first attempt since the last success that got no answer (timed out, refused,
     * unreachable): while set, its deliveries go to the slow lane (webhooks.service.ts).
     */
    slowSince: timestamp("slow_since", { withTimezone: true }),
    disabledReason: text("disabled_reason"),
    createdAt: createdAt(),
    updatedAt: updatedAt(),
  },
  (t) => [index("webhook_endpoints_org_idx").on(t.organizationId, t.createdAt)],
);

/** One event for one endpoint: stored before any attempt, so a restart loses no event. */
export const webhookDeliveries = pgTable(
  "webhook_deliveries",
  {
    id: uuid("id").primaryKey().defaultRandom(),
    organizationId: owner(),
    endpointId: uuid("endpoint_id")
      .notNull()
      .references(() => webhookEndpoints.id, { onDelete: "cascade" }),
    /** `webhook-id`: the same on every attempt and resend of this delivery. */
    messageId: text("message_id").notNull(),
    eventType: text("event_type").notNull(),
    /** The exact body sent (signed as is on every attempt). */
    payload: text("payload").notNull(),
    status: text("status", { enum: WEBHOOK_DELIVERY_STATUSES }).notNull().default("pending"),
    attempts: integer("attempts").notNull().default(0),
    lastStatusCode: integer("last_status_code"),
    lastError: text("last_error"),
    nextAttemptAt: timestamp("next_attempt_at", { withTimezone: true }),
    createdAt: createdAt(),
  },
  (t) => [
    index("webhook_deliveries_endpoint_idx").on(t.endpointId, t.createdAt),
    // The recovery sweep reads the pending ones at every start; delivered rows pile up, pending ones don't.
    index("webhook_deliveries_status_idx").on(t.status),
  ],
);

export const apiKeys = pgTable(
  "api_keys",
  {
    id: uuid("id").primaryKey().defaultRandom(),
    organizationId: owner(),
    /**
     * The member who made it (their user id): the key acts for them, with their role at each
     * request. Leaving the organisation takes their keys with them (the foreign key below).
     */
    createdBy: text("created_by").notNull(),
    name: text("name").notNull(),
    /** The first 8 characters (`sk_` and 5 more), shown to tell keys apart. */
    prefix: text("prefix").notNull(),
    /** SHA-256 of the whole key, hex: the key itself is never stored. */
    keyHash: text("key_hash").notNull().unique(),
    expiresAt: timestamp("expires_at", { withTimezone: true }),
    lastUsedAt: timestamp("last_used_at", { withTimezone: true }),
    revokedAt: timestamp("revoked_at", { withTimezone: true }),
    createdAt: createdAt(),
  },
  (t) => [
    index("api_keys_org_idx").on(t.organizationId, t.createdAt),
    // The creator's membership, not just their user: removing them from this organisation
    // deletes their keys here (authentication also joins the membership, so none outlives it).
    foreignKey({ name: "api_keys_creator_member_fk", columns: [t.organizationId, t.createdBy], foreignColumns: [member.organizationId, member.userId] }).onDelete("cascade"),
  ],
);

// ── Audit log ──────────────────────────────────────────────────────────────────────────────

/**
 * Who did what, when, from which address (src/shared/audit.ts). Append-only: its repository has
 * insert, list and the purge of entries past their keep time, nothing else.
 */
export const auditLog = pgTable(
  "audit_log",
  {
    id: uuid("id").primaryKey().defaultRandom(),
    organizationId: owner(),
    actorUserId: text("actor_user_id").references(() => user.id, { onDelete: "set null" }),
    /** As it was when written: a removed member's entries still say who. */
    actorName: text("actor_name").notNull(),
    via: text("via", { enum: AUDIT_VIA }).notNull(),
    /** The API key that acted (with its creator as the actor); no foreign key: the entry outlives the key. */
    actorApiKeyId: uuid("actor_api_key_id"),
    action: text("action", { enum: AUDIT_ACTIONS }).notNull(),
    targetType: text("target_type", { enum: AUDIT_TARGET_TYPES }),
    targetId: text("target_id"),
    targetName: text("target_name"),
    details: jsonb("details").$type<Record<string, unknown>>().notNull().default({}),
    ip: text("ip"),
    createdAt: createdAt(),
  },
  (t) => [index("audit_log_org_created_idx").on(t.organizationId, t.createdAt, t.id)],
);

// ── Tests of assistants (docs/decisions/043-test-runs.md) ──────────────────────────────────

/**
 * A simulated caller of an assistant: a persona and goal for a text model to play, or a scripted
 * list of caller turns (a real call saved as a test); a rubric the judge scores against.
 * `source` says where it came from; suggestions from live calls wait in `status` until accepted.
 */
export const scenarios = pgTable(
  "scenarios",
  {
    id: uuid("id").primaryKey().defaultRandom(),
    organizationId: owner(),
    assistantId: uuid("assistant_id")
      .notNull()
      .references(() => assistants.id, { onDelete: "cascade" }),
    name: text("name").notNull(),
    persona: text("persona").notNull().default(""),
    goal: text("goal").notNull().default(""),
    facts: text("facts"),
    rubric: text("rubric").notNull(),
    maxTurns: integer("max_turns").notNull().default(8),
    /** A tool's name → the JSON it answers in a test, instead of its real endpoint. */
    toolAnswers: jsonb("tool_answers").$type<Record<string, unknown>>().notNull().default({}),
    /** A scripted caller: these words in order instead of a persona; null for a model-played caller. */
    callerTurns: jsonb("caller_turns").$type<string[]>(),
    source: text("source", { enum: SCENARIO_SOURCES }).notNull().default("manual"),
    /** Only for source "suggested": waiting, accepted (then run) or dismissed. */
    status: text("status", { enum: SCENARIO_STATUSES }),
    /** The call it was saved or suggested from; kept as null once that call is deleted. */
    sourceCallId: uuid("source_call_id").references(() => calls.id, { onDelete: "set null" }),
    createdAt: createdAt(),
    updatedAt: updatedAt(),
  },
  (t) => [index("scenarios_org_assistant_idx").on(t.organizationId, t.assistantId, t.createdAt)],
);

/** One press of "Run tests" (or a publish's check): the content under test, fixed when it started. */
export const testRuns = pgTable(
  "test_runs",
  {
    id: uuid("id").primaryKey().defaultRandom(),
    organizationId: owner(),
    assistantId: uuid("assistant_id")
      .notNull()
      .references(() => assistants.id, { onDelete: "cascade" }),
    /** null: the draft as it was when the run started (its content is `content`). */
    version: integer("version"),
    content: jsonb("content").$type<AssistantContent>().notNull(),
    cancelledAt: timestamp("cancelled_at", { withTimezone: true }),
    createdBy: text("created_by").references(() => user.id, { onDelete: "set null" }),
    createdAt: createdAt(),
  },
  (t) => [index("test_runs_org_assistant_idx").on(t.organizationId, t.assistantId, t.createdAt)],
);

/** One scenario of a run: played by one job, written once when judged. */
export const testResults = pgTable(
  "test_results",
  {
    id: uuid("id").primaryKey().defaultRandom(),
    organizationId: owner(),
    runId: uuid("run_id")
      .notNull()
      .references(() => testRuns.id, { onDelete: "cascade" }),
    /** Kept (as null) when the scenario is deleted: the result still names it. */
    scenarioId: uuid("scenario_id").references(() => scenarios.id, { onDelete: "set null" }),
    scenarioName: text("scenario_name").notNull(),
    position: integer("position").notNull(),
    status: text("status", { enum: TEST_RESULT_STATUSES }).notNull().default("pending"),
    passed: boolean("passed"),
    reasons: jsonb("reasons").$type<string[]>().notNull().default([]),
    transcript: jsonb("transcript").$type<TestTurn[]>().notNull().default([]),
    cost: doublePrecision("cost").notNull().default(0),
    durationMs: integer("duration_ms"),
    finishedAt: timestamp("finished_at", { withTimezone: true }),
  },
  (t) => [index("test_results_run_idx").on(t.runId, t.position)],
);

// ── Knowledge bases ─────────────────────────────────────────────────────────────────────────

export const knowledgeBases = pgTable(
  "knowledge_bases",
  {
    id: uuid("id").primaryKey().defaultRandom(),
    organizationId: owner(),
    name: text("name").notNull(),
    description: text("description"),
    createdAt: createdAt(),
    updatedAt: updatedAt(),
  },
  (t) => [index("knowledge_bases_org_idx").on(t.organizationId, t.createdAt)],
);

/**
 * A document of a base. `generation` grows with each re-process or replacement: the ingestion
 * job carries the generation it was queued for and writes nothing once a newer one exists.
 * `passageSet` names the passages a search sees: a store writes its passages under a new set,
 * statement by statement, and makes them searchable by setting it here (ADR 080).
 */
export const knowledgeDocuments = pgTable(
  "knowledge_documents",
  {
    id: uuid("id").primaryKey().defaultRandom(),
    organizationId: owner(),
    knowledgeBaseId: uuid("knowledge_base_id")
      .notNull()
      .references(() => knowledgeBases.id, { onDelete: "cascade" }),
    name: text("name").notNull(),
    source: text("source", { enum: DOCUMENT_SOURCES }).notNull(),
    url: text("url"),
    refresh: text("refresh", { enum: URL_REFRESH }).notNull().default("never"),
    contentType: text("content_type"),
    /** The uploaded or pasted original, in storage (a URL's is fetched by the job). */
    storageKey: text("storage_key"),
    sizeBytes: integer("size_bytes").notNull().default(0),
    status: text("status", { enum: DOCUMENT_STATUSES }).notNull().default("queued"),
    progress: integer("progress").notNull().default(0),
    error: text("error"),
    chunkCount: integer("chunk_count").notNull().default(0),
    pageCount: integer("page_count"),
    embedded: boolean("embedded").notNull().default(false),
    generation: integer("generation").notNull().default(1),
    passageSet: uuid("passage_set").notNull().default(sql`'00000000-0000-0000-0000-000000000000'`),
    lastFetchedAt: timestamp("last_fetched_at", { withTimezone: true }),
    lastFetchError: text("last_fetch_error"),
    createdAt: createdAt(),
    updatedAt: updatedAt(),
  },
  (t) => [index("knowledge_documents_base_idx").on(t.organizationId, t.knowledgeBaseId, t.createdAt)],
);

/**
 * The passages retrieval returns. `search` is the full-text index; the `embedding vector(N)`
 * column and its HNSW index are added at start where pgvector exists (knowledge/vector-store.ts),
 * so this schema, and the migrations, hold on a server without it.
 */
export const knowledgeChunks = pgTable(
  "knowledge_chunks",
  {
    id: uuid("id").primaryKey().defaultRandom(),
    organizationId: owner(),
    knowledgeBaseId: uuid("knowledge_base_id").notNull(),
    documentId: uuid("document_id")
      .notNull()
      .references(() => knowledgeDocuments.id, { onDelete: "cascade" }),
    position: integer("position").notNull(),
    location: text("location"),
    content: text("content").notNull(),
    search: tsvector("search").generatedAlwaysAs(sql.raw("to_tsvector('english'::regconfig, content)")),
    /** Searchable only while it is its document's `passageSet` (the nil uuid: stored before sets). */
    passageSet: uuid("passage_set").notNull().default(sql`'00000000-0000-0000-0000-000000000000'`),
  },
  (t) => [
    // Words written straight into the index, not its pending list: a search scans the whole list
    // (up to 4 MB) until a vacuum merges it, and a table mostly inserted into is seldom vacuumed (ADR 086).
    index("knowledge_chunks_search_idx").using("gin", t.search).with({ fastupdate: false }),
    index("knowledge_chunks_base_idx").on(t.organizationId, t.knowledgeBaseId),
    index("knowledge_chunks_document_idx").on(t.documentId, t.position),
  ],
);

/**
 * How many passages of a base hold each word (stemmed lexeme), kept exact by triggers on
 * `knowledge_chunks` (migration 0028): retrieval searches by a question's rarer words, so a
 * question full of common words never ranks a whole base.
 */
export const knowledgeTerms = pgTable(
  "knowledge_terms",
  {
    organizationId: owner(),
    knowledgeBaseId: uuid("knowledge_base_id").notNull(),
    lexeme: text("lexeme").notNull(),
    passages: integer("passages").notNull(),
  },
  (t) => [primaryKey({ columns: [t.organizationId, t.knowledgeBaseId, t.lexeme] })],
);

/**
 * A POST's `Idempotency-Key` and the first answer it got (docs/decisions/063-idempotency-keys.md),
 * per organisation: a retry with the same key gets that answer instead of a second action, on any
 * instance. `status` is null while the first request is still being handled. Kept 24 hours.
 */
export const idempotencyKeys = pgTable(
  "idempotency_keys",
  {
    organizationId: owner(),
    key: text("key").notNull(),
    /** SHA-256 of the method, route and body: the same key with another request is refused. */
    fingerprint: text("fingerprint").notNull(),
    status: integer("status"),
    /** The answer's JSON text, as it was sent. */
    body: text("body"),
    createdAt: createdAt(),
  },
  (t) => [primaryKey({ columns: [t.organizationId, t.key] }), index("idempotency_keys_created_idx").on(t.createdAt)],
);
