import type { FastifyError, FastifyInstance } from "fastify";
import { hasZodFastifySchemaValidationErrors } from "fastify-type-provider-zod";
import { AppError } from "../errors.ts";

/** One mapping from failures to `{ error: { code, message } }`; 5xx detail stays in the log. */
export function registerErrorHandler(app: FastifyInstance) {
  app.setErrorHandler((err: FastifyError, req, reply) => {
    if (err instanceof AppError) {
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
      req.log.error({ err }, "request failed");
      return reply
        .status(status)
        .send({ error: { code: "internal_error", message: "Something went wrong on our side. Please try again." } });
    }
    return reply.status(status).send({ error: { code: err.code ?? "bad_request", message: err.message } });
  });
}
