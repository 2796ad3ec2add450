import { asc } from "drizzle-orm";
import type { Page, PageQuery } from "../../../shared/pages.ts";
import type { Db } from "../../db/client.ts";
import { pageNewestFirst } from "../../db/keyset.ts";
import { demoRequests, user } from "../../db/schema.ts";

export type DemoRequestRow = typeof demoRequests.$inferSelect;
export type DemoRequestValues = Omit<typeof demoRequests.$inferInsert, "id" | "createdAt">;

/** Demo requests come from visitors, so they belong to no user and are only ever inserted here. */
export async function insertDemoRequest(db: Db, values: DemoRequestValues): Promise<DemoRequestRow> {
  const [row] = await db.insert(demoRequests).values(values).returning();
  return row!;
}

/** A page of the requests, newest first. Only for the instance's owner (the service checks). */
export const pageDemoRequests = (db: Db, query: PageQuery): Promise<Page<DemoRequestRow>> => pageNewestFirst(db, demoRequests, undefined, query);

/** The instance's owner: the first account created on this server (it installed it). */
export async function instanceOwnerId(db: Db): Promise<string | null> {
  const [first] = await db.select({ id: user.id }).from(user).orderBy(asc(user.createdAt), asc(user.id)).limit(1);
  return first?.id ?? null;
}
