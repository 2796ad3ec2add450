/**
 * The bounds of the numbers and dates a request may carry, checked once in the shared schemas.
 *
 * JSON numbers and query-string numbers reach 2^53 as exact integers, but the columns they are
 * compared with or stored in are PostgreSQL `integer` (at most 2^31 − 1): a larger value passes a
 * plain `.int()` and then fails in the database as a 500. Dates likewise: `timestamptz` refuses
 * year 0 and the "+010000-…" form a JavaScript Date past 9999 takes, and a date one day past a
 * bound (a whole-day `to`) can cross it; so a date filter or setting stays within years 1970–2999.
 */
import { z } from "zod";

export const INT32_MAX = 2_147_483_647;

/** A whole number from `min` (0 unless given) to 2^31 − 1; `message` for every way it is wrong. */
export const int32 = (message: string, min = 0) => z.number({ error: message }).int(message).min(min, message).max(INT32_MAX, message);

/** `int32` from 1: versions, counts, limits. */
export const positiveInt32 = (message: string) => int32(message, 1);

/** `int32` from text (a query parameter or a path segment): "12" is 12, anything else `message`. */
export const int32Text = (message: string, min = 0) =>
  z.coerce.number({ error: message }).int(message).min(min, message).max(INT32_MAX, message);

const EARLIEST_DATE_MS = Date.parse("1970-01-01T00:00:00Z");
const LATEST_DATE_MS = Date.parse("3000-01-01T00:00:00Z");
export const DATE_BOUNDS_MESSAGE = "Dates must be between the years 1970 and 2999";

/** Whether an ISO date or date-time lies within the bounds every date filter and setting keeps. */
export const withinDateBounds = (iso: string): boolean => {
  const at = Date.parse(iso);
  return at >= EARLIEST_DATE_MS && at < LATEST_DATE_MS;
};

/** What the API's document says of every date it takes (a schema that describes more appends it). */
export const DATE_BOUNDS_DESCRIPTION = "An ISO 8601 date-time with an offset, within the years 1970–2999 (400 otherwise).";

/** An ISO 8601 date-time with an offset (Z or ±hh:mm), within the years 1970–2999. */
export const isoDateTime = (message: string) => z.iso.datetime({ offset: true, message }).refine(withinDateBounds, DATE_BOUNDS_MESSAGE).meta({ description: DATE_BOUNDS_DESCRIPTION });
