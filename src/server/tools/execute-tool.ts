import type { ToolExecutionResponse } from "../../shared/tools.ts";
import type { PreparedRequest, ToolArguments, ToolHttpConfig } from "./build-request.ts";
import { buildToolRequest, DEFAULT_HEADERS, findHeader, parseToolUrl, withoutHeaders } from "./build-request.ts";
import { ToolExecutionError } from "./errors.ts";
import type { HopResult } from "./http-client.ts";
import { sendRequest } from "./http-client.ts";
import { parseResponseBody } from "./response-body.ts";
import type { Resolver } from "./ssrf-guard.ts";
import { systemResolver } from "./ssrf-guard.ts";

export interface ExecuteToolOptions {
  /**
   * Hosts that may be reached even though they are (or resolve to) loopback, private or other
   * internal addresses: exact host, case-insensitive, optionally with a port ("127.0.0.1:4000",
   * "[::1]:4000", "internal.example"). Usually `config.toolAllowedHosts`.
   */
  allowedHosts: readonly string[];
  /** Deadline for the whole execution, redirects and body included. Default 10 000 ms. */
  timeoutMs?: number;
  /** Per request: DNS + TCP + TLS handshake. Default 5 000 ms (never more than `timeoutMs`). */
  connectTimeoutMs?: number;
  /** Largest answer body read, after decompression. Default 1 MiB. */
  maxBytes?: number;
  /** Redirects followed; one more is an error. Default 3. */
  maxRedirects?: number;
  /** Name resolution; tests point names at chosen addresses. Default `dns.lookup` (all addresses). */
  resolve?: Resolver;
  /** Cancels the execution (e.g. the call ended); it then fails with `tool_aborted`. */
  signal?: AbortSignal;
}

export const TOOL_EXECUTION_DEFAULTS = {
  timeoutMs: 10_000,
  connectTimeoutMs: 5_000,
  maxBytes: 1024 * 1024,
  maxRedirects: 3,
} as const;

// Only the same origin (scheme, host and port) may see what the tool's owner configured.
const keepsCredentials = (from: URL, to: URL) => from.origin === to.origin;

/** The request a redirect asks for, with the method rules browsers and fetch follow. */
function followRedirect(previous: PreparedRequest, hop: Extract<HopResult, { kind: "redirect" }>): PreparedRequest {
  const url = parseToolUrl(hop.location, previous.url);
  if (!url) {
    throw new ToolExecutionError(
      "tool_bad_redirect",
      `${previous.url.host} redirected to a URL that is not http:// or https://, so it was not followed.`,
      { host: previous.url.host },
    );
  }
  let { method, headers, body, configuredHeaders } = previous;
  // 303 always becomes GET; 301/302 turn a POST into GET. 307/308 repeat the request as it was.
  if ((hop.status === 303 && method !== "GET") || ((hop.status === 301 || hop.status === 302) && method === "POST")) {
    method = "GET";
    body = null;
    headers = withoutHeaders(headers, ["content-type"]);
  }
  // The API key and every configured header (any of them may be a credential: X-Api-Key, a
  // tenant token, ...) must not leak to whatever other origin a redirect names.
  if (!keepsCredentials(previous.url, url)) {
    headers = withoutHeaders(headers, [...configuredHeaders, "authorization", "proxy-authorization", "cookie"]);
    for (const [name, value] of Object.entries(DEFAULT_HEADERS)) if (findHeader(headers, name) === undefined) headers[name] = value;
    if (body && findHeader(headers, "content-type") === undefined) headers["Content-Type"] = "application/json";
    configuredHeaders = [];
  }
  return { method, url, headers, body, configuredHeaders };
}

/**
 * Runs one HTTP tool: builds the request from the tool and the arguments, sends it through the
 * SSRF guard, follows up to `maxRedirects` redirects (each one checked again) and reports the
 * final answer. An upstream 4xx/5xx is a normal result with `success: false`. Throws
 * `ToolExecutionError` only when there is no answer to report: invalid URL or headers, refused
 * host, DNS/connection failure, timeouts, oversized body, too many or bad redirects,
 * unparseable HTTP, cancellation.
 */
export async function executeTool(
  tool: ToolHttpConfig,
  parameters: ToolArguments,
  options: ExecuteToolOptions,
): Promise<ToolExecutionResponse> {
  const timeoutMs = options.timeoutMs ?? TOOL_EXECUTION_DEFAULTS.timeoutMs;
  const connectTimeoutMs = Math.min(options.connectTimeoutMs ?? TOOL_EXECUTION_DEFAULTS.connectTimeoutMs, timeoutMs);
  const maxBytes = options.maxBytes ?? TOOL_EXECUTION_DEFAULTS.maxBytes;
  const maxRedirects = options.maxRedirects ?? TOOL_EXECUTION_DEFAULTS.maxRedirects;
  const resolve = options.resolve ?? systemResolver;

  let request = buildToolRequest(tool, parameters);

  if (options.signal?.aborted) throw new ToolExecutionError("tool_aborted", "The tool call was cancelled.");
  const deadline = new AbortController();
  const timer = setTimeout(() => {
    const host = request.url.host;
    deadline.abort(
      new ToolExecutionError("tool_timeout", `${host} did not answer within ${timeoutMs} ms.`, { host }),
    );
  }, timeoutMs);
  const onCallerAbort = () => deadline.abort(new ToolExecutionError("tool_aborted", "The tool call was cancelled."));
  options.signal?.addEventListener("abort", onCallerAbort, { once: true });

  try {
    for (let redirects = 0; ; redirects++) {
      const hop = await sendRequest(request, {
        allowedHosts: options.allowedHosts,
        resolve,
        connectTimeoutMs,
        maxBytes,
        signal: deadline.signal,
      });
      if (hop.kind === "response") {
        return {
          success: hop.status >= 200 && hop.status < 300,
          status: hop.status,
          statusText: hop.statusText,
          method: request.method,
          url: request.url.toString(),
          data: parseResponseBody(hop.headers, hop.body),
        };
      }
      if (redirects >= maxRedirects) {
        throw new ToolExecutionError(
          "tool_too_many_redirects",
          `Too many redirects: ${request.url.host} redirected again after ${maxRedirects}, so it was not followed.`,
          { host: request.url.host },
        );
      }
      request = followRedirect(request, hop);
    }
  } finally {
    clearTimeout(timer);
    options.signal?.removeEventListener("abort", onCallerAbort);
  }
}
