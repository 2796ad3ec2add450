/** A failure the client caused or can act on; the message is shown to the user as is. */
export class AppError extends Error {
  constructor(
    readonly status: number,
    readonly code: string,
    message: string,
  ) {
    super(message);
  }
}

/** 429 with the seconds to wait, sent as Retry-After by the error handler. */
export class RateLimitedError extends AppError {
  constructor(
    message: string,
    readonly retryAfterSeconds: number,
  ) {
    super(429, "rate_limited", message);
  }
}

export const badRequest = (message: string, code = "bad_request") => new AppError(400, code, message);
export const unauthorized = (message = "Authentication required. Please sign in again.") =>
  new AppError(401, "unauthorized", message);
export const notFound = (what = "Resource") => new AppError(404, "not_found", `${what} not found`);
