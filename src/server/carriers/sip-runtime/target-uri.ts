import type { OutboundRoute } from "../../modules/sip-trunks/sip-trunks.service.ts";
import { formatUri, parseUri } from "../sip/address.ts";

/**
 * The Request-URI of a call to `to` through `route`: the trunk's URI with the dialled number as
 * its user. After a prefix (a PBX's "9" for a line out) the number goes without its "+". Calls
 * placed and calls handed on by REFER both address the trunk this way.
 */
export function targetUri(route: Pick<OutboundRoute, "uri" | "prefix">, to: string): string | null {
  const uri = parseUri(route.uri);
  if (!uri) return null;
  return formatUri({ ...uri, user: route.prefix ? `${route.prefix}${to.replace(/^\+/, "")}` : to });
}

/**
 * The Request-URI of a bridged transfer's call to a SIP address (a PBX's queue or extension),
 * sent through the call's trunk — or null when the address is not on the trunk's host. This
 * server never calls a host its trunks do not name: a destination elsewhere would make it an
 * open relay (toll fraud through any SIP address an assistant was given). The address keeps its
 * user and parameters; the trunk's port and transport apply when it names none, and a port other
 * than the trunk's is another service on that host, refused as well.
 */
export function sipAddressThroughTrunk(route: Pick<OutboundRoute, "uri">, destination: string): string | null {
  const trunk = parseUri(route.uri);
  const dest = parseUri(destination);
  if (!trunk || !dest || dest.host.toLowerCase() !== trunk.host.toLowerCase()) return null;
  if (dest.port !== undefined && dest.port !== (trunk.port ?? defaultPort(trunk.scheme))) return null;
  return formatUri({ scheme: trunk.scheme, user: dest.user, host: trunk.host, ...(trunk.port ? { port: trunk.port } : {}), params: { ...trunk.params, ...dest.params } });
}

const defaultPort = (scheme: "sip" | "sips") => (scheme === "sips" ? 5061 : 5060);
