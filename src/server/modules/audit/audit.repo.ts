import { and, eq, getTableColumns, gte, lt, sql, type SQL } from "drizzle-orm";
import type { AuditAction } from "../../../shared/audit.ts";
import type { Db } from "../../db/client.ts";
import { afterKey, keyColumn, newestFirst, orderByKey } from "../../db/keyset.ts";
import { auditLog, user } from "../../db/schema.ts";
import type { Keyset } from "../../http/pages.ts";

export type AuditRow = typeof auditLog.$inferSelect;
export type NewAuditRow = typeof auditLog.$inferInsert;

export interface AuditQuery {
  actor?: string;
  action?: AuditAction;
  from?: Date;
  /** Exclusive. */
  to?: Date;
  /** Keyset: strictly older than this row's (created_at, id). */
  after?: Keyset;
}

/** Newest first by (created_at, id), served by audit_log_org_created_idx as one range. */
export const auditOrder = newestFirst(auditLog.createdAt, auditLog.id);

/**
 * The audit log's SQL. Append-only by construction: insert, list and the purge of entries past
 * their keep time — there is no update, and no delete of a chosen entry.
 */
export function createAuditRepo(db: Db) {
  function where(organizationId: string, q: AuditQuery): SQL {
    const conditions: Array<SQL | undefined> = [eq(auditLog.organizationId, organizationId)];
    if (q.actor) conditions.push(eq(auditLog.actorUserId, q.actor));
    if (q.action) conditions.push(eq(auditLog.action, q.action));
    if (q.from) conditions.push(gte(auditLog.createdAt, q.from));
    if (q.to) conditions.push(lt(auditLog.createdAt, q.to));
    if (q.after) conditions.push(afterKey(auditOrder, q.after));
    return and(...conditions)!;
  }

  return {
    async insert(rows: NewAuditRow[]): Promise<void> {
      if (rows.length) await db.insert(auditLog).values(rows);
    },

    /** Newest first, `(created_at, id)` so a page never shifts while entries arrive; `page_key`: the row's keyset. */
    list(organizationId: string, q: AuditQuery, limit: number) {
      return db
        .select({ ...getTableColumns(auditLog), page_key: keyColumn(auditOrder) })
        .from(auditLog)
        .where(where(organizationId, q))
        .orderBy(...orderByKey(auditOrder))
        .limit(limit);
    },

    /** A person's name as it reads now (a member's entry names who was affected). */
    async userName(userId: string): Promise<string | null> {
      const [row] = await db.select({ name: user.name, email: user.email }).from(user).where(eq(user.id, userId));
      return row ? row.name.trim() || row.email : null;
    },

    /**
     * Removes entries older than a year, or than the organisation's call retention when that is
     * longer (the one setting that says how long it keeps its history). In batches, like the
     * retention job's other deletes; returns how many went.
     */
    async purge(now: Date, keepDays: number, batch = 1000): Promise<number> {
      let removed = 0;
      for (;;) {
        // Both drivers answer { rows } (node-postgres QueryResult, PGlite Results).
        const result = (await db.execute(sql`
          DELETE FROM audit_log WHERE id IN (
            SELECT a.id FROM audit_log a
            LEFT JOIN call_retention r ON r.organization_id = a.organization_id
            WHERE a.created_at < ${now.toISOString()}::timestamptz - make_interval(days => GREATEST(${keepDays}::int, COALESCE(r.calls_days, 0)))
            LIMIT ${batch}
          ) RETURNING id`)) as unknown as { rows: unknown[] };
        const count = result.rows.length;
        removed += count;
        if (count < batch) return removed;
      }
    },
  };
}

export type AuditRepo = ReturnType<typeof createAuditRepo>;
