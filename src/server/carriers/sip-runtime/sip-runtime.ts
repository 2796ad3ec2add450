/**
 * The SIP side of the app: made with the other services (no sockets yet), started by main.ts on
 * SIP_HOST:SIP_PORT (tests start it on port 0), stopped when the app closes. A port that cannot be
 * bound leaves the server running without SIP, and the log says why.
 */
import type { FastifyBaseLogger } from "fastify";
import type { SipConfig } from "../../config.ts";
import type { ModuleContext, SipRuntime } from "../../context.ts";
import { SIP_CARRIER_MESSAGES } from "../../../shared/sip-trunks.ts";
import { AppError } from "../../errors.ts";
import type { CallsService } from "../../modules/calls/calls.service.ts";
import type { OutboundRoute } from "../../modules/sip-trunks/sip-trunks.service.ts";
import type { PlaceCallRequest } from "../carrier.ts";
import type { SipCall } from "../sip/call.ts";
import { DigestChallenger } from "../sip/digest.ts";
import { SipEndpoint } from "../sip/endpoint.ts";
import { RefusalLimiter } from "./admission.ts";
import { Bridges } from "./bridge.ts";
import type { SipTrunkDirectory } from "./directory.ts";
import { RETRY_AFTER_S, takeInboundCall } from "./inbound.ts";
import { createOptionsSeen } from "./options-seen.ts";
import { orphanedDialogs } from "./orphans.repo.ts";
import { dialRoute, placeSipCall } from "./outbound.ts";
import { createRegistrations } from "./registrations.ts";
import { loadTls } from "./tls.ts";

export type SipSettings = Omit<SipConfig, "enabled">;

export interface SipRuntimeDeps {
  ctx: Pick<ModuleContext, "db" | "liveCalls" | "drain" | "bus">;
  calls: CallsService;
  directory: SipTrunkDirectory;
  logger: FastifyBaseLogger;
  /** How long a call we place may ring (tests shorten it). */
  ringTimeoutMs?: number;
  /** How long a transfer's destination may ring (tests shorten it). */
  transferRingMs?: number;
}

/** How long shutdown waits for the BYEs it sent to go out before the sockets close. */
const BYE_GRACE_MS = 200;
/** Where `end` asks the instance carrying a call (the first worker, or another instance) to end it. */
export const SIP_END_CHANNEL = "sip_end_call";
/** Where a worker without SIP hands the calls its sweep closed to one that listens. */
export const SIP_ORPHANS_CHANNEL = "sip_orphaned_calls";

export function createSipRuntime(deps: SipRuntimeDeps): SipRuntime {
  let endpoint: SipEndpoint | null = null;
  let unsubscribe: (() => void) | null = null;
  const calls = new Set<SipCall>();
  /** Calls we placed, by Call-ID, with their organisation: what `end` may hang up. */
  const placed = new Map<string, { call: SipCall; organizationId: string }>();
  // MD5 is offered first: much trunk equipment reads only the first challenge and knows only MD5;
  // an answer with SHA-256 (RFC 8760) is accepted all the same (ADR 058).
  /** A transfer's call to the destination, through the call's trunk; tracked as any call (shutdown ends it). */
  async function dial(route: OutboundRoute, uri: string): Promise<SipCall> {
    if (!endpoint) throw new Error("SIP is not listening");
    if (route.transport === "tls" && endpoint.tlsPort === null) throw new Error(SIP_CARRIER_MESSAGES.tlsOutbound);
    const call = await dialRoute(endpoint, route, uri);
    track(call);
    return call;
  }
  const bridges = new Bridges(deps.ctx.liveCalls);
  const optionsSeen = createOptionsSeen({ directory: deps.directory, logger: deps.logger });
  const registrations = createRegistrations({ directory: deps.directory, logger: deps.logger });
  const inbound = { ...deps, dial, bridges, challenger: new DigestChallenger("switchboard", ["MD5", "SHA-256"]), limiter: new RefusalLimiter() };

  function track(call: SipCall) {
    calls.add(call);
    call.once("ended", () => calls.delete(call));
  }

  function take(call: SipCall) {
    track(call);
    takeInboundCall(call, inbound).catch((err: unknown) => {
      deps.logger.error({ err, sipCallId: call.callId }, "taking a SIP call failed");
      call.reject(500);
      call.hangup();
    });
  }

  /** Ends a call this instance placed, when it has it. */
  function endLocal(organizationId: string, providerCallId: string): boolean {
    const found = placed.get(providerCallId);
    if (found?.organizationId !== organizationId) return false;
    found.call.hangup();
    return true;
  }

  const runtime: SipRuntime = {
    /** Calls a transfer bridged here, after their sessions ended: a planned stop waits for them too. */
    bridges,

    /** Whether SIP is listening, and where (the trunks' page shows it). */
    status(fallbackPort: number): { enabled: boolean; port: number; tlsPort: number | null; transports: ("udp" | "tcp" | "tls")[] } {
      if (!endpoint) return { enabled: false, port: fallbackPort, tlsPort: null, transports: [] };
      return { enabled: true, port: endpoint.port, tlsPort: endpoint.tlsPort, transports: endpoint.tlsPort === null ? ["udp", "tcp"] : ["udp", "tcp", "tls"] };
    },

    /** The bound SIP-over-TLS port, or null without TLS. */
    get tlsPort(): number | null {
      return endpoint?.tlsPort ?? null;
    },

    /** The bound SIP port (UDP and TCP), or null when SIP is not listening. */
    get port(): number | null {
      return endpoint?.port ?? null;
    },

    /** Places a call over its number's trunk (carriers/carrier.ts); refused while SIP is not listening. */
    async place(request: PlaceCallRequest): Promise<{ providerCallId: string }> {
      if (!endpoint) throw new AppError(503, "sip_unavailable", SIP_CARRIER_MESSAGES.unavailable);
      return placeSipCall(endpoint, request, { ...deps, dial, bridges }, (call) => {
        track(call);
        placed.set(call.callId, { call, organizationId: request.organizationId });
        call.once("ended", () => placed.delete(call.callId));
      });
    },

    /**
     * Cancels or hangs up a call placed for `organizationId`: here, or — asked over the bus — on
     * the instance (or worker) carrying it. Any other id is no error.
     */
    async end(organizationId: string, providerCallId: string): Promise<void> {
      if (endLocal(organizationId, providerCallId)) return;
      await deps.ctx.bus.publish(SIP_END_CHANNEL, JSON.stringify({ organizationId, providerCallId }));
    },

    /**
     * Hangs up the far end of SIP calls whose instance died (their records just closed by a sweep
     * of this one), with a BYE built from the dialog each record kept. Never throws.
     */
    async hangUpOrphans(callIds: string[]): Promise<void> {
      if (callIds.length === 0) return;
      const current = endpoint;
      try {
        // This worker takes no SIP (ADR 058): the listening one sends the BYEs.
        if (!current) return await deps.ctx.bus.publish(SIP_ORPHANS_CHANNEL, JSON.stringify(callIds));
        const orphans = await orphanedDialogs(deps.ctx.db, callIds);
        await Promise.all(
          orphans.map(async ({ id, dialog }) => {
            const status = await current.byeFor(dialog);
            deps.logger.info({ callId: id, sipCallId: dialog.callId, status }, "SIP: hung up a call whose server stopped");
          }),
        );
      } catch (err) {
        deps.logger.error({ err }, "SIP: hanging up the calls of a stopped server failed");
      }
    },

    /** Listens; resolves false (and logs why) when the port cannot be bound. */
    async start(settings: SipSettings): Promise<boolean> {
      const tls = await loadTls(settings.tls, deps.logger);
      try {
        endpoint = await SipEndpoint.start({ host: settings.host, port: settings.port, publicAddress: settings.publicAddress, rtp: { ports: settings.rtpPorts, inactivityMs: (settings.rtpTimeoutSeconds ?? 0) * 1000 }, tls });
      } catch (err) {
        const ports = tls ? `${settings.port} and TLS ${tls.port}` : String(settings.port);
        deps.logger.warn({ err }, `SIP is off: cannot listen on ${settings.host}:${ports} (${(err as Error).message}); set SIP_PORT${tls ? ", SIP_TLS_PORT" : ""} and SIP_HOST to free ports and an address`);
        return false;
      }
      endpoint.on("call", take);
      endpoint.on("options", (from) => optionsSeen.seen(from.address));
      endpoint.on("connectFailed", (to, err) => deps.logger.warn({ err }, `SIP: cannot connect to ${to.name ?? to.address}:${to.port} over ${to.transport} (${err.message})`));
      void optionsSeen.start();
      void registrations.start(endpoint);
      const stopEnds = await deps.ctx.bus.subscribe(SIP_END_CHANNEL, (payload) => {
        const asked = JSON.parse(payload) as { organizationId?: unknown; providerCallId?: unknown };
        if (typeof asked.organizationId === "string" && typeof asked.providerCallId === "string") endLocal(asked.organizationId, asked.providerCallId);
      });
      const stopOrphans = await deps.ctx.bus.subscribe(SIP_ORPHANS_CHANNEL, (payload) => {
        const ids = JSON.parse(payload) as unknown;
        if (Array.isArray(ids)) void runtime.hangUpOrphans(ids.filter((id): id is string => typeof id === "string"));
      });
      unsubscribe = () => {
        stopEnds();
        stopOrphans();
      };
      const tlsNote = endpoint.tlsPort === null ? "" : `, TLS on ${endpoint.tlsPort}`;
      deps.logger.info(`SIP: listening on ${settings.host}:${endpoint.port} (UDP and TCP${tlsNote}), RTP ports ${settings.rtpPorts.min}-${settings.rtpPorts.max}, reached at ${settings.publicAddress ?? settings.host}`);
      return true;
    },

    trunksChanged(): void {
      if (!endpoint) return;
      void optionsSeen.refresh();
      void registrations.reconcile();
    },

    /** Trunks are un-registered; calls still ringing are refused (503, try another gateway); answered ones get a BYE. */
    async stop(): Promise<void> {
      const current = endpoint;
      endpoint = null;
      unsubscribe?.();
      unsubscribe = null;
      if (!current) return;
      optionsSeen.stop();
      await registrations.stop();
      const live = [...calls];
      for (const call of live) {
        if (call.state === "ringing") call.reject(503, [["retry-after", RETRY_AFTER_S]]);
        call.hangup();
      }
      if (live.length > 0) await new Promise((resolve) => setTimeout(resolve, BYE_GRACE_MS));
      await current.close();
    },
  };
  return runtime;
}
