import type { Db } from "../../db/client.ts";
import { demoRequests } from "../../db/schema.ts";

export type DemoRequestRow = typeof demoRequests.$inferSelect;
export type DemoRequestValues = Omit<typeof demoRequests.$inferInsert, "id" | "createdAt">;

/** Demo requests come from visitors, so they belong to no user and are only ever inserted here. */
export async function insertDemoRequest(db: Db, values: DemoRequestValues): Promise<DemoRequestRow> {
  const [row] = await db.insert(demoRequests).values(values).returning();
  return row!;
}
