import { and, count, desc, eq, type SQL } from "drizzle-orm";
import type { PgColumn, PgTable, PgUpdateSetSource, PgInsertValue } from "drizzle-orm/pg-core";
import type { Page, PageQuery } from "../../shared/pages.ts";
import type { Db } from "./client.ts";
import { pageNewestFirst } from "./keyset.ts";

/** A table of rows an organisation owns: each has its own id and the organisation's id. */
type OwnedTable = PgTable & { id: PgColumn; organizationId: PgColumn; createdAt: PgColumn };

/**
 * The plain queries of a table an organisation owns, every one scoped to `organizationId`:
 * another organisation's rows are invisible, never forbidden. A module's repo re-exports these
 * under its own names and keeps the queries that are its own.
 */
export function scopedRepo<T extends OwnedTable, Values>(table: T, options: { stampUpdatedAt?: boolean } = {}) {
  type Row = T["$inferSelect"];
  const own = (organizationId: string, id: string): SQL => and(eq(table.organizationId, organizationId), eq(table.id, id))!;
  return {
    /** Newest first; ties (one transaction's rows) by id, so the order is stable. */
    list: (db: Db, organizationId: string): Promise<Row[]> =>
      db.select().from(table as PgTable).where(eq(table.organizationId, organizationId)).orderBy(desc(table.createdAt), desc(table.id)) as Promise<Row[]>,
    /** A page of them, newest first: the keyset in SQL (db/keyset.ts). */
    page: (db: Db, organizationId: string, query: PageQuery): Promise<Page<Row>> => pageNewestFirst(db, table, eq(table.organizationId, organizationId), query),
    count: async (db: Db, organizationId: string): Promise<number> => {
      const [row] = await db.select({ n: count() }).from(table as PgTable).where(eq(table.organizationId, organizationId));
      return row?.n ?? 0;
    },
    find: async (db: Db, organizationId: string, id: string): Promise<Row | null> => {
      const [row] = (await db.select().from(table as PgTable).where(own(organizationId, id))) as Row[];
      return row ?? null;
    },
    insert: async (db: Db, organizationId: string, values: Values): Promise<Row> => {
      const [row] = (await db.insert(table).values({ ...values, organizationId } as PgInsertValue<T>).returning()) as Row[];
      return row!;
    },
    update: async (db: Db, organizationId: string, id: string, values: Partial<Values>): Promise<Row | null> => {
      // Stamped even when no field is sent, so a save always moves "Last updated".
      const set = options.stampUpdatedAt ? { ...values, updatedAt: new Date() } : values;
      const [row] = (await db.update(table).set(set as PgUpdateSetSource<T>).where(own(organizationId, id)).returning()) as Row[];
      return row ?? null;
    },
    remove: async (db: Db, organizationId: string, id: string): Promise<boolean> => {
      const rows = await db.delete(table).where(own(organizationId, id)).returning({ id: table.id });
      return rows.length > 0;
    },
  };
}
