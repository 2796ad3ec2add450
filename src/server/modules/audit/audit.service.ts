/**
 * The audit log: `record` is the one way in (the HTTP hook, sign-ins, the live board), and the
 * list and CSV the one way out. Nothing changes or removes an entry but the keep-time purge.
 */
import {
  AUDIT_ACTION_LABELS,
  auditRangeEnd,
  AUDIT_CSV_COLUMNS,
  AUDIT_RETENTION_DAYS,
  type AuditAction,
  type AuditEntry,
  type AuditFilters,
  type AuditListQuery,
  type AuditPage,
  type AuditTargetType,
  type AuditVia,
} from "../../../shared/audit.ts";
import type { Db } from "../../db/client.ts";
import { csvField } from "../../http/csv-field.ts";
import { decodeKey, keysetPage } from "../../db/keyset.ts";
import { auditOrder, createAuditRepo, type AuditQuery, type AuditRow } from "./audit.repo.ts";

/** Who acted: a person (by id and name as it reads now), through their session or one of their API keys. */
export interface AuditActor {
  userId: string | null;
  name: string;
  via: AuditVia;
  /** The key used, when `via` is `api_key` (the person is its creator). */
  apiKeyId?: string | null;
}

export interface AuditTarget {
  type: AuditTargetType;
  id?: string | null;
  name?: string | null;
}

export interface AuditRecord {
  organizationId: string;
  actor: AuditActor;
  action: AuditAction;
  target?: AuditTarget | null;
  details?: Record<string, unknown>;
  ip?: string | null;
}

export interface AuditService {
  /** Writes one entry; never throws (an audit failure is logged, the action it describes already happened). */
  record(entry: AuditRecord): Promise<void>;
  list(organizationId: string, query: AuditListQuery): Promise<AuditPage>;
  csv(organizationId: string, filters: AuditFilters): AsyncGenerator<string>;
  /** A person's name as it reads now, for naming a member an entry is about. */
  userName(userId: string): Promise<string | null>;
  /** Removes what is past its keep time; returns how many entries went. */
  purge(now?: Date): Promise<number>;
}

export interface AuditServiceDeps {
  db: Db;
  clock: () => Date;
  logger: { error(obj: object, msg?: string): void };
}

const CSV_BATCH = 1000;

function toEntry(row: AuditRow): AuditEntry {
  return {
    id: row.id,
    created_at: row.createdAt.toISOString(),
    actor_user_id: row.actorUserId,
    actor_name: row.actorName,
    via: row.via,
    actor_api_key_id: row.actorApiKeyId,
    action: row.action,
    action_label: AUDIT_ACTION_LABELS[row.action] ?? row.action,
    target_type: row.targetType,
    target_id: row.targetId,
    target_name: row.targetName,
    details: row.details,
    ip: row.ip,
  };
}

function toQuery(filters: AuditFilters): AuditQuery {
  const from = filters.from ? new Date(filters.from) : undefined;
  const to = filters.to ? new Date(auditRangeEnd(filters.to)) : undefined;
  return { actor: filters.actor, action: filters.action, from, to };
}

const line = (fields: string[]) => `${fields.map(csvField).join(",")}\r\n`;

function csvRow(e: AuditEntry): string[] {
  return [
    e.created_at,
    e.actor_name,
    e.via,
    e.action_label,
    e.target_type ?? "",
    e.target_id ?? "",
    e.target_name ?? "",
    Object.keys(e.details).length ? JSON.stringify(e.details) : "",
    e.ip ?? "",
    e.actor_api_key_id ?? "",
  ];
}

export function createAuditService({ db, clock, logger }: AuditServiceDeps): AuditService {
  const repo = createAuditRepo(db);

  return {
    async record({ organizationId, actor, action, target, details, ip }) {
      try {
        await repo.insert([
          {
            organizationId,
            actorUserId: actor.userId,
            actorName: actor.name,
            via: actor.via,
            actorApiKeyId: actor.apiKeyId ?? null,
            action,
            targetType: target?.type ?? null,
            targetId: target?.id ?? null,
            targetName: target?.name ?? null,
            details: details ?? {},
            ip: ip ?? null,
            // Set here, at millisecond precision, so the keyset cursor names a row exactly.
            createdAt: clock(),
          },
        ]);
      } catch (err) {
        logger.error({ err, organizationId, action }, "audit entry could not be written");
      }
    },

    async list(organizationId, query) {
      const q = { ...toQuery(query), after: query.cursor === undefined ? undefined : decodeKey(auditOrder, query.cursor) };
      // One row more than asked tells whether an older page follows.
      const page = keysetPage(await repo.list(organizationId, q, query.limit + 1), query.limit);
      return { data: page.data.map(toEntry), next_cursor: page.next_cursor };
    },

    async *csv(organizationId, filters) {
      yield line([...AUDIT_CSV_COLUMNS]);
      const q: AuditQuery = toQuery(filters);
      for (;;) {
        const rows = await repo.list(organizationId, q, CSV_BATCH);
        if (rows.length === 0) return;
        yield rows.map((r) => line(csvRow(toEntry(r)))).join("");
        if (rows.length < CSV_BATCH) return;
        q.after = rows[rows.length - 1]!.page_key;
      }
    },

    userName: (userId) => repo.userName(userId),

    purge: (now = clock()) => repo.purge(now, AUDIT_RETENTION_DAYS),
  };
}
