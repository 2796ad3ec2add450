/**
 * Keyset pagination in SQL (docs/decisions/077-one-page-shape.md): a page is the rows after the
 * cursor's keyset in the list's order, `limit + 1` of them so the extra row says whether another
 * page follows. The database reads one index range however deep the client has walked, where
 * reading a list whole and cutting it costs the whole list on every page.
 *
 * The keyset travels as the cursor of src/server/http/pages.ts (base64url JSON). A timestamp part
 * travels as text to the microsecond, as PostgreSQL holds it: a JavaScript Date keeps
 * milliseconds, and rows written in the same millisecond as a page's last one would be skipped.
 */
import { and, asc, desc, getTableColumns, sql, type AnyColumn, type SQL } from "drizzle-orm";
import type { PgColumn, PgTable } from "drizzle-orm/pg-core";
import { withinDateBounds } from "../../shared/bounds.ts";
import type { Page, PageQuery } from "../../shared/pages.ts";
import { decodeCursor, invalidCursor, pageOfList, type Keyset } from "../http/pages.ts";
import type { Db } from "./client.ts";

/** How a part of the keyset is compared in SQL and carried in the cursor. */
export type KeyKind = "timestamp" | "uuid" | "text" | "integer";

/** One column of a list's order. */
export interface KeyPart {
  column: AnyColumn;
  kind: KeyKind;
}

/** A list's order: its columns, all descending (newest first) or all ascending. */
export interface KeysetOrder {
  parts: readonly KeyPart[];
  desc: boolean;
}

/** Newest first by `(created_at, id)`: the order most lists keep. */
export const newestFirst = (createdAt: AnyColumn, id: AnyColumn): KeysetOrder => ({
  parts: [
    { column: createdAt, kind: "timestamp" },
    { column: id, kind: "uuid" },
  ],
  desc: true,
});

/** Oldest first by `(created_at, id)`: lists read in the order they were made. */
export const oldestFirst = (createdAt: AnyColumn, id: AnyColumn): KeysetOrder => ({ ...newestFirst(createdAt, id), desc: false });

const MICROS_ISO = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{6}Z$/;
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
const INT32_MAX = 2_147_483_647;

/** Whether a decoded value is one this kind of part could have written (else it would fail in SQL as a 500). */
const fits: Record<KeyKind, (value: string | number) => boolean> = {
  timestamp: (v) => typeof v === "string" && MICROS_ISO.test(v) && withinDateBounds(v),
  uuid: (v) => typeof v === "string" && UUID.test(v),
  text: (v) => typeof v === "string",
  integer: (v) => typeof v === "number" && Number.isInteger(v) && Math.abs(v) <= INT32_MAX,
};

/** The keyset a cursor holds, checked against this order's parts (400 `invalid_cursor` otherwise). */
export function decodeKey(order: KeysetOrder, cursor: string): Keyset {
  const key = decodeCursor(
    cursor,
    order.parts.map((p) => (p.kind === "integer" ? "number" : "string")),
  );
  if (order.parts.some((part, i) => !fits[part.kind](key[i]!))) throw invalidCursor();
  return key;
}

const CAST: Record<KeyKind, SQL> = {
  timestamp: sql.raw("timestamptz"),
  uuid: sql.raw("uuid"),
  text: sql.raw("text"),
  integer: sql.raw("integer"),
};

/**
 * Rows strictly after `key` in the order: one row comparison, which a btree on the order's
 * columns (after the organisation's id) serves as a single range.
 */
export function afterKey(order: KeysetOrder, key: Keyset): SQL {
  const columns = sql.join(
    order.parts.map((p) => sql`${p.column}`),
    sql`, `,
  );
  const values = sql.join(
    order.parts.map((p, i) => sql`${key[i]}::${CAST[p.kind]}`),
    sql`, `,
  );
  return order.desc ? sql`(${columns}) < (${values})` : sql`(${columns}) > (${values})`;
}

/** The ORDER BY of the list. */
export const orderByKey = (order: KeysetOrder): SQL[] => order.parts.map((p) => (order.desc ? desc(p.column) : asc(p.column)));

/** Selected beside a row's columns as `page_key`: the row's keyset as its cursor spells it. */
export function keyColumn(order: KeysetOrder): SQL<Keyset> {
  const parts = order.parts.map((p) =>
    p.kind === "timestamp" ? sql`to_char(${p.column} AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.US"Z"')` : p.kind === "uuid" ? sql`${p.column}::text` : sql`${p.column}`,
  );
  // json_build_array comes back as one JSON value with both drivers (node-postgres, PGlite).
  return sql<Keyset>`json_build_array(${sql.join(parts, sql`, `)})`;
}

/**
 * What a page's query needs from `query` (`?limit`, `?cursor`): the condition after the cursor
 * (undefined on the first page), the order, the key to select as `page_key`, and how many rows
 * to read. A bad cursor throws here, before any SQL.
 */
export function keysetQuery(order: KeysetOrder, query: PageQuery) {
  return {
    after: query.cursor === undefined ? undefined : afterKey(order, decodeKey(order, query.cursor)),
    orderBy: orderByKey(order),
    key: keyColumn(order),
    limit: query.limit + 1,
  };
}

/** The page of rows read with `keysetQuery` (`page_key` selected, `limit + 1` read). */
export function keysetPage<Row extends { page_key: Keyset }>(rows: Row[], limit: number): Page<Row> {
  return pageOfList(rows, limit, (row) => row.page_key);
}

/**
 * A page of a table's own rows (all its columns) matching `where`, in `order`. Lists that join
 * or compute columns build their query with `keysetQuery` and cut it with `keysetPage`.
 */
export async function pageTable<T extends PgTable>(db: Db, table: T, order: KeysetOrder, where: SQL | undefined, query: PageQuery): Promise<Page<T["$inferSelect"]>> {
  const q = keysetQuery(order, query);
  const rows = await db
    .select({ ...getTableColumns(table as PgTable), page_key: q.key })
    .from(table as PgTable)
    .where(and(where, q.after))
    .orderBy(...q.orderBy)
    .limit(q.limit);
  return keysetPage(rows, query.limit) as Page<T["$inferSelect"]>;
}

/** A page of a table's rows matching `where` (its organisation's id at least), newest first by `(created_at, id)`. */
export const pageNewestFirst = <T extends PgTable & { id: PgColumn; createdAt: PgColumn }>(db: Db, table: T, where: SQL | undefined, query: PageQuery) =>
  pageTable(db, table, newestFirst(table.createdAt, table.id), where, query);
