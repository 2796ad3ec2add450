/**
 * Keeps the trunks that ask for it registered from this instance's SIP endpoint, and writes what
 * happened on the trunk (registered and when, failed with the registrar's words, off). The list is
 * read again whenever a trunk changes here and every minute (another instance may have changed one):
 * a trunk added or switched on is registered, one changed is registered anew, one deleted or
 * switched off is un-registered (Expires: 0). Shutdown un-registers every trunk before SIP closes.
 */
import type { FastifyBaseLogger } from "fastify";
import { SIP_REGISTRATION_ERRORS, SIP_TRUNK_MESSAGES } from "../../../shared/sip-trunks.ts";
import type { RegistrationTarget } from "../../modules/sip-trunks/sip-trunks.service.ts";
import { needsTls } from "../sip/address.ts";
import type { SipEndpoint } from "../sip/endpoint.ts";
import type { Registration, RegistrationFailure } from "../sip/registration.ts";
import type { SipTrunkDirectory } from "./directory.ts";

/** How often the trunks are read again when nothing was said here. */
export const REGISTRATION_SWEEP_MS = 60_000;

export interface RegistrationsDeps {
  directory: SipTrunkDirectory;
  logger: FastifyBaseLogger;
}

interface Held {
  /** The settings it was made with: a change makes a new registration. */
  key: string;
  /** Null: the trunk cannot be registered as it is (the failure is written once). */
  registration: Registration | null;
}

/** The registrar's words for a failure, as the trunk's card shows them. */
export function failureText(failure: RegistrationFailure, registrar: string): string {
  switch (failure.kind) {
    case "refused":
      return SIP_REGISTRATION_ERRORS.refused(failure.status, failure.reason);
    case "credentials":
      return SIP_REGISTRATION_ERRORS.credentials(failure.status);
    case "unsupported-challenge":
      return SIP_REGISTRATION_ERRORS.unsupportedChallenge;
    case "timeout":
      return SIP_REGISTRATION_ERRORS.timeout;
    case "unreachable":
      return SIP_REGISTRATION_ERRORS.unreachable(registrar);
    case "untrusted":
      return SIP_REGISTRATION_ERRORS.untrusted(registrar, failure.detail);
  }
}

export function createRegistrations(deps: RegistrationsDeps) {
  const held = new Map<string, Held>();
  let endpoint: SipEndpoint | null = null;
  let sweep: NodeJS.Timeout | undefined;
  // One pass at a time, in order: a trunk switched off then on again ends registered.
  let passes: Promise<void> = Promise.resolve();

  // Written one after another, so "registering" never lands after the "registered" that follows it.
  let writes: Promise<void> = Promise.resolve();
  const record = (trunkId: string, patch: Parameters<SipTrunkDirectory["recordState"]>[1]) =>
    (writes = writes.then(() => deps.directory.recordState(trunkId, patch)).catch((err: unknown) => deps.logger.warn({ err, trunkId }, "noting a trunk's registration failed")));

  const failedNow = (trunkId: string, error: string) => {
    const now = new Date();
    return record(trunkId, { registrationState: "failed", registrationStateAt: now, lastError: error, lastErrorAt: now });
  };

  function begin(target: RegistrationTarget, key: string): Held {
    const tls = needsTls(target.transport, target.uri);
    // Without a listener of our own the registrar could not reach our Contact over TLS.
    if (tls && endpoint!.tlsPort === null) return (void failedNow(target.trunkId, SIP_REGISTRATION_ERRORS.tls), { key, registration: null });
    if (!target.credentials) return (void failedNow(target.trunkId, SIP_TRUNK_MESSAGES.unreadableSecret), { key, registration: null });
    const registration = endpoint!.register({
      registrar: target.uri,
      ...target.credentials,
      expires: target.expires,
      transport: tls ? "TLS" : target.transport === "tcp" ? "TCP" : "UDP",
    });
    registration.on("registered", () => void record(target.trunkId, { registrationState: "registered", registrationStateAt: new Date() }));
    registration.on("failed", (failure) => {
      const error = failureText(failure, target.uri);
      deps.logger.warn({ trunkId: target.trunkId, error }, "a SIP trunk's REGISTER failed");
      void failedNow(target.trunkId, error);
    });
    void record(target.trunkId, { registrationState: "registering", registrationStateAt: new Date() });
    registration.start();
    return { key, registration };
  }

  /** Un-registers; notes it on the trunk (a deleted trunk has nothing to note). */
  async function end(trunkId: string, entry: Held, note: boolean) {
    held.delete(trunkId);
    if (!entry.registration) return;
    const removed = await entry.registration.stop();
    if (removed && note) await record(trunkId, { registrationState: "unregistered", registrationStateAt: new Date() });
  }

  async function pass(): Promise<void> {
    if (!endpoint) return;
    const targets = await deps.directory.trunksToRegister();
    if (!endpoint) return;
    const wanted = new Map(targets.map((t) => [t.trunkId, t]));
    await Promise.all([...held].filter(([id]) => !wanted.has(id)).map(([id, entry]) => end(id, entry, true)));
    for (const target of targets) {
      const key = JSON.stringify([target.uri, target.credentials, target.expires, target.transport]);
      const current = held.get(target.trunkId);
      if (current?.key === key) continue;
      if (current) await end(target.trunkId, current, false);
      if (endpoint) held.set(target.trunkId, begin(target, key));
    }
  }

  function reconcile(): Promise<void> {
    passes = passes.then(pass).catch((err: unknown) => deps.logger.warn({ err }, "reading the trunks to register failed"));
    return passes;
  }

  return {
    /** Starts registering from `at`, and sweeps every minute. */
    start(at: SipEndpoint): Promise<void> {
      endpoint = at;
      sweep = setInterval(() => void reconcile(), REGISTRATION_SWEEP_MS);
      sweep.unref();
      return reconcile();
    },
    reconcile,
    /** Un-registers every trunk (each bounded by its own wait) and stops. */
    async stop(): Promise<void> {
      clearInterval(sweep);
      endpoint = null;
      await passes;
      await Promise.all([...held].map(([id, entry]) => end(id, entry, true)));
    },
  };
}
