import type { FastifyError, FastifyInstance } from "fastify";
import { hasZodFastifySchemaValidationErrors } from "fastify-type-provider-zod";
import { AppError, RateLimitedError } from "../errors.ts";
import { findUnstorableText } from "./json-body.ts";
import { loggableError } from "./log-redaction.ts";

/** One mapping from failures to `{ error: { code, message } }`; 5xx detail stays in the log. */
// host, IPv4 or [IPv6], with an optional port: what RFC 9110 allows in Host (no user info).
const HOST_HEADER = /^(?:[A-Za-z0-9\-._~%!$&'()*+,;=]+|\[[0-9A-Fa-f:.]+\])(?::\d{1,5})?$/;

export function registerErrorHandler(app: FastifyInstance) {
  // Code that builds an address from Host (the auth library, redirects) must never see a broken one.
  app.addHook("onRequest", async (req) => {
    const host = req.headers.host;
    if (host !== undefined && !HOST_HEADER.test(host)) throw new AppError(400, "invalid_host", "The Host header is malformed.");
  });
  // A query string and a path are text too: U+0000 in one would reach a text column (a verification
  // token, a member's id) and fail there as a 500.
  app.addHook("preValidation", async (req) => {
    const reason = findUnstorableText(req.query) ?? findUnstorableText(req.params);
    if (reason) throw new AppError(400, "invalid_text", reason);
  });

  app.setErrorHandler((err: FastifyError, req, reply) => {
    if (err instanceof AppError) {
      if (err instanceof RateLimitedError) reply.header("retry-after", String(err.retryAfterSeconds));
      return reply.status(err.status).send({ error: { code: err.code, message: err.message } });
    }
    if (hasZodFastifySchemaValidationErrors(err)) {
      // The first issue's message is the specification's own text (e.g. "Name is required").
      return reply.status(400).send({
        error: {
          code: "validation_error",
          message: err.validation[0]?.message ?? "Invalid request",
          issues: err.validation.map((v) => ({ path: v.instancePath, message: v.message })),
        },
      });
    }
    const status = err.statusCode ?? 500;
    if (status >= 500) {
      // Never the failed query's parameters: they hold what users typed, header values included.
      req.log.error({ err: loggableError(err) }, "request failed");
      return reply
        .status(status)
        .send({ error: { code: "internal_error", message: "Something went wrong on our side. Please try again." } });
    }
    const code = status === 429 ? "rate_limited" : (err.code ?? "bad_request");
    return reply.status(status).send({ error: { code, message: err.message } });
  });
}
