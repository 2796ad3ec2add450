import { lookup as dnsLookup } from "node:dns/promises";
import type { LookupFunction } from "node:net";
import { BlockList, isIP } from "node:net";
import { ToolExecutionError } from "./errors.ts";

/**
 * Users point tools at any URL and our server makes the request, so without this guard a tool
 * could read the cloud metadata service, the database port or an admin page on the private
 * network. The check runs on every address a name resolves to, inside the socket's own
 * `lookup`, so the address checked is the address connected to (no DNS-rebinding window).
 */

export interface ResolvedAddress {
  address: string;
  family: number;
}
export type Resolver = (hostname: string) => Promise<ResolvedAddress[]>;

export const systemResolver: Resolver = (hostname) => dnsLookup(hostname, { all: true });

type Family = "ipv4" | "ipv6";
type Range = [network: string, prefix: number];

// Ordered: the first category that matches names the refusal, so the specific ones come first.
const CATEGORIES: [label: string, family: Family, ranges: Range[]][] = [
  [
    "a cloud metadata address",
    "ipv4",
    [
      ["169.254.169.254", 32], // AWS, GCP, Azure, OpenStack, DigitalOcean, Oracle
      ["169.254.170.2", 32], // AWS ECS task metadata
      ["168.63.129.16", 32], // Azure wire server (a public-looking address)
      ["100.100.100.200", 32], // Alibaba Cloud
      ["192.0.0.192", 32], // Oracle Cloud (legacy)
    ],
  ],
  ["a cloud metadata address", "ipv6", [["fd00:ec2::254", 128]]],
  ["the unspecified address", "ipv4", [["0.0.0.0", 8]]],
  ["a loopback address", "ipv4", [["127.0.0.0", 8]]],
  ["a private network address", "ipv4", [["10.0.0.0", 8], ["172.16.0.0", 12], ["192.168.0.0", 16]]],
  ["a carrier-grade NAT address", "ipv4", [["100.64.0.0", 10]]],
  ["a link-local address", "ipv4", [["169.254.0.0", 16]]],
  ["the broadcast address", "ipv4", [["255.255.255.255", 32]]],
  ["a multicast address", "ipv4", [["224.0.0.0", 4]]],
  [
    "a reserved address",
    "ipv4",
    [
      ["192.0.0.0", 24], // IETF protocol assignments
      ["192.0.2.0", 24], // documentation
      ["198.18.0.0", 15], // benchmarking
      ["198.51.100.0", 24], // documentation
      ["203.0.113.0", 24], // documentation
      ["240.0.0.0", 4], // future use
    ],
  ],
  ["the unspecified address", "ipv6", [["::", 128]]],
  ["a loopback address", "ipv6", [["::1", 128]]],
  ["a link-local address", "ipv6", [["fe80::", 10], ["fec0::", 10]]],
  ["a unique-local (private) address", "ipv6", [["fc00::", 7]]],
  ["a multicast address", "ipv6", [["ff00::", 8]]],
  [
    "a reserved address",
    "ipv6",
    [
      ["::", 96], // IPv4-compatible (deprecated); reaches IPv4 hosts on some stacks
      ["100::", 64], // discard-only
      ["2001::", 32], // Teredo: the IPv4 peer is hidden in the address
      ["2001:db8::", 32], // documentation
      ["3fff::", 20], // documentation
      ["64:ff9b:1::", 48], // local-use NAT64
    ],
  ],
];

const LISTS: [label: string, family: Family, list: BlockList][] = CATEGORIES.map(([label, family, ranges]) => {
  const list = new BlockList();
  for (const [network, prefix] of ranges) list.addSubnet(network, prefix, family);
  return [label, family, list];
});

/** The eight 16-bit groups of an IPv6 address (zone id dropped), or null when it is not one. */
function ipv6Groups(address: string): number[] | null {
  let text = address.split("%")[0] ?? "";
  const tail = /(\d+\.\d+\.\d+\.\d+)$/.exec(text);
  if (tail?.[1]) {
    const [a = 0, b = 0, c = 0, d = 0] = tail[1].split(".").map(Number);
    text = `${text.slice(0, -tail[1].length)}${((a << 8) | b).toString(16)}:${((c << 8) | d).toString(16)}`;
  }
  const [head = "", rest] = text.split("::");
  const left = head ? head.split(":") : [];
  const right = rest ? rest.split(":") : [];
  const zeros = rest === undefined ? 0 : 8 - left.length - right.length;
  const groups = [...left, ...Array<string>(Math.max(zeros, 0)).fill("0"), ...right].map((g) => parseInt(g, 16));
  return groups.length === 8 && groups.every((g) => g >= 0 && g <= 0xffff) ? groups : null;
}

const v4 = (high: number, low: number) => `${high >> 8}.${high & 0xff}.${low >> 8}.${low & 0xff}`;

/** IPv6 forms that carry an IPv4 destination: mapped, SIIT-translated, NAT64 and 6to4. */
function embeddedIpv4(address: string): string | null {
  const g = ipv6Groups(address);
  if (!g) return null;
  const [g0, g1, g2, g3, g4, g5, g6 = 0, g7 = 0] = g;
  if (g0 === 0 && g1 === 0 && g2 === 0 && g3 === 0 && g4 === 0 && g5 === 0xffff) return v4(g6, g7); // ::ffff:a.b.c.d
  if (g0 === 0 && g1 === 0 && g2 === 0 && g3 === 0 && g4 === 0xffff && g5 === 0) return v4(g6, g7); // ::ffff:0:a.b.c.d
  if (g0 === 0x64 && g1 === 0xff9b && g2 === 0 && g3 === 0 && g4 === 0 && g5 === 0) return v4(g6, g7); // 64:ff9b::/96
  if (g0 === 0x2002 && g1 !== undefined && g2 !== undefined) return v4(g1, g2); // 6to4 2002:AABB:CCDD::/48
  return null;
}

/**
 * Why an address may not be reached ("a loopback address", ...), or null for a public address.
 * Anything that is not a valid IP is refused too: it cannot be checked.
 */
export function describeBlockedAddress(address: string): string | null {
  const version = isIP(address);
  if (version === 0) return "not a valid IP address";
  if (version === 6) {
    const inner = embeddedIpv4(address);
    if (inner) return describeBlockedAddress(inner);
  }
  const family: Family = version === 4 ? "ipv4" : "ipv6";
  for (const [label, listFamily, list] of LISTS) {
    if (listFamily === family && list.check(address, family)) return label;
  }
  return null;
}

// ── Allow list ─────────────────────────────────────────────────────────────────────────────

/** Lower-case, without IPv6 brackets or a trailing root dot, so spellings of one host compare equal. */
export function normalizeHost(host: string): string {
  const bare = host.startsWith("[") && host.endsWith("]") ? host.slice(1, -1) : host;
  return bare.toLowerCase().replace(/\.$/, "");
}

/**
 * An allow-list entry's host spelled the way a parsed URL spells it ("::ffff:127.0.0.1" becomes
 * "::ffff:7f00:1", "0x7f.1" becomes "127.0.0.1"), so an entry matches however the URL wrote it.
 */
function canonicalHost(host: string): string {
  const bare = normalizeHost(host);
  try {
    return normalizeHost(new URL(`http://${isIP(bare) === 6 ? `[${bare}]` : bare}/`).hostname);
  } catch {
    return bare;
  }
}

/**
 * Whether `host` (as in a URL) on `port` is allow-listed. Entries are exact hosts, optionally with
 * a port: "127.0.0.1" (any port), "127.0.0.1:4000", "[::1]:4000", "::1", "internal.example".
 */
export function isHostAllowed(allowedHosts: readonly string[], host: string, port: number): boolean {
  const wanted = canonicalHost(host);
  return allowedHosts.some((raw) => {
    const entry = raw.trim();
    let entryHost = entry;
    let entryPort: string | undefined;
    const bracketed = /^\[([^\]]+)\](?::(\d+))?$/.exec(entry);
    if (bracketed) {
      entryHost = bracketed[1] ?? "";
      entryPort = bracketed[2];
    } else if (entry.split(":").length === 2) {
      // Exactly one colon: host:port. More than one is a bare IPv6 address.
      [entryHost = "", entryPort] = entry.split(":");
    }
    if (canonicalHost(entryHost) !== wanted) return false;
    return entryPort === undefined || entryPort === "" || Number(entryPort) === port;
  });
}

// ── Checks ─────────────────────────────────────────────────────────────────────────────────

/** The setting whose list opens a host: tools' by default; webhooks have their own. */
export type AllowSetting = "TOOL_ALLOWED_HOSTS" | "WEBHOOK_ALLOWED_HOSTS";

const allowHint = (setting: AllowSetting) => `Only public internet addresses can be called; an administrator can allow this host in ${setting}.`;

function refusal(host: string, reason: string, resolved: boolean, setting: AllowSetting): ToolExecutionError {
  const what = resolved ? `it resolves to ${reason}` : `it is ${reason}`;
  return new ToolExecutionError("tool_host_blocked", `Refused to connect to ${host}: ${what}. ${allowHint(setting)}`, { host });
}

/** Node connects to an IP-literal host without calling `lookup`, so such hosts are checked here. */
export function assertIpLiteralAllowed(hostname: string, setting: AllowSetting = "TOOL_ALLOWED_HOSTS"): void {
  const address = normalizeHost(hostname);
  if (isIP(address) === 0) return;
  const reason = describeBlockedAddress(address);
  if (reason) throw refusal(hostname, reason, false, setting);
}

/**
 * A socket `lookup` that resolves `hostname` with `resolve` and fails with `tool_host_blocked`
 * when any of its addresses is not public: refusing the whole name (rather than picking a good
 * address) keeps a name that mixes public and private records from ever reaching the private one.
 */
export function createGuardedLookup(resolve: Resolver, options: { checkAddresses: boolean; allowSetting?: AllowSetting }): LookupFunction {
  return (hostname, lookupOptions, callback) => {
    resolve(hostname).then(
      (found) => {
        const family: unknown = lookupOptions.family;
        const wanted = family === 4 || family === "IPv4" ? 4 : family === 6 || family === "IPv6" ? 6 : 0;
        const addresses = found.filter((a) => wanted === 0 || a.family === wanted);
        if (addresses.length === 0) {
          const err: NodeJS.ErrnoException = new Error(`getaddrinfo ENOTFOUND ${hostname}`);
          err.code = "ENOTFOUND";
          return callback(err, "", 0);
        }
        if (options.checkAddresses) {
          for (const { address } of addresses) {
            const reason = describeBlockedAddress(address);
            if (reason) return callback(refusal(hostname, reason, true, options.allowSetting ?? "TOOL_ALLOWED_HOSTS"), "", 0);
          }
        }
        if (lookupOptions.all) return callback(null, addresses);
        const [first] = addresses;
        return callback(null, first?.address ?? "", first?.family ?? 4);
      },
      (err: NodeJS.ErrnoException) => callback(err, "", 0),
    );
  };
}
