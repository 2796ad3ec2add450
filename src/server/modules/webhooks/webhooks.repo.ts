import { and, count, eq, isNull, lte, or, sql } from "drizzle-orm";
import type { Page, PageQuery } from "../../../shared/pages.ts";
import type { Db } from "../../db/client.ts";
import { pageNewestFirst } from "../../db/keyset.ts";
import { webhookDeliveries, webhookEndpoints } from "../../db/schema.ts";

export type EndpointRow = typeof webhookEndpoints.$inferSelect;
export type DeliveryRow = typeof webhookDeliveries.$inferSelect;
type EndpointValues = Pick<EndpointRow, "url" | "description" | "events" | "enabled" | "secretEncrypted">;

/** Every query here is scoped to `organizationId`, except the delivery worker's (`forDelivery`, by id) and the recovery's. */

/** A page of the organisation's webhook endpoints, newest first: the keyset in SQL (db/keyset.ts). */
export const pageEndpoints = (db: Db, organizationId: string, query: PageQuery): Promise<Page<EndpointRow>> =>
  pageNewestFirst(db, webhookEndpoints, eq(webhookEndpoints.organizationId, organizationId), query);

export async function countEndpoints(db: Db, organizationId: string): Promise<number> {
  const [row] = await db.select({ n: count() }).from(webhookEndpoints).where(eq(webhookEndpoints.organizationId, organizationId));
  return row?.n ?? 0;
}

export async function findEndpoint(db: Db, organizationId: string, id: string): Promise<EndpointRow | null> {
  const [row] = await db.select().from(webhookEndpoints).where(and(eq(webhookEndpoints.organizationId, organizationId), eq(webhookEndpoints.id, id)));
  return row ?? null;
}

export async function insertEndpoint(db: Db, organizationId: string, values: EndpointValues): Promise<EndpointRow> {
  const [row] = await db.insert(webhookEndpoints).values({ organizationId, ...values }).returning();
  return row!;
}

export async function updateEndpoint(db: Db, organizationId: string, id: string, values: Partial<EndpointRow>): Promise<EndpointRow | null> {
  const [row] = await db.update(webhookEndpoints).set(values).where(and(eq(webhookEndpoints.organizationId, organizationId), eq(webhookEndpoints.id, id))).returning();
  return row ?? null;
}

export async function deleteEndpoint(db: Db, organizationId: string, id: string): Promise<boolean> {
  const rows = await db.delete(webhookEndpoints).where(and(eq(webhookEndpoints.organizationId, organizationId), eq(webhookEndpoints.id, id))).returning({ id: webhookEndpoints.id });
  return rows.length > 0;
}

/** The enabled endpoints of `organizationId` subscribed to `type`. */
export function subscribedEndpoints(db: Db, organizationId: string, type: string): Promise<{ id: string }[]> {
  return db
    .select({ id: webhookEndpoints.id })
    .from(webhookEndpoints)
    .where(and(eq(webhookEndpoints.organizationId, organizationId), eq(webhookEndpoints.enabled, true), sql`${webhookEndpoints.events} @> ${JSON.stringify([type])}::jsonb`));
}

export async function insertDeliveries(
  db: Db,
  rows: { organizationId: string; endpointId: string; messageId: string; eventType: string; payload: string }[],
): Promise<DeliveryRow[]> {
  if (rows.length === 0) return [];
  return db.insert(webhookDeliveries).values(rows).returning();
}

/** An endpoint's deliveries, newest first (keyset in SQL, src/server/db/keyset.ts). */
export const listDeliveries = (db: Db, organizationId: string, endpointId: string, query: PageQuery): Promise<Page<DeliveryRow>> =>
  pageNewestFirst(db, webhookDeliveries, and(eq(webhookDeliveries.organizationId, organizationId), eq(webhookDeliveries.endpointId, endpointId)), query);

export async function findDelivery(db: Db, organizationId: string, id: string): Promise<DeliveryRow | null> {
  const [row] = await db.select().from(webhookDeliveries).where(and(eq(webhookDeliveries.organizationId, organizationId), eq(webhookDeliveries.id, id)));
  return row ?? null;
}

export async function updateDelivery(db: Db, id: string, values: Partial<DeliveryRow>): Promise<void> {
  await db.update(webhookDeliveries).set(values).where(eq(webhookDeliveries.id, id));
}

/**
 * How many of the organisation's deliveries are due (pending, not waiting for a retry's time):
 * its place in the fair order (webhooks.service.ts). Read by `webhook_deliveries_status_idx`.
 */
export async function dueDeliveries(db: Db, organizationId: string): Promise<number> {
  const [row] = await db
    .select({ n: count() })
    .from(webhookDeliveries)
    .where(
      and(
        eq(webhookDeliveries.status, "pending"),
        eq(webhookDeliveries.organizationId, organizationId),
        or(isNull(webhookDeliveries.nextAttemptAt), lte(webhookDeliveries.nextAttemptAt, sql`now()`)),
      ),
    );
  return row?.n ?? 0;
}

/**
 * The recovery's read, across organisations: every delivery still to be attempted. Answers the
 * query itself (awaited, its rows), so a test can ask the planner how it runs: by
 * `webhook_deliveries_status_idx`, never through every delivery ever made.
 */
export function pendingDeliveries(db: Db) {
  return db
    .select({ id: webhookDeliveries.id, organizationId: webhookDeliveries.organizationId, attempts: webhookDeliveries.attempts })
    .from(webhookDeliveries)
    .where(eq(webhookDeliveries.status, "pending"));
}

/** The worker's read: a delivery and its endpoint by the delivery's id (the job names no owner). */
export async function forDelivery(db: Db, id: string): Promise<{ delivery: DeliveryRow; endpoint: EndpointRow } | null> {
  const [row] = await db
    .select({ delivery: webhookDeliveries, endpoint: webhookEndpoints })
    .from(webhookDeliveries)
    .innerJoin(webhookEndpoints, eq(webhookEndpoints.id, webhookDeliveries.endpointId))
    .where(eq(webhookDeliveries.id, id));
  return row ?? null;
}

/**
 * A failed attempt: starts the endpoint's failing period if none is running (and its slow one if
 * `noAnswer`: timed out, refused, unreachable); answers the failing period's start.
 */
export async function markEndpointFailing(db: Db, id: string, noAnswer: boolean): Promise<Date | null> {
  const [row] = await db
    .update(webhookEndpoints)
    .set({
      failingSince: sql`coalesce(${webhookEndpoints.failingSince}, now())`,
      ...(noAnswer ? { slowSince: sql`coalesce(${webhookEndpoints.slowSince}, now())` } : {}),
    })
    .where(eq(webhookEndpoints.id, id))
    .returning({ failingSince: webhookEndpoints.failingSince });
  return row?.failingSince ?? null;
}

export async function markEndpointHealthy(db: Db, id: string): Promise<void> {
  await db
    .update(webhookEndpoints)
    .set({ failingSince: null, slowSince: null })
    .where(and(eq(webhookEndpoints.id, id), sql`(${webhookEndpoints.failingSince} is not null or ${webhookEndpoints.slowSince} is not null)`));
}

export async function disableEndpoint(db: Db, id: string, reason: string): Promise<void> {
  await db.update(webhookEndpoints).set({ enabled: false, disabledReason: reason }).where(eq(webhookEndpoints.id, id));
}
