/**
 * The types every module is built from: the configuration the app runs with and the few shared
 * services (ModuleContext). They live apart from app.ts so that a service can name them without
 * importing the composition root that imports it (app → routes → service → app was a cycle).
 */
import type { Auth } from "./auth/auth.ts";
import type { SocketSessions } from "./auth/socket-sessions.ts";
import type { Config, SipConfig } from "./config.ts";
import type { PlaceCallRequest } from "./carriers/carrier.ts";
import type { Bus } from "./db/bus.ts";
import type { Db } from "./db/client.ts";
import type { Drain } from "./instances/drain.ts";
import type { InstanceLease } from "./instances/instance-lease.ts";
import type { JobQueue } from "./jobs/job-queue.ts";
import type { LiveCalls } from "./modules/calls/live-calls.ts";
import type { SecretBox } from "./secrets/crypto.ts";
import type { CounterStore } from "./shared-state/index.ts";
import type { UrlSigner } from "./storage/signed-url.ts";
import type { Storage } from "./storage/storage.ts";

export type AppConfig = Config & { appSecret: string };

/** What every module gets: the few shared services, passed explicitly rather than via globals. */
export interface ModuleContext {
  config: AppConfig;
  db: Db;
  /** Messages between the instances on this database (LISTEN/NOTIFY; in process on the embedded one). */
  bus: Bus;
  secrets: SecretBox;
  auth: Auth;
  /** Media and recordings; hand them out only through `signer.signUrl` addresses. */
  storage: Storage;
  signer: UrlSigner;
  /** The calls this instance is carrying; shutdown ends each one and finalises its record. */
  liveCalls: LiveCalls;
  /** Rate-limit windows, failed-login counts and used tokens, shared by every instance. */
  counters: CounterStore;
  /** This instance's id and lease: live call records name it (instances/instance-lease.ts). */
  instance: InstanceLease;
  /** Set on SIGTERM: no new calls are taken while the live ones finish. */
  drain: Drain;
  /** The durable job queue (jobs/job-queue.ts): register handlers while services are made. */
  jobs: JobQueue;
  /** Live sockets opened with a sign-in session, closed (4401) soon after that session ends. */
  socketSessions: SocketSessions;
  /** The wall clock of scheduled work (campaign windows, retries); tests pass a controllable one. */
  clock: () => Date;
}

declare module "fastify" {
  interface FastifyInstance {
    ctx: ModuleContext;
    /** The SIP endpoint's runtime (carriers/sip-runtime), started by main.ts. */
    sip: SipRuntime;
  }
}

/** What the app and main.ts see of the SIP runtime (declared here so the runtime may import this file). */
export interface SipRuntime {
  /** Whether SIP is listening, and where (the trunks' page shows it). */
  status(fallbackPort: number): { enabled: boolean; port: number; tlsPort: number | null; transports: ("udp" | "tcp" | "tls")[] };
  /** The bound SIP port (UDP and TCP), or null when SIP is not listening. */
  readonly port: number | null;
  /** The bound SIP-over-TLS port, or null without TLS. */
  readonly tlsPort: number | null;
  /** Listens; resolves false (and logs why) when the port cannot be bound. */
  start(settings: Omit<SipConfig, "enabled">): Promise<boolean>;
  /** Places a call over its number's trunk; refused (503) while SIP is not listening. */
  place(request: PlaceCallRequest): Promise<{ providerCallId: string }>;
  /** Cancels or hangs up a call placed for the organisation, here or on the instance carrying it; an unknown one is no error. */
  end(organizationId: string, providerCallId: string): Promise<void>;
  /** A trunk was added, changed or deleted: registrations are brought in line now, not at the next sweep. */
  trunksChanged(): void;
  /** Un-registers the trunks, ends the calls, closes the sockets. */
  /** Sends a BYE for each SIP call among `callIds` whose instance died (records a sweep just closed). */
  hangUpOrphans(callIds: string[]): Promise<void>;
  /** Calls a transfer bridged here, after their sessions ended: a planned stop waits for them too. */
  readonly bridges: { readonly size: number; idle(): Promise<void> };
  stop(): Promise<void>;
}
