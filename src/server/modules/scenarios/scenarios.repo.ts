import { and, asc, count, eq, inArray } from "drizzle-orm";
import type { Page, PageQuery } from "../../../shared/pages.ts";
import type { Db } from "../../db/client.ts";
import { oldestFirst, pageTable } from "../../db/keyset.ts";
import { scenarios } from "../../db/schema.ts";

export type ScenarioRow = typeof scenarios.$inferSelect;
export type ScenarioValues = Omit<typeof scenarios.$inferInsert, "id" | "organizationId" | "assistantId" | "createdAt" | "updatedAt">;

/** Every query here is scoped to `organizationId` and the assistant: another organisation's rows are invisible. */

export function listScenarios(db: Db, organizationId: string, assistantId: string): Promise<ScenarioRow[]> {
  return db
    .select()
    .from(scenarios)
    .where(and(eq(scenarios.organizationId, organizationId), eq(scenarios.assistantId, assistantId)))
    .orderBy(asc(scenarios.createdAt), asc(scenarios.id));
}

/** A page of the assistant's scenarios, oldest first (the order they were written). */
export const pageScenarios = (db: Db, organizationId: string, assistantId: string, query: PageQuery): Promise<Page<ScenarioRow>> =>
  pageTable(db, scenarios, oldestFirst(scenarios.createdAt, scenarios.id), and(eq(scenarios.organizationId, organizationId), eq(scenarios.assistantId, assistantId)), query);

export async function findScenario(db: Db, organizationId: string, assistantId: string, id: string): Promise<ScenarioRow | null> {
  const [row] = await db
    .select()
    .from(scenarios)
    .where(and(eq(scenarios.organizationId, organizationId), eq(scenarios.assistantId, assistantId), eq(scenarios.id, id)));
  return row ?? null;
}

export function findScenarios(db: Db, organizationId: string, assistantId: string, ids: readonly string[]): Promise<ScenarioRow[]> {
  if (ids.length === 0) return Promise.resolve([]);
  return db
    .select()
    .from(scenarios)
    .where(and(eq(scenarios.organizationId, organizationId), eq(scenarios.assistantId, assistantId), inArray(scenarios.id, [...ids])))
    .orderBy(asc(scenarios.createdAt), asc(scenarios.id));
}

export async function countScenarios(db: Db, organizationId: string, assistantId: string): Promise<number> {
  const [row] = await db
    .select({ n: count() })
    .from(scenarios)
    .where(and(eq(scenarios.organizationId, organizationId), eq(scenarios.assistantId, assistantId)));
  return row?.n ?? 0;
}

export async function insertScenario(db: Db, organizationId: string, assistantId: string, values: ScenarioValues): Promise<ScenarioRow> {
  const [row] = await db
    .insert(scenarios)
    .values({ ...values, organizationId, assistantId })
    .returning();
  return row!;
}

export async function updateScenario(db: Db, organizationId: string, assistantId: string, id: string, values: Partial<ScenarioValues>): Promise<ScenarioRow | null> {
  const [row] = await db
    .update(scenarios)
    .set({ ...values, updatedAt: new Date() })
    .where(and(eq(scenarios.organizationId, organizationId), eq(scenarios.assistantId, assistantId), eq(scenarios.id, id)))
    .returning();
  return row ?? null;
}

export async function deleteScenario(db: Db, organizationId: string, assistantId: string, id: string): Promise<boolean> {
  const rows = await db
    .delete(scenarios)
    .where(and(eq(scenarios.organizationId, organizationId), eq(scenarios.assistantId, assistantId), eq(scenarios.id, id)))
    .returning({ id: scenarios.id });
  return rows.length > 0;
}
