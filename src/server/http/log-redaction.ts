import type { FastifyRequest } from "fastify";
import { isUuid } from "../../shared/ids.ts";

const REDACTED = "[redacted]";
/** The e-mailed reset link carries its token as the last path segment (auth.ts). */
const RESET_LINK_PREFIX = "/api/auth/reset-password/";
/**
 * A path segment that looks like a secret: 20+ token characters mixing lower case with upper
 * case or digits (a library token, an API key, a signature). Our own words (`send-verification-
 * email`) are lower case only; record ids, even with a file extension, are uuids and stay.
 */
const SECRET_LIKE = /^(?=.*[a-z])(?=.*[A-Z0-9])[A-Za-z0-9._~%+=-]{20,}$/;
const isRecordId = (segment: string) => isUuid(segment.replace(/\.[a-z0-9]{1,5}$/, ""));

function redactPath(path: string): string {
  if (path.startsWith(RESET_LINK_PREFIX)) return `${RESET_LINK_PREFIX}${REDACTED}`;
  // The built client's file names carry content hashes, not secrets.
  if (path.startsWith("/assets/")) return path;
  return path
    .split("/")
    .map((segment) => (SECRET_LIKE.test(segment) && !isRecordId(segment) ? REDACTED : segment))
    .join("/");
}

/**
 * The request line as logged: every query value replaced, and path segments that carry a
 * secret (the reset link's token, anything token-like), so signed media signatures, one-time
 * session ids, reset and verification tokens never land in a log file, whatever the path.
 */
export function redactUrl(url: string): string {
  const at = url.indexOf("?");
  if (at === -1) return redactPath(url);
  const query = url
    .slice(at + 1)
    .split("&")
    .map((pair) => {
      const eq = pair.indexOf("=");
      return eq === -1 ? pair : `${pair.slice(0, eq)}=[redacted]`;
    })
    .join("&");
  return `${redactPath(url.slice(0, at))}?${query}`;
}

/** Fastify's default request serializer, with the query redacted. */
export function serializeRequest(req: FastifyRequest) {
  return {
    method: req.method,
    url: redactUrl(req.url),
    host: req.host,
    remoteAddress: req.ip,
    remotePort: req.socket?.remotePort,
  };
}

/**
 * What a 5xx logs about its cause. A failed Drizzle query carries its parameters (in `params`
 * and inside its message): those are users' data — tool header values, names — so only the SQL
 * text and the driver's own error are kept.
 */
export function loggableError(err: unknown): unknown {
  if (!(err instanceof Error)) return err;
  const query = (err as { query?: unknown }).query;
  if (typeof query === "string" && "params" in err) {
    const cause = err.cause instanceof Error ? { type: err.cause.name, message: err.cause.message, code: (err.cause as { code?: unknown }).code } : undefined;
    return { type: err.name, message: "Failed query", query, cause, stack: err.stack?.split("\n").filter((l) => l.trimStart().startsWith("at ")).join("\n") };
  }
  return err;
}
