import { and, eq, like } from "drizzle-orm";
import type { Db } from "../db/client.ts";
import { verification } from "../db/schema.ts";

/**
 * Forgets every outstanding password-reset link of `userId`. The auth library stores each as a
 * verification row `reset-password:<token>` whose value is the user's id, and uses up only the
 * one that was followed: after a reset or a password change, an older link mailed earlier (and
 * perhaps read by someone else) must not set the password again.
 */
export async function revokeResetTokens(db: Db, userId: string): Promise<void> {
  await db.delete(verification).where(and(like(verification.identifier, "reset-password:%"), eq(verification.value, userId)));
}
