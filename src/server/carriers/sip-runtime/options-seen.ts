/**
 * The trunk card's "last OPTIONS seen": a trunk or PBX pings us with OPTIONS to see we are up, and
 * its card says when it last did. Who sent a ping is decided in memory — every trunk's source
 * addresses and its outbound URI's host, read again when a trunk changes and every minute — so a
 * scanner's OPTIONS flood never reaches the database; a trunk's time is written at most once a minute.
 */
import { lookup } from "node:dns/promises";
import { isIP, type BlockList } from "node:net";
import type { FastifyBaseLogger } from "fastify";
import { parseUri } from "../sip/address.ts";
import { addressAllowed, addressList } from "./admission.ts";
import type { SipTrunkDirectory } from "./directory.ts";

/** At most one write per trunk in this long; also how often the trunks' addresses are read again. */
export const OPTIONS_WRITE_EVERY_MS = 60_000;

interface Source {
  trunkId: string;
  /** Built once per read, so a flood of pings costs a lookup each, not a list each. */
  addresses: BlockList;
}

export function createOptionsSeen(deps: { directory: SipTrunkDirectory; logger: FastifyBaseLogger; now?: () => number }) {
  const now = deps.now ?? Date.now;
  let sources: Source[] = [];
  const written = new Map<string, number>();
  let sweep: NodeJS.Timeout | undefined;

  /** The outbound URI's host as addresses: an IP as it is, a name resolved (a name that does not resolve adds none). */
  async function hostAddresses(uri: string | null): Promise<string[]> {
    const host = uri ? parseUri(uri)?.host : undefined;
    if (!host) return [];
    if (isIP(host)) return [host];
    try {
      return (await lookup(host, { all: true })).map((a) => a.address);
    } catch {
      return [];
    }
  }

  async function refresh(): Promise<void> {
    try {
      const trunks = await deps.directory.trunkSources();
      sources = await Promise.all(trunks.map(async (t) => ({ trunkId: t.trunkId, addresses: addressList([...t.addresses, ...(await hostAddresses(t.outboundUri))]) })));
      const known = new Set(sources.map((s) => s.trunkId));
      for (const id of written.keys()) if (!known.has(id)) written.delete(id);
    } catch (err) {
      deps.logger.warn({ err }, "reading the trunks' addresses failed");
    }
  }

  return {
    start(): Promise<void> {
      sweep = setInterval(() => void refresh(), OPTIONS_WRITE_EVERY_MS);
      sweep.unref();
      return refresh();
    },
    refresh,
    /** An OPTIONS outside any call came from `address`. */
    seen(address: string): void {
      const at = now();
      for (const source of sources) {
        if (!addressAllowed(address, source.addresses)) continue;
        const last = written.get(source.trunkId);
        if (last !== undefined && at - last < OPTIONS_WRITE_EVERY_MS) continue;
        written.set(source.trunkId, at);
        deps.directory.recordState(source.trunkId, { lastOptionsAt: new Date(at) }).catch((err: unknown) => deps.logger.warn({ err, trunkId: source.trunkId }, "noting a trunk's OPTIONS failed"));
      }
    },
    stop(): void {
      clearInterval(sweep);
    },
  };
}
