import { and, eq } from "drizzle-orm";
import type { CredentialName } from "../../../shared/credentials.ts";
import type { Db } from "../../db/client.ts";
import { credentials } from "../../db/schema.ts";

export async function findCredential(db: Db, organizationId: string, name: CredentialName) {
  const [row] = await db
    .select()
    .from(credentials)
    .where(and(eq(credentials.organizationId, organizationId), eq(credentials.name, name)));
  return row ?? null;
}

export async function upsertCredential(db: Db, organizationId: string, name: CredentialName, valueEncrypted: string) {
  const [row] = await db
    .insert(credentials)
    .values({ organizationId, name, valueEncrypted })
    .onConflictDoUpdate({ target: [credentials.organizationId, credentials.name], set: { valueEncrypted, updatedAt: new Date() } })
    .returning();
  return row!;
}

/** Both values or neither: a pair (Twilio's SID and token) must never be half-replaced. */
export async function upsertCredentials(db: Db, organizationId: string, values: { name: CredentialName; valueEncrypted: string }[]) {
  await db.transaction(async (tx) => {
    for (const { name, valueEncrypted } of values) {
      await tx
        .insert(credentials)
        .values({ organizationId, name, valueEncrypted })
        .onConflictDoUpdate({ target: [credentials.organizationId, credentials.name], set: { valueEncrypted, updatedAt: new Date() } });
    }
  });
}

export async function deleteCredential(db: Db, organizationId: string, name: CredentialName) {
  const rows = await db
    .delete(credentials)
    .where(and(eq(credentials.organizationId, organizationId), eq(credentials.name, name)))
    .returning({ name: credentials.name });
  return rows.length > 0;
}
