/**
 * Record ids are PostgreSQL uuids. An id that is not one can name no row, so services answer it
 * with their 404 before it reaches a `uuid` cast (which would fail as a 500).
 *
 * The test is PostgreSQL's canonical text form — any hex digits in 8-4-4-4-12 — and deliberately
 * not an RFC 9562 version/variant check (zod's `z.uuid()`): a `uuid` column holds any such value,
 * so a stricter test would answer 404 for a value the database could hold, and the two checks
 * would disagree about the same id. Whether the id names one of the user's rows is the owner-
 * scoped query's to say.
 */
import { z } from "zod";

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

export const isUuid = (value: string): boolean => UUID.test(value);

/** The same test as a zod string, for request schemas. */
export const uuidSchema = (message: string) => z.string().regex(UUID, { message });
