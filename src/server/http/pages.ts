/**
 * Cutting a list into the API's pages (src/shared/pages.ts). A cursor is base64url JSON of the last
 * item's keyset; one that does not decode to the keyset this list uses is a 400 `invalid_cursor`,
 * never a 5xx nor a silent first page.
 */
import { AppError } from "../errors.ts";
import { INVALID_CURSOR_CODE, INVALID_CURSOR_MESSAGE, type Page } from "../../shared/pages.ts";

export const invalidCursor = () => new AppError(400, INVALID_CURSOR_CODE, INVALID_CURSOR_MESSAGE);

/** A keyset: the values, in order, that place an item in its list. */
export type Keyset = (string | number)[];

export const encodeCursor = (key: Keyset): string => Buffer.from(JSON.stringify(key)).toString("base64url");

/** The keyset a cursor holds, checked against the kinds this list's keyset has. */
export function decodeCursor(cursor: string, kinds: readonly ("string" | "number")[]): Keyset {
  let key: unknown;
  try {
    key = JSON.parse(Buffer.from(cursor, "base64url").toString("utf8"));
  } catch {
    throw invalidCursor();
  }
  if (!Array.isArray(key) || key.length !== kinds.length || key.some((v, i) => typeof v !== kinds[i])) throw invalidCursor();
  return key as Keyset;
}

/**
 * The page of rows fetched with `limit + 1` (so the extra row tells whether another page follows):
 * the first `limit`, and the cursor of the last one shown when there is more.
 */
export function pageOfList<T>(rows: T[], limit: number, keyOf: (row: T) => Keyset): Page<T> {
  const data = rows.slice(0, limit);
  return { data, next_cursor: rows.length > limit ? encodeCursor(keyOf(data[data.length - 1]!)) : null };
}

/** A page with its rows turned into what the API shows; the cursor stays the page's. */
export async function mapPage<A, B>(page: Page<A>, view: (rows: A[]) => B[] | Promise<B[]>): Promise<Page<B>> {
  return { data: await view(page.data), next_cursor: page.next_cursor };
}
