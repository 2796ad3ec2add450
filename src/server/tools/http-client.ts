import type { ClientRequest, IncomingHttpHeaders, IncomingMessage } from "node:http";
import http from "node:http";
import https from "node:https";
import type { Readable } from "node:stream";
import zlib from "node:zlib";
import type { PreparedRequest } from "./build-request.ts";
import { ToolExecutionError } from "./errors.ts";
import type { AllowSetting, Resolver } from "./ssrf-guard.ts";
import { assertIpLiteralAllowed, createGuardedLookup, isHostAllowed, normalizeHost } from "./ssrf-guard.ts";

export interface SendOptions {
  allowedHosts: readonly string[];
  resolve: Resolver;
  /** Covers DNS, TCP and (for https) the TLS handshake of this one request. */
  connectTimeoutMs: number;
  /** Cap on the answer's body, counted after decompression. */
  maxBytes: number;
  /**
   * Past `maxBytes`, keep the first `maxBytes` and stop reading (the connection is closed)
   * instead of failing: for callers that only need the status and the start of the body.
   */
  truncate?: boolean;
  /** The setting a refusal names as the way to allow a host (default TOOL_ALLOWED_HOSTS). */
  allowSetting?: AllowSetting;
  /** Aborted by the whole execution's deadline or by the caller; its reason is what we reject with. */
  signal: AbortSignal;
}

export type HopResult =
  | { kind: "redirect"; status: number; location: string }
  | { kind: "response"; status: number; statusText: string; headers: IncomingHttpHeaders; body: Buffer };

const REDIRECT_STATUSES = new Set([301, 302, 303, 307, 308]);

const TLS_ERROR = /^(ERR_TLS_|ERR_SSL_|CERT_|UNABLE_TO_|DEPTH_ZERO_|SELF_SIGNED_|HOSTNAME_MISMATCH)/;

/** Turns a socket or parser failure into a message a user can act on. */
function networkError(err: unknown, host: string, hostname: string): ToolExecutionError {
  if (err instanceof ToolExecutionError) return err;
  const e = err as NodeJS.ErrnoException;
  const code = e.code ?? "";
  const failed = (message: string) => new ToolExecutionError("tool_connection_failed", message, { host, cause: err });
  if (code === "ENOTFOUND" || code === "EAI_AGAIN" || code === "EAI_NODATA" || code === "EAI_NONAME") {
    return new ToolExecutionError("tool_dns_failed", `Could not resolve host ${hostname}.`, { host, cause: err });
  }
  if (code.startsWith("HPE_")) {
    return new ToolExecutionError("tool_invalid_response", `${host} sent an invalid HTTP response.`, { host, cause: err });
  }
  if (code === "ECONNREFUSED") return failed(`${host} refused the connection.`);
  if (code === "ECONNRESET" || code === "EPIPE" || e.message === "socket hang up" || e.message === "aborted") {
    return failed(`${host} closed the connection before answering completely.`);
  }
  if (TLS_ERROR.test(code)) return failed(`The secure connection to ${host} failed: ${e.message}.`);
  return failed(`Could not connect to ${host}${code ? ` (${code})` : ""}.`);
}

const MIB = 1024 * 1024;
const sizeLabel = (bytes: number) => (bytes % MIB === 0 ? `${bytes / MIB} MB` : `${bytes}-byte`);

function decoderFor(encoding: string | undefined): zlib.Gunzip | zlib.Inflate | zlib.BrotliDecompress | null {
  switch ((encoding ?? "").trim().toLowerCase()) {
    case "gzip":
    case "x-gzip":
      return zlib.createGunzip();
    case "deflate":
      return zlib.createInflate();
    case "br":
      return zlib.createBrotliDecompress();
    default:
      return null;
  }
}

/**
 * Makes one HTTP request (no redirect following) with the SSRF guard, the connect timeout and
 * the body cap. A redirect is reported, not read. Never resolves with a partial body.
 */
export async function sendRequest(request: PreparedRequest, options: SendOptions): Promise<HopResult> {
  const { url } = request;
  const isHttps = url.protocol === "https:";
  const port = url.port ? Number(url.port) : isHttps ? 443 : 80;
  const allowed = isHostAllowed(options.allowedHosts, url.hostname, port);
  if (!allowed) assertIpLiteralAllowed(url.hostname, options.allowSetting);
  options.signal.throwIfAborted();

  return new Promise<HopResult>((resolve, reject) => {
    const host = url.host;
    let settled = false;
    let req: ClientRequest | undefined;
    let res: IncomingMessage | undefined;

    const cleanup = () => {
      settled = true;
      clearTimeout(connectTimer);
      options.signal.removeEventListener("abort", onAbort);
    };
    const fail = (err: unknown) => {
      if (settled) return;
      cleanup();
      // Destroying the request closes the socket: no more bytes are read from a failed answer.
      res?.destroy();
      req?.destroy();
      reject(networkError(err, host, url.hostname));
    };
    const succeed = (result: HopResult) => {
      if (settled) return;
      cleanup();
      resolve(result);
    };
    const onAbort = () => fail(options.signal.reason);

    const connectTimer = setTimeout(
      () =>
        fail(
          new ToolExecutionError("tool_connect_timeout", `Timed out connecting to ${host} after ${options.connectTimeoutMs} ms.`, {
            host,
          }),
        ),
      options.connectTimeoutMs,
    );
    options.signal.addEventListener("abort", onAbort, { once: true });

    try {
      req = (isHttps ? https : http).request({
        protocol: url.protocol,
        hostname: normalizeHost(url.hostname),
        port,
        path: `${url.pathname}${url.search}`,
        method: request.method,
        headers: request.headers,
        // A fresh socket per request: a pooled one would skip `lookup`, and with it the guard.
        agent: false,
        lookup: createGuardedLookup(options.resolve, { checkAddresses: !allowed, allowSetting: options.allowSetting }),
      });
    } catch (err) {
      // node:http validates header names and values synchronously.
      const message = "A configured header has an invalid name or value.";
      fail(new ToolExecutionError("tool_invalid_config", message, { host, cause: err }));
      return;
    }

    req.once("socket", (socket) => {
      socket.once(isHttps ? "secureConnect" : "connect", () => clearTimeout(connectTimer));
    });
    req.on("error", fail);
    req.on("response", (incoming) => {
      res = incoming;
      clearTimeout(connectTimer);
      const status = incoming.statusCode ?? 0;
      const location = incoming.headers.location;
      if (REDIRECT_STATUSES.has(status) && location) {
        incoming.destroy();
        succeed({ kind: "redirect", status, location });
        return;
      }
      const declared = Number(incoming.headers["content-length"]);
      const tooLarge = () =>
        new ToolExecutionError(
          "tool_response_too_large",
          `The answer from ${host} is larger than the ${sizeLabel(options.maxBytes)} limit, so it was not read.`,
          { host },
        );
      if (!options.truncate && Number.isFinite(declared) && declared > options.maxBytes) return fail(tooLarge());

      const decoder = decoderFor(incoming.headers["content-encoding"]);
      const body: Readable = decoder ? incoming.pipe(decoder) : incoming;
      const chunks: Buffer[] = [];
      let size = 0;
      let rawSize = 0;
      const answer = (): HopResult => ({ kind: "response", status, statusText: incoming.statusMessage ?? "", headers: incoming.headers, body: Buffer.concat(chunks).subarray(0, options.maxBytes) });
      // Enough read: answer with what came, then close the connection (settled first, so its errors are ignored).
      const enough = () => {
        succeed(answer());
        incoming.destroy();
        req?.destroy();
      };
      const overflow = () => (options.truncate ? enough() : fail(tooLarge()));
      // The body's listener first: without a decoder both see the same chunk, which a truncated answer keeps.
      body.on("data", (chunk: Buffer) => {
        size += chunk.length;
        if (options.truncate) chunks.push(chunk);
        else if (size <= options.maxBytes) chunks.push(chunk);
        if (size > options.maxBytes) overflow();
      });
      incoming.on("data", (chunk: Buffer) => {
        rawSize += chunk.length;
        if (rawSize > options.maxBytes) overflow();
      });
      body.on("end", () => succeed(answer()));
      incoming.on("error", fail);
      incoming.on("aborted", () => fail(Object.assign(new Error("aborted"), { code: "ECONNRESET" })));
      decoder?.on("error", (err) =>
        fail(
          new ToolExecutionError("tool_invalid_response", `The answer from ${host} could not be decompressed.`, {
            host,
            cause: err,
          }),
        ),
      );
    });

    req.end(request.body ?? undefined);
  });
}
