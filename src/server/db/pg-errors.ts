/** PostgreSQL's SQLSTATE of a failed statement, wherever the driver put it (PGlite and pg wrap differently). */
export function pgErrorCode(err: unknown): string | undefined {
  for (let e: unknown = err; typeof e === "object" && e !== null; e = (e as { cause?: unknown }).cause) {
    const code = (e as { code?: unknown }).code;
    if (typeof code === "string" && /^[0-9A-Z]{5}$/.test(code)) return code;
  }
  return undefined;
}

export const isUniqueViolation = (err: unknown): boolean => pgErrorCode(err) === "23505";
export const isForeignKeyViolation = (err: unknown): boolean => pgErrorCode(err) === "23503";
