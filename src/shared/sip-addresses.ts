/**
 * Checks of what a SIP trunk's form holds — source addresses (IPv4/IPv6, with or without a CIDR
 * length) and SIP URIs — written without node:net so the form and the server judge alike.
 */

const IPV4 = /^(25[0-5]|2[0-4]\d|1\d\d|[1-9]?\d)(\.(25[0-5]|2[0-4]\d|1\d\d|[1-9]?\d)){3}$/;

export const isIpv4 = (text: string): boolean => IPV4.test(text);

/** RFC 4291 §2.2 text forms: eight groups, one "::", an IPv4 tail. No zone ids (no use in a filter). */
export function isIpv6(text: string): boolean {
  if (!/^[0-9a-fA-F:.]{2,45}$/.test(text)) return false;
  let groups = text;
  let tail = 0;
  const lastColon = text.lastIndexOf(":");
  if (text.slice(lastColon + 1).includes(".")) {
    if (!isIpv4(text.slice(lastColon + 1))) return false;
    groups = text.slice(0, lastColon + 1) + "0";
    tail = 1;
  }
  const halves = groups.split("::");
  if (halves.length > 2) return false;
  const parts = (h: string) => (h === "" ? [] : h.split(":"));
  const head = parts(halves[0]!);
  const rest = halves.length === 2 ? parts(halves[1]!) : [];
  if (![...head, ...rest].every((g) => /^[0-9a-fA-F]{1,4}$/.test(g))) return false;
  const count = head.length + rest.length + tail;
  return halves.length === 2 ? count <= 7 : count === 8;
}

/** An IP address, or a CIDR range such as 203.0.113.0/24 or 2001:db8::/32. */
export function isIpOrCidr(text: string): boolean {
  const [ip, length, extra] = text.trim().split("/");
  if (extra !== undefined || !ip) return false;
  const v4 = isIpv4(ip);
  if (!v4 && !isIpv6(ip)) return false;
  if (length === undefined) return true;
  if (!/^\d{1,3}$/.test(length)) return false;
  return Number(length) <= (v4 ? 32 : 128);
}

const HOSTNAME = /^(?=.{1,253}$)([a-zA-Z0-9]([a-zA-Z0-9-]{0,61}[a-zA-Z0-9])?)(\.[a-zA-Z0-9]([a-zA-Z0-9-]{0,61}[a-zA-Z0-9])?)*\.?$/;
// RFC 3261 §25.1 user: unreserved, escaped and user-unreserved characters.
const USER = /^([A-Za-z0-9\-_.!~*'()&=+$,;?/]|%[0-9A-Fa-f]{2})+$/;
const PARAM = /^[A-Za-z0-9\-_.!~*'%]+(=[A-Za-z0-9\-_.!~*'%[\]/:&+$]+)?$/;

/** `sip:` or `sips:`, an optional user, a host (name, IPv4 or [IPv6]), an optional port and ;parameters. */
export function isSipUri(text: string): boolean {
  const m = /^(sips?):(?:([^@]+)@)?(\[[^\]]+\]|[^:;]+)(?::(\d{1,5}))?((?:;[^;]+)*)$/i.exec(text.trim());
  if (!m) return false;
  const [, , user, host, port, params] = m;
  if (user !== undefined && !USER.test(user)) return false;
  const hostOk = host!.startsWith("[") ? isIpv6(host!.slice(1, -1)) : isIpv4(host!) || (HOSTNAME.test(host!) && !/^[\d.]+$/.test(host!));
  if (!hostOk) return false;
  if (port !== undefined && (Number(port) < 1 || Number(port) > 65535)) return false;
  return (params ?? "")
    .split(";")
    .filter(Boolean)
    .every((p) => PARAM.test(p));
}
