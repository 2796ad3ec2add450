/** SIP URIs, name-addr headers (From, To, Contact, Route) and Via (RFC 3261 §19, §20.42). */
import { randomBytes } from "node:crypto";

export interface SipUri {
  scheme: "sip" | "sips";
  user?: string;
  host: string;
  port?: number;
  params: Record<string, string>;
}

export function parseUri(text: string): SipUri | null {
  const m = /^(sips?):(?:([^@;?]+)@)?(\[[0-9a-fA-F:.]+\]|[^:;?>]+)(?::(\d{1,5}))?((?:;[^?]*)?)(?:\?.*)?$/i.exec(text.trim());
  if (!m) return null;
  const port = m[4] ? Number(m[4]) : undefined;
  if (port !== undefined && (port < 1 || port > 65535)) return null;
  return { scheme: m[1]!.toLowerCase() as "sip" | "sips", user: m[2], host: m[3]!.replace(/^\[|\]$/g, ""), port, params: parseParams(m[5] ?? "") };
}

export function formatUri(uri: SipUri): string {
  const host = uri.host.includes(":") ? `[${uri.host}]` : uri.host;
  const params = Object.entries(uri.params).map(([k, v]) => (v === "" ? `;${k}` : `;${k}=${v}`)).join("");
  return `${uri.scheme}:${uri.user ? `${uri.user}@` : ""}${host}${uri.port ? `:${uri.port}` : ""}${params}`;
}

function parseParams(text: string): Record<string, string> {
  const out: Record<string, string> = {};
  for (const part of text.split(";")) {
    const p = part.trim();
    if (!p) continue;
    const eq = p.indexOf("=");
    if (eq < 0) out[p.toLowerCase()] = "";
    else out[p.slice(0, eq).trim().toLowerCase()] = p.slice(eq + 1).trim().replace(/^"|"$/g, "");
  }
  return out;
}

/** `"Name" <sip:u@h>;tag=x` or `sip:u@h;tag=x` (params then belong to the header, §20.10). */
export interface NameAddr {
  display?: string;
  uri: string;
  params: Record<string, string>;
}

export function parseNameAddr(text: string): NameAddr | null {
  const value = text.trim();
  const open = value.indexOf("<");
  if (open >= 0) {
    const close = value.indexOf(">", open);
    if (close < 0) return null;
    const display = value.slice(0, open).trim().replace(/^"|"$/g, "") || undefined;
    return { display, uri: value.slice(open + 1, close).trim(), params: parseParams(value.slice(close + 1)) };
  }
  const semi = value.indexOf(";");
  const uri = semi < 0 ? value : value.slice(0, semi);
  if (!uri || /\s/.test(uri)) return null;
  return { uri, params: parseParams(semi < 0 ? "" : value.slice(semi)) };
}

export const tagOf = (header: string | undefined) => (header ? parseNameAddr(header)?.params.tag : undefined);

export interface Via {
  transport: string;
  host: string;
  port?: number;
  params: Record<string, string>;
}

export function parseVia(text: string): Via | null {
  const m = /^SIP\s*\/\s*2\.0\s*\/\s*([A-Za-z]+)\s+(\[[0-9a-fA-F:.]+\]|[^\s:;]+)(?:\s*:\s*(\d{1,5}))?\s*((?:;.*)?)$/i.exec(text.trim());
  if (!m) return null;
  return { transport: m[1]!.toUpperCase(), host: m[2]!.replace(/^\[|\]$/g, ""), port: m[3] ? Number(m[3]) : undefined, params: parseParams(m[4] ?? "") };
}

/** RFC 3261 §8.1.1.7: every branch we make starts with the magic cookie. */
export const newBranch = () => `z9hG4bK${randomBytes(10).toString("hex")}`;
export const newTag = () => randomBytes(6).toString("hex");
export const newCallId = (host: string) => `${randomBytes(12).toString("hex")}@${host}`;

/** Whether reaching `uri` takes TLS: the trunk's transport says so, or a sips: / `transport=tls` URI (§26.2.2). */
export const needsTls = (transport: string, uri: string) => transport === "tls" || /^sips:|;transport=tls\b/i.test(uri);
