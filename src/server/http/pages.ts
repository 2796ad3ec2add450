/**
 * Cutting a list into the API's pages (src/shared/pages.ts). A cursor is base64url JSON of the last
 * item's keyset; one that does not decode to the keyset this list uses is a 400 `invalid_cursor`,
 * never a 5xx nor a silent first page.
 */
import { AppError } from "../errors.ts";
import { INVALID_CURSOR_CODE, INVALID_CURSOR_MESSAGE, type Page, type PageQuery } from "../../shared/pages.ts";

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

/** Compares two keysets in list order (each part descending when `desc`). */
const compare = (a: Keyset, b: Keyset, desc: boolean): number => {
  for (let i = 0; i < a.length; i++) {
    if (a[i] === b[i]) continue;
    const less = a[i]! < b[i]!;
    return (less ? -1 : 1) * (desc ? -1 : 1);
  }
  return 0;
};

/**
 * A list read whole (a few rows, or rows that are not in the database), cut in memory: sorted by
 * `keyOf` (each part descending when `desc`; `kinds`: its parts' types), past the cursor, one page. Lists kept in the
 * database page in SQL instead (src/server/db/keyset.ts).
 */
export function byKeyset<T>(rows: T[], query: PageQuery, keyOf: (row: T) => Keyset, desc: boolean, kinds: readonly ("string" | "number")[] = ["string", "string"]): Page<T> {
  const sorted = [...rows].sort((a, b) => compare(keyOf(a), keyOf(b), desc));
  const after = query.cursor === undefined ? null : decodeCursor(query.cursor, kinds);
  const rest = after ? sorted.filter((row) => compare(keyOf(row), after, desc) > 0) : sorted;
  return pageOfList(rest, query.limit, keyOf);
}

/** Newest first by (created_at, id). */
export const byCreation = <T extends { id: string; created_at: string }>(rows: T[], query: PageQuery): Page<T> =>
  byKeyset(rows, query, (row) => [new Date(row.created_at).toISOString(), row.id], true);

/** By a name then id, ascending (lists a person reads alphabetically). */
export const byName = <T extends { id: string; name: string }>(rows: T[], query: PageQuery): Page<T> => byKeyset(rows, query, (row) => [row.name, row.id], false);

/** A page with its rows turned into what the API shows; the cursor stays the page's. */
export async function mapPage<A, B>(page: Page<A>, view: (rows: A[]) => B[] | Promise<B[]>): Promise<Page<B>> {
  return { data: await view(page.data), next_cursor: page.next_cursor };
}
