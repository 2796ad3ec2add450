import type { FastifyError, FastifyInstance, FastifyReply } from "fastify";
import { hasZodFastifySchemaValidationErrors } from "fastify-type-provider-zod";
import { HTTP_ERROR_MESSAGES } from "../../shared/http-errors.ts";
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
    if (status === 429) return reply.status(429).send({ error: { code: "rate_limited", message: err.message } });
    const known = frameworkError(err);
    return reply.status(known.status).send({ error: { code: known.code, message: known.message } });
  });
}

/**
 * Fastify's and its plugins' own refusals (`FST_…`) in the app's words: their codes are internals,
 * and some of their messages repeat the path. A static file path the plugin forbids is simply not found.
 */
const FRAMEWORK_ERRORS: Record<string, { status: number; code: string; message: string }> = {
  FST_ERR_CTP_BODY_TOO_LARGE: { status: 413, code: "body_too_large", message: HTTP_ERROR_MESSAGES.bodyTooLarge },
  FST_ERR_CTP_INVALID_MEDIA_TYPE: { status: 415, code: "unsupported_media_type", message: HTTP_ERROR_MESSAGES.unsupportedMediaType },
  FST_ERR_MAX_PARAM_LENGTH: { status: 414, code: "uri_too_long", message: HTTP_ERROR_MESSAGES.uriTooLong },
  FST_ERR_BAD_URL: { status: 400, code: "bad_url", message: HTTP_ERROR_MESSAGES.badUrl },
  FST_STATIC_FORBIDDEN_PATH: { status: 404, code: "not_found", message: HTTP_ERROR_MESSAGES.notFound },
};

/** A 4xx that is not the app's own AppError, as status, code and message fit for the client. */
export function frameworkError(err: Pick<FastifyError, "code" | "statusCode" | "message">): { status: number; code: string; message: string } {
  const known = err.code ? FRAMEWORK_ERRORS[err.code] : undefined;
  if (known) return known;
  const status = err.statusCode ?? 400;
  // Any other framework code: the status says what kind; the message is Fastify's (it names no input).
  if (!err.code || err.code.startsWith("FST_")) return { status, code: status === 404 ? "not_found" : "bad_request", message: err.message };
  return { status, code: err.code, message: err.message };
}

/**
 * Fastify's `frameworkErrors` option: refusals made before routing (a malformed or too long
 * address), which otherwise bypass the error handler with Fastify's own body.
 */
export function sendFrameworkError(err: FastifyError, _req: unknown, reply: FastifyReply): void {
  const known = frameworkError(err);
  void reply.status(known.status).send({ error: { code: known.code, message: known.message } });
}
