/**
 * `Idempotency-Key` on the POSTs that create or start something (docs/decisions/063-idempotency-keys.md):
 * a retry with the same key, from the same organisation, within the window gets the first answer
 * (its status and body) and nothing is done again.
 */
export const IDEMPOTENCY_HEADER = "Idempotency-Key";
/** Sent with a stored answer given again, so a client can tell a replay from a first answer. */
export const IDEMPOTENT_REPLAYED_HEADER = "Idempotent-Replayed";
export const IDEMPOTENCY_WINDOW_HOURS = 24;
export const MAX_IDEMPOTENCY_KEY_LENGTH = 255;

export const IDEMPOTENCY_MESSAGES = {
  invalid: `The Idempotency-Key header must be 1 to ${MAX_IDEMPOTENCY_KEY_LENGTH} visible ASCII characters (a UUID is a good choice).`,
  mismatch: "This Idempotency-Key was already used with a different request. Use a new key for a new request.",
  inProgress: "A request with this Idempotency-Key is still being handled. Retry once it has finished.",
} as const;

/** What the OpenAPI document says about the header, on every operation that accepts it. */
export const IDEMPOTENCY_DESCRIPTION =
  `Optional. A unique key for this request (e.g. a UUID). A retry with the same key within ${IDEMPOTENCY_WINDOW_HOURS} hours ` +
  `answers the first response (status and body, with \`${IDEMPOTENT_REPLAYED_HEADER}: true\`) without doing it again; ` +
  "the same key with a different request answers 422, and one still being handled answers 409.";
