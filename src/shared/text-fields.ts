import { z } from "zod";

/** A trimmed text field of at most `max` characters, its errors naming the field. */
export const text = (max: number, label: string) => z.string({ error: `${label} must be text` }).trim().max(max, `${label} must be at most ${max} characters`);

/** The same, optional: missing, null or empty all read as null. */
export const optionalText = (max: number, label: string) =>
  text(max, label)
    .nullish()
    .transform((v) => (v ? v : null));
