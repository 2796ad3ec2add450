import { availableParallelism } from "node:os";
import { z } from "zod";
import type { SignupPolicy } from "../shared/team.ts";

/**
 * Calls one instance (one process, one core) carries by default: what `npm run bench:calls`
 * shows one core sustaining with every frame's added latency under 50 ms at p99 (README).
 */
export const DEFAULT_MAX_CALLS = 50;

/** The only reader of process.env: every setting is parsed and validated here, once, at start. */
const schema = z.object({
  NODE_ENV: z.enum(["development", "production", "test"]).default("development"),
  PORT: z.coerce.number().int().min(0).max(65535).default(3000),
  HOST: z.string().min(1).default("127.0.0.1"),
  DATA_DIR: z.string().min(1).default("./data"),
  DATABASE_URL: z
    .string()
    .regex(/^postgres(ql)?:\/\//, "must be a postgres:// or postgresql:// connection string")
    .optional(),
  APP_SECRET: z.string().min(32, "must be at least 32 characters").optional(),
  PUBLIC_URL: z.url({ protocol: /^https?$/, error: "must be an http(s) URL" }).optional(),
  OPENAI_BASE_URL: z.url({ protocol: /^https?$/, error: "must be an http(s) URL" }).default("https://api.openai.com/v1"),
  OPENAI_REALTIME_MODEL: z.string().min(1).default("gpt-realtime-2.1"),
  TWILIO_API_BASE: z.url({ protocol: /^https?$/, error: "must be an http(s) URL" }).default("https://api.twilio.com"),
  TOOL_ALLOWED_HOSTS: z.string().default(""),
  // Apart from the tools' list: opening a private address to tools must not open it to every organisation's webhooks.
  WEBHOOK_ALLOWED_HOSTS: z.string().default(""),
  SMTP_URL: z.url({ protocol: /^smtps?$/, error: "must be an smtp:// or smtps:// URL" }).optional(),
  TRUST_PROXY: z
    .string()
    .regex(/^(true|false|[\d.:a-fA-F/, ]+)$/, "must be true, false or a list of proxy addresses")
    .default("false"),
  // The one way to run production over plain http (an intranet without TLS): cookies lose Secure.
  ALLOW_HTTP_IN_PRODUCTION: z.enum(["true", "false"], { error: "must be true or false" }).default("false"),
  LOG_LEVEL: z.enum(["fatal", "error", "warn", "info", "debug", "trace", "silent"]).default("info"),
  REDIS_URL: z.url({ protocol: /^rediss?$/, error: "must be a redis:// or rediss:// URL" }).optional(),
  S3_ENDPOINT: z.url({ protocol: /^https?$/, error: "must be an http(s) URL" }).optional(),
  S3_BUCKET: z.string().regex(/^[a-z0-9][a-z0-9.-]{1,61}[a-z0-9]$/, "must be a valid bucket name").optional(),
  S3_REGION: z.string().regex(/^[a-z0-9-]{1,40}$/, "must be a region name such as eu-west-1").optional(),
  S3_ACCESS_KEY_ID: z.string().min(1).optional(),
  S3_SECRET_ACCESS_KEY: z.string().min(1).optional(),
  S3_FORCE_PATH_STYLE: z.enum(["true", "false"], { error: "must be true or false" }).default("true"),
  INSTANCE_ID: z.string().regex(/^[A-Za-z0-9._-]{1,64}$/, "must be 1–64 letters, digits, dots, dashes or underscores").optional(),
  // This instance's own address for Twilio, when it has one besides the balancer's PUBLIC_URL.
  INSTANCE_URL: z.url({ protocol: /^https?$/, error: "must be an http(s) URL" }).optional(),
  INSTANCE_LEASE_MS: z.coerce.number().int().min(500, "must be at least 500").max(600_000).default(30_000),
  DRAIN_TIMEOUT_MS: z.coerce.number().int().min(0).max(3_600_000).default(60_000),
  MAX_CALLS: z.coerce.number().int().min(1, "must be at least 1").max(100_000).default(DEFAULT_MAX_CALLS),
  // Worker processes (node:cluster) sharing the port; with DATABASE_URL only (PGlite is one process).
  WORKERS: z.coerce.number().int().min(1, "must be at least 1").max(256).optional(),
  // Who may create an account: open, invite (an invitation only), or domain:a.com,b.org.
  SIGNUP: z
    .string()
    .regex(/^(open|invite|domain:[a-z0-9.-]+\.[a-z]{2,}(,[a-z0-9.-]+\.[a-z]{2,})*)$/i, "must be open, invite, or domain: followed by a comma-separated list of domains")
    .default("open"),
  // The Calls page's stats from the roll-ups (ADR 061); false sums the calls themselves on each request.
  STATS_ROLLUPS: z.enum(["true", "false"], { error: "must be true or false" }).default("true"),
  JOB_POLL_INTERVAL_MS: z.coerce.number().int().min(500, "must be at least 500").max(60_000).default(2000),
  // Post-call analysis (modules/analysis): analyses at once per instance, one request's time limit,
  // and the pauses before each retry of a rate-limited or failed request.
  // A pipeline call's language model or voice silent this long fails the turn (the call goes on).
  PIPELINE_SERVICE_TIMEOUT_MS: z.coerce.number().int().min(500, "must be at least 500").max(120_000).default(15_000),
  ANALYSIS_CONCURRENCY: z.coerce.number().int().min(1).max(64).default(8),
  ANALYSIS_REQUEST_TIMEOUT_MS: z.coerce.number().int().min(1000, "must be at least 1000").max(600_000).default(60_000),
  ANALYSIS_RETRY_DELAYS_MS: z
    .string()
    .regex(/^\s*\d+(\s*,\s*\d+)*\s*$/, "must be a comma-separated list of milliseconds")
    .default("5000,30000,120000,600000,1800000"),
  // Knowledge bases (modules/knowledge): the embeddings model (it must take `dimensions`, as the
  // text-embedding-3 models do) and the pauses before each retry of a rate-limited or failed batch.
  KNOWLEDGE_EMBEDDING_MODEL: z.string().trim().min(1).max(100).default("text-embedding-3-small"),
  KNOWLEDGE_RETRY_DELAYS_MS: z
    .string()
    .regex(/^\s*\d+(\s*,\s*\d+)*\s*$/, "must be a comma-separated list of milliseconds")
    .default("5000,30000,120000,600000"),
  // Test runs (modules/test-runs): scenarios played at once per instance, and the pauses before
  // each retry of a scenario cut short by a rate limit or an outage.
  TEST_RUN_CONCURRENCY: z.coerce.number().int().min(1).max(64).default(8),
  // SIP trunks (carriers/sip): where this instance takes SIP, the address trunks are given
  // (Contact, Via, SDP; PUBLIC_URL's host when unset) and the UDP ports its RTP may use.
  SIP_ENABLED: z.enum(["true", "false"], { error: "must be true or false" }).default("true"),
  SIP_PORT: z.coerce.number().int().min(0).max(65535).default(5060),
  SIP_HOST: z.string().min(1).optional(),
  SIP_PUBLIC_ADDRESS: z
    .string()
    .regex(/^[A-Za-z0-9.:-]{1,253}$/, "must be a host name or an IP address")
    .optional(),
  // SIP over TLS (ADR 075): our certificate and key (PEM files) turn it on, on its own port; a CA
  // file (PEM) is trusted besides the system's when we connect out (a PBX's self-signed
  // certificate); SIP_SRTP=required refuses calls over TLS that offer plain RTP.
  SIP_TLS_CERT: z.string().min(1).optional(),
  SIP_TLS_KEY: z.string().min(1).optional(),
  SIP_TLS_PORT: z.coerce.number().int().min(0).max(65535).default(5061),
  SIP_TLS_CA: z.string().min(1).optional(),
  SIP_SRTP: z.enum(["optional", "required"], { error: "must be optional or required" }).default("optional"),
  RTP_PORTS: z
    .string()
    .regex(/^\s*\d{1,5}\s*-\s*\d{1,5}\s*$/, "must be a range such as 10000-20000")
    .refine((r) => {
      const [min, max] = r.split("-").map((n) => Number(n.trim()));
      return min! >= 1 && max! <= 65535 && min! <= max!;
    }, "must be a range of ports from 1 to 65535, the lower first")
    .default("10000-20000"),
  // A phone that loses its network sends no BYE: its call ends after this long without RTP (0: never).
  RTP_TIMEOUT_SECONDS: z.coerce.number().int().min(0).max(3600).default(60),
  TEST_RUN_RETRY_DELAYS_MS: z
    .string()
    .regex(/^\s*\d+(\s*,\s*\d+)*\s*$/, "must be a comma-separated list of milliseconds")
    .default("5000,30000,120000"),
});

const S3_KEYS = ["S3_ENDPOINT", "S3_BUCKET", "S3_REGION", "S3_ACCESS_KEY_ID", "S3_SECRET_ACCESS_KEY"] as const;

export interface S3Config {
  endpoint: string;
  bucket: string;
  region: string;
  accessKeyId: string;
  secretAccessKey: string;
  /** `<endpoint>/<bucket>/<key>` addresses (MinIO, most self-hosted stores) rather than `<bucket>.<host>`. */
  forcePathStyle: boolean;
}

export interface Config {
  env: "development" | "production" | "test";
  port: number;
  host: string;
  dataDir: string;
  databaseUrl: string | undefined;
  /** Absent until `ensureAppSecret` fills it from DATA_DIR; never absent in production. */
  appSecret: string | undefined;
  publicUrl: string;
  openaiBaseUrl: string;
  defaultRealtimeModel: string;
  twilioApiBase: string;
  toolAllowedHosts: string[];
  /** Hosts webhook endpoints may use even on private addresses (and over http). */
  webhookAllowedHosts: string[];
  smtpUrl: string | undefined;
  /** Whether X-Forwarded-For names the client (behind a reverse proxy); Fastify's `trustProxy`. */
  trustProxy: boolean | string;
  logLevel: string;
  /** Session cookies carry Secure: production over https (see ALLOW_HTTP_IN_PRODUCTION). */
  secureCookies: boolean;
  /** Shared counters and single-use tokens in Redis; PostgreSQL when unset. */
  redisUrl: string | undefined;
  /** Object storage in an S3-compatible bucket; the local folder when unset. */
  s3: S3Config | undefined;
  /** Names this process in the `instances` table and on the calls it carries; random per start by default. */
  instanceId: string | undefined;
  /**
   * Where Twilio reaches this very instance (not the balancer): a full instance redirects phone
   * calls to another's, and this instance's streams are pointed here. Unset: PUBLIC_URL.
   */
  instanceUrl: string | undefined;
  /** How long an instance's heartbeat lease lasts; its calls are closed by others once it lapses. */
  instanceLeaseMs: number;
  /** On SIGTERM, how long live calls may go on before they are ended. */
  drainTimeoutMs: number;
  /** The most calls (phone and test) this instance carries at once; beyond it callers are refused politely. */
  maxCalls: number;
  /** Worker processes `npm start` runs with a PostgreSQL server (the embedded database runs one). */
  workers: number;
  /** Who may create an account (the first user of an empty server always may). */
  signup: SignupPolicy;
  /** How often an idle job worker looks for due jobs (jobs sent by this instance wake it at once). */
  jobPollIntervalMs: number;
  /** Whether the Calls page's stats read the roll-ups (else the calls themselves; the same numbers). */
  statsRollups: boolean;
  /** How long a pipeline's model or voice may be silent before the turn fails. */
  pipelineServiceTimeoutMs: number;
  analysis: { concurrency: number; requestTimeoutMs: number; retryDelaysMs: number[] };
  testRuns: { concurrency: number; requestTimeoutMs: number; retryDelaysMs: number[] };
  knowledge: { embeddingModel: string; retryDelaysMs: number[] };
  sip: SipConfig;
}

export interface SipConfig {
  /** SIP_ENABLED: whether this instance listens for SIP at all. */
  enabled: boolean;
  /** SIP_PORT (UDP and TCP); 0 picks a free one (tests). */
  port: number;
  /** SIP_HOST: the local address the listener binds (HOST when unset). */
  host: string;
  /** SIP_PUBLIC_ADDRESS: what trunks are told to reach (Contact, Via, SDP); PUBLIC_URL's host when unset. */
  publicAddress: string;
  /** RTP_PORTS: the UDP ports a call's audio may use, both ends included. */
  rtpPorts: { min: number; max: number };
  /** RTP_TIMEOUT_SECONDS: a call whose far end sends no RTP this long (not on hold) is hung up; absent or 0, never. */
  rtpTimeoutSeconds?: number;
  /** SIP over TLS, when SIP_TLS_CERT and SIP_TLS_KEY name our certificate and key (PEM files). */
  tls?: SipTlsConfig;
}

export interface SipTlsConfig {
  certFile: string;
  keyFile: string;
  /** SIP_TLS_PORT (5061); 0 picks a free one (tests). */
  port: number;
  /** SIP_TLS_CA: CA certificates (PEM file) trusted besides the system's for TLS we open. */
  caFile?: string;
  /** SIP_SRTP: whether calls over TLS may use plain RTP (`optional`) or must use SRTP (`required`). */
  srtp: "optional" | "required";
}

export class ConfigError extends Error {}

const blankToUndefined = (env: Record<string, string | undefined>) =>
  Object.fromEntries(Object.entries(env).filter(([, v]) => v !== undefined && v.trim() !== ""));

export function loadConfig(env: Record<string, string | undefined> = process.env): Config {
  const parsed = schema.safeParse(blankToUndefined(env));
  if (!parsed.success) {
    const lines = parsed.error.issues.map((i) => `${i.path.join(".")}: ${i.message}`);
    throw new ConfigError(`Invalid configuration:\n  ${lines.join("\n  ")}`);
  }
  const e = parsed.data;
  if (e.NODE_ENV === "production" && !e.APP_SECRET) {
    throw new ConfigError("Invalid configuration:\n  APP_SECRET: is required when NODE_ENV=production");
  }
  if (!e.SIP_TLS_CERT !== !e.SIP_TLS_KEY) {
    throw new ConfigError(`Invalid configuration:\n  ${e.SIP_TLS_CERT ? "SIP_TLS_KEY" : "SIP_TLS_CERT"}: is required with ${e.SIP_TLS_CERT ? "SIP_TLS_CERT" : "SIP_TLS_KEY"}`);
  }
  const publicUrl = (e.PUBLIC_URL ?? `http://localhost:${e.PORT}`).replace(/\/+$/, "");
  const httpsPublicUrl = publicUrl.startsWith("https://");
  if (e.NODE_ENV === "production" && !httpsPublicUrl && e.ALLOW_HTTP_IN_PRODUCTION !== "true") {
    throw new ConfigError(
      "Invalid configuration:\n  PUBLIC_URL: must be an https:// URL when NODE_ENV=production (session cookies are sent only over https); " +
        "set ALLOW_HTTP_IN_PRODUCTION=true to run over plain http on a private network",
    );
  }
  // Half a storage configuration is a typo, not a choice: refuse it rather than fall back silently.
  const missingS3 = S3_KEYS.filter((k) => e[k] === undefined);
  if (missingS3.length > 0 && missingS3.length < S3_KEYS.length) {
    throw new ConfigError(`Invalid configuration:\n  ${missingS3.map((k) => `${k}: is required when any S3_ setting is set`).join("\n  ")}`);
  }
  return {
    env: e.NODE_ENV,
    port: e.PORT,
    host: e.HOST,
    dataDir: e.DATA_DIR,
    databaseUrl: e.DATABASE_URL,
    appSecret: e.APP_SECRET,
    publicUrl,
    openaiBaseUrl: e.OPENAI_BASE_URL.replace(/\/+$/, ""),
    defaultRealtimeModel: e.OPENAI_REALTIME_MODEL,
    twilioApiBase: e.TWILIO_API_BASE.replace(/\/+$/, ""),
    toolAllowedHosts: hostList(e.TOOL_ALLOWED_HOSTS),
    webhookAllowedHosts: hostList(e.WEBHOOK_ALLOWED_HOSTS),
    smtpUrl: e.SMTP_URL,
    trustProxy: parseTrustProxy(e.TRUST_PROXY),
    logLevel: e.LOG_LEVEL,
    secureCookies: e.NODE_ENV === "production" && httpsPublicUrl,
    redisUrl: e.REDIS_URL,
    s3:
      missingS3.length === 0
        ? {
            endpoint: e.S3_ENDPOINT!.replace(/\/+$/, ""),
            bucket: e.S3_BUCKET!,
            region: e.S3_REGION!,
            accessKeyId: e.S3_ACCESS_KEY_ID!,
            secretAccessKey: e.S3_SECRET_ACCESS_KEY!,
            forcePathStyle: e.S3_FORCE_PATH_STYLE === "true",
          }
        : undefined,
    instanceId: e.INSTANCE_ID,
    instanceUrl: e.INSTANCE_URL?.replace(/\/+$/, ""),
    instanceLeaseMs: e.INSTANCE_LEASE_MS,
    drainTimeoutMs: e.DRAIN_TIMEOUT_MS,
    pipelineServiceTimeoutMs: e.PIPELINE_SERVICE_TIMEOUT_MS,
    jobPollIntervalMs: e.JOB_POLL_INTERVAL_MS,
    statsRollups: e.STATS_ROLLUPS === "true",
    maxCalls: e.MAX_CALLS,
    workers: e.WORKERS ?? availableParallelism(),
    signup: parseSignup(e.SIGNUP),
    analysis: {
      concurrency: e.ANALYSIS_CONCURRENCY,
      requestTimeoutMs: e.ANALYSIS_REQUEST_TIMEOUT_MS,
      retryDelaysMs: e.ANALYSIS_RETRY_DELAYS_MS.split(",").map((ms) => Number(ms.trim())),
    },
    sip: {
      enabled: e.SIP_ENABLED === "true",
      port: e.SIP_PORT,
      host: e.SIP_HOST ?? e.HOST,
      publicAddress: e.SIP_PUBLIC_ADDRESS ?? new URL(publicUrl).hostname.replace(/^\[|\]$/g, ""),
      rtpPorts: (([min, max]) => ({ min: min!, max: max! }))(e.RTP_PORTS.split("-").map((n) => Number(n.trim()))),
      rtpTimeoutSeconds: e.RTP_TIMEOUT_SECONDS,
      tls: e.SIP_TLS_CERT && e.SIP_TLS_KEY ? { certFile: e.SIP_TLS_CERT, keyFile: e.SIP_TLS_KEY, port: e.SIP_TLS_PORT, caFile: e.SIP_TLS_CA, srtp: e.SIP_SRTP } : undefined,
    },
    testRuns: {
      concurrency: e.TEST_RUN_CONCURRENCY,
      // One request of a test waits as long as one of an analysis.
      requestTimeoutMs: e.ANALYSIS_REQUEST_TIMEOUT_MS,
      retryDelaysMs: e.TEST_RUN_RETRY_DELAYS_MS.split(",").map((ms) => Number(ms.trim())),
    },
    knowledge: {
      embeddingModel: e.KNOWLEDGE_EMBEDDING_MODEL,
      retryDelaysMs: e.KNOWLEDGE_RETRY_DELAYS_MS.split(",").map((ms) => Number(ms.trim())),
    },
  };
}

/** A comma-separated list of hosts (optionally host:port), lower-cased. */
const hostList = (value: string) => value.split(",").map((h) => h.trim().toLowerCase()).filter(Boolean);

function parseSignup(value: string): SignupPolicy {
  const v = value.toLowerCase();
  if (v === "open" || v === "invite") return { mode: v };
  return { mode: "domain", domains: v.slice("domain:".length).split(",") };
}

function parseTrustProxy(value: string): boolean | string {
  return value === "true" ? true : value === "false" ? false : value;
}
