import type { HttpMethod, ParameterFormat } from "../../shared/tools.ts";
import { DATABASE_QUERY_OPERATORS, DEFAULT_DATABASE_QUERY_OPERATOR } from "../../shared/tools.ts";
import { ToolExecutionError } from "./errors.ts";

/** The part of a stored tool the engine needs; `api_key` is plaintext, decrypted by the caller. */
export interface ToolHttpConfig {
  http_method: HttpMethod;
  parameter_format: ParameterFormat;
  end_point_url: string;
  api_key?: string | null;
  http_headers?: Readonly<Record<string, string>> | null;
  request_body?: Readonly<Record<string, unknown>> | null;
}

export type ToolArguments = Readonly<Record<string, unknown>>;

/** One HTTP request, ready to send. Header names keep the case they were configured with. */
export interface PreparedRequest {
  method: HttpMethod;
  url: URL;
  headers: Record<string, string>;
  body: Buffer | null;
  /**
   * Names of the headers that came from the tool's configuration (and the API key's
   * Authorization): all of them are dropped before a redirect to another origin.
   */
  configuredHeaders: readonly string[];
}

// Framing and connection headers belong to the HTTP client: a configured Content-Length or
// Transfer-Encoding would desynchronise the request, and Host would let a tool ask the connected
// server for a different virtual host than the one the URL (and the allow list) names.
const CLIENT_MANAGED_HEADERS = new Set([
  "host",
  "content-length",
  "transfer-encoding",
  "connection",
  "keep-alive",
  "proxy-connection",
  "te",
  "trailer",
  "upgrade",
]);

export const DEFAULT_HEADERS: Readonly<Record<string, string>> = {
  Accept: "application/json, text/plain;q=0.9, */*;q=0.8",
  "User-Agent": "Switchboard-Tools/1.0",
};

/** Parses and vets a URL the engine is about to call (the tool's own, or a redirect's). */
export function parseToolUrl(raw: string, base?: URL): URL | null {
  let url: URL;
  try {
    url = new URL(raw.trim(), base);
  } catch {
    return null;
  }
  if (url.protocol !== "http:" && url.protocol !== "https:") return null;
  // Credentials in the URL would be silently dropped by node:http (and leak into logs); fetch
  // refuses them too. Headers are the place for them.
  if (url.username !== "" || url.password !== "") return null;
  url.hash = "";
  return url;
}

export function findHeader(headers: Readonly<Record<string, string>>, name: string): string | undefined {
  const wanted = name.toLowerCase();
  const key = Object.keys(headers).find((k) => k.toLowerCase() === wanted);
  return key === undefined ? undefined : headers[key];
}

export function withoutHeaders(headers: Readonly<Record<string, string>>, names: readonly string[]): Record<string, string> {
  const drop = new Set(names.map((n) => n.toLowerCase()));
  return Object.fromEntries(Object.entries(headers).filter(([k]) => !drop.has(k.toLowerCase())));
}

function buildHeaders(tool: ToolHttpConfig): { headers: Record<string, string>; configuredHeaders: string[] } {
  const configured = Object.entries(tool.http_headers ?? {}).filter(([name]) => !CLIENT_MANAGED_HEADERS.has(name.toLowerCase()));
  // A configured header replaces a default of the same name whatever its case.
  const headers = withoutHeaders(
    DEFAULT_HEADERS,
    configured.map(([name]) => name),
  );
  for (const [name, value] of configured) headers[name] = String(value);
  const configuredHeaders = configured.map(([name]) => name);
  const apiKey = tool.api_key?.trim();
  if (apiKey && findHeader(headers, "authorization") === undefined) {
    headers.Authorization = `Bearer ${apiKey}`;
    configuredHeaders.push("Authorization");
  }
  return { headers, configuredHeaders };
}

/** Query-string values: scalars as text, lists as repeated keys, objects as JSON, null dropped. */
function queryValues(value: unknown): string[] {
  if (value === null || value === undefined) return [];
  if (Array.isArray(value)) return value.flatMap(queryValues);
  if (typeof value === "object") return [JSON.stringify(value)];
  return [String(value)];
}

const OPERATOR_PREFIXES = DATABASE_QUERY_OPERATORS.map((op) => `${op}.`);
// PostgREST's own query parameters are not column filters, so they must not get an operator.
const POSTGREST_RESERVED = new Set(["select", "order", "limit", "offset"]);

/** PostgREST filter: `gt.30` stays as written, `Paris` becomes `eq.Paris`. */
export function toDatabaseFilter(column: string, value: string): string {
  if (POSTGREST_RESERVED.has(column)) return value;
  if (OPERATOR_PREFIXES.some((prefix) => value.startsWith(prefix))) return value;
  return `${DEFAULT_DATABASE_QUERY_OPERATOR}.${value}`;
}

function encodeBody(tool: ToolHttpConfig, parameters: ToolArguments): Buffer {
  // Arguments win over the template: the template holds constants, the arguments this call's values.
  const merged = { ...tool.request_body, ...parameters };
  try {
    return Buffer.from(JSON.stringify(merged), "utf8");
  } catch {
    throw new ToolExecutionError("tool_invalid_config", "The request body could not be encoded as JSON.");
  }
}

/**
 * Builds the request for one execution:
 * - GET and DELETE: arguments go in the query string, after any query the URL already has;
 *   with the database-query format each becomes a PostgREST filter `column=op.value` (DELETE
 *   too: PostgREST picks the rows to delete with the same filters, and rejects `column=value`).
 * - POST and PUT: the request-body template merged with the arguments, sent as JSON.
 * - Configured headers are sent; the API key becomes `Authorization: Bearer <key>` unless a
 *   configured header already sets Authorization.
 */
export function buildToolRequest(tool: ToolHttpConfig, parameters: ToolArguments = {}): PreparedRequest {
  const url = parseToolUrl(tool.end_point_url);
  if (!url) {
    throw new ToolExecutionError(
      "tool_invalid_url",
      "The tool's endpoint URL is not a valid http:// or https:// URL (user names and passwords in the URL are not supported).",
    );
  }
  const method = tool.http_method;
  const { headers, configuredHeaders } = buildHeaders(tool);

  if (method === "GET" || method === "DELETE") {
    const asFilters = tool.parameter_format === "database-query";
    const pairs: string[] = [];
    for (const [name, value] of Object.entries(parameters)) {
      for (const text of queryValues(value)) {
        const sent = asFilters ? toDatabaseFilter(name, text) : text;
        pairs.push(`${encodeURIComponent(name)}=${encodeURIComponent(sent)}`);
      }
    }
    // Appended as text rather than through searchParams, which would re-encode the query the URL
    // already has (a signed URL would break). %20 rather than "+" for spaces: not every server
    // decodes "+".
    if (pairs.length > 0) url.search = url.search ? `${url.search}&${pairs.join("&")}` : `?${pairs.join("&")}`;
    return { method, url, headers, body: null, configuredHeaders };
  }

  const body = encodeBody(tool, parameters);
  if (findHeader(headers, "content-type") === undefined) headers["Content-Type"] = "application/json";
  return { method, url, headers, body, configuredHeaders };
}
