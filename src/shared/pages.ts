/**
 * The one page shape every list of the API answers: `{ data, next_cursor }`. A client asks for the
 * next page by sending `next_cursor` back as `?cursor`; `null` means the list is done. The cursor is
 * opaque (base64url of the last item's keyset), so the order behind it can change without a new API.
 */
import { z } from "zod";

export const PAGE_LIMIT_DEFAULT = 50;
export const PAGE_LIMIT_MAX = 200;

export const LIMIT_MESSAGE = `limit must be a whole number from 1 to ${PAGE_LIMIT_MAX}`;
export const INVALID_CURSOR_CODE = "invalid_cursor";
export const INVALID_CURSOR_MESSAGE = "The cursor is not valid; start again from the first page";

/** `?limit` and `?cursor` of every list. */
export const pageQuerySchema = z.object({
  limit: z.coerce.number({ error: LIMIT_MESSAGE }).int(LIMIT_MESSAGE).min(1, LIMIT_MESSAGE).max(PAGE_LIMIT_MAX, LIMIT_MESSAGE).default(PAGE_LIMIT_DEFAULT),
  cursor: z.string().max(1000, INVALID_CURSOR_MESSAGE).optional(),
});
export type PageQuery = z.infer<typeof pageQuerySchema>;

/** A page of `item`: export it from the item's module as `xxxPageSchema` so the document names it. */
export const pageOf = <T extends z.ZodType>(item: T) => z.object({ data: z.array(item), next_cursor: z.string().nullable() });
export interface Page<T> {
  data: T[];
  next_cursor: string | null;
}
