/**
 * The API's answers to requests no route handles (an unknown path or method, a body or address
 * the server refuses before any route runs, a rate limit's refusal), in the usual
 * `{ error: { code, message } }` shape.
 * They never repeat the path or the framework's internal codes back to the caller.
 */
export const HTTP_ERROR_MESSAGES = {
  notFound: "Not found",
  methodNotAllowed: (method: string, allowed: readonly string[]) => `${method} is not supported here. This path accepts ${allowed.join(", ")}.`,
  bodyTooLarge: "The request body is too large (at most 1 MB).",
  uriTooLong: "The address is too long.",
  badUrl: "The address is not valid.",
  /** `after` as the rate limiter words the wait, e.g. "30 seconds" (a route may word its own). */
  rateLimited: (after: string) => `Too many requests. Please try again in ${after}.`,
  unsupportedMediaType: "This content type is not accepted here. Send application/json, or the type the API reference names for this operation.",
} as const;
