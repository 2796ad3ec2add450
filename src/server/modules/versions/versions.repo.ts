import { and, desc, eq, inArray, sql } from "drizzle-orm";
import type { Page, PageQuery } from "../../../shared/pages.ts";
import type { AssistantContent } from "../../../shared/versions.ts";
import type { Db } from "../../db/client.ts";
import { keysetPage, keysetQuery, type KeysetOrder } from "../../db/keyset.ts";
import { isUniqueViolation } from "../../db/pg-errors.ts";
import { assistantVersions, user } from "../../db/schema.ts";

/** Every query here is scoped to `organizationId`: another user's versions are invisible, never forbidden. */

const summaryColumns = {
  version: assistantVersions.version,
  note: assistantVersions.note,
  createdAt: assistantVersions.createdAt,
  publishedById: assistantVersions.publishedBy,
  publishedByName: user.name,
  publishedWithFailures: assistantVersions.publishedWithFailures,
  rolledBackFrom: assistantVersions.rolledBackFrom,
};

export type VersionSummaryRow = {
  version: number;
  note: string | null;
  createdAt: Date;
  publishedById: string | null;
  publishedByName: string | null;
  publishedWithFailures: boolean;
  rolledBackFrom: number | null;
};
export type VersionRow = VersionSummaryRow & { content: AssistantContent };

const scoped = (organizationId: string, assistantId: string) => and(eq(assistantVersions.organizationId, organizationId), eq(assistantVersions.assistantId, assistantId));

/** Newest first: a version's number is unique within its assistant. */
const NEWEST_VERSION: KeysetOrder = { parts: [{ column: assistantVersions.version, kind: "integer" }], desc: true };

/** A page of the assistant's versions, newest first. */
export async function pageVersions(db: Db, organizationId: string, assistantId: string, query: PageQuery): Promise<Page<VersionSummaryRow>> {
  const q = keysetQuery(NEWEST_VERSION, query);
  const rows = await db
    .select({ ...summaryColumns, page_key: q.key })
    .from(assistantVersions)
    .leftJoin(user, eq(user.id, assistantVersions.publishedBy))
    .where(and(scoped(organizationId, assistantId), q.after))
    .orderBy(...q.orderBy)
    .limit(q.limit);
  return keysetPage(rows, query.limit);
}

/** Version `n`, or the latest one when `n` is null. */
export async function findVersion(db: Db, organizationId: string, assistantId: string, n: number | null): Promise<VersionRow | null> {
  const [row] = await db
    .select({ ...summaryColumns, content: assistantVersions.content })
    .from(assistantVersions)
    .leftJoin(user, eq(user.id, assistantVersions.publishedBy))
    .where(n === null ? scoped(organizationId, assistantId) : and(scoped(organizationId, assistantId), eq(assistantVersions.version, n)))
    .orderBy(desc(assistantVersions.version))
    .limit(1);
  return row ?? null;
}

/** The latest version of each of these assistants of the organisation. */
export function latestVersions(db: Db, organizationId: string, assistantIds: string[]): Promise<{ assistantId: string; version: number; content: AssistantContent }[]> {
  if (assistantIds.length === 0) return Promise.resolve([]);
  return db
    .selectDistinctOn([assistantVersions.assistantId], { assistantId: assistantVersions.assistantId, version: assistantVersions.version, content: assistantVersions.content })
    .from(assistantVersions)
    .where(and(eq(assistantVersions.organizationId, organizationId), inArray(assistantVersions.assistantId, assistantIds)))
    .orderBy(assistantVersions.assistantId, desc(assistantVersions.version));
}

export interface NewVersion {
  content: AssistantContent;
  note: string | null;
  publishedBy: string | null;
  publishedWithFailures: boolean;
  rolledBackFrom: number | null;
}

/**
 * Inserts the assistant's next version (the highest number + 1) in one statement; two publishes
 * at the same moment collide on the unique (assistant, version) index and the later one takes
 * the next number.
 */
export async function insertNextVersion(db: Db, organizationId: string, assistantId: string, values: NewVersion): Promise<number> {
  for (let attempt = 0; ; attempt++) {
    try {
      // Both drivers answer { rows } (node-postgres QueryResult, PGlite Results).
      const result = (await db.execute(sql`
        INSERT INTO ${assistantVersions} (organization_id, assistant_id, version, content, note, published_by, published_with_failures, rolled_back_from)
        SELECT ${organizationId}, ${assistantId}, coalesce(max(version), 0) + 1, ${JSON.stringify(values.content)}::jsonb, ${values.note},
               ${values.publishedBy}, ${values.publishedWithFailures}, ${values.rolledBackFrom}
        FROM ${assistantVersions} WHERE assistant_id = ${assistantId}
        RETURNING version`)) as unknown as { rows: Array<{ version: number }> };
      return Number(result.rows[0]!.version);
    } catch (err) {
      if (attempt < 3 && isUniqueViolation(err)) continue;
      throw err;
    }
  }
}
