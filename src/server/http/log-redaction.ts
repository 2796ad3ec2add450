import type { FastifyRequest } from "fastify";

/**
 * The request line as logged: the path with every query value replaced, so signed media
 * signatures, one-time session ids and verification tokens never land in a log file.
 */
export function redactUrl(url: string): string {
  const at = url.indexOf("?");
  if (at === -1) return url;
  const query = url
    .slice(at + 1)
    .split("&")
    .map((pair) => {
      const eq = pair.indexOf("=");
      return eq === -1 ? pair : `${pair.slice(0, eq)}=[redacted]`;
    })
    .join("&");
  return `${url.slice(0, at)}?${query}`;
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
