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
