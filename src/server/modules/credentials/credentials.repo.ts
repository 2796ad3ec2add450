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

/** The provider's answer to a check of the value being stored; null when it was not checked. */
export interface StoredVerification {
  verified: boolean;
  message: string;
}

function verificationColumns(verification: StoredVerification | null) {
  return verification
    ? { verified: verification.verified, verificationMessage: verification.message, checkedAt: new Date() }
    : { verified: null, verificationMessage: null, checkedAt: null };
}

export async function upsertCredential(db: Db, organizationId: string, name: CredentialName, valueEncrypted: string, verification: StoredVerification | null) {
  const set = { valueEncrypted, ...verificationColumns(verification) };
  const [row] = await db
    .insert(credentials)
    .values({ organizationId, name, ...set })
    .onConflictDoUpdate({ target: [credentials.organizationId, credentials.name], set: { ...set, updatedAt: new Date() } })
    .returning();
  return row!;
}

/** Both values or neither: a pair (Twilio's SID and token) must never be half-replaced. Both keep the pair's verification. */
export async function upsertCredentials(
  db: Db,
  organizationId: string,
  values: { name: CredentialName; valueEncrypted: string }[],
  verification: StoredVerification | null,
) {
  await db.transaction(async (tx) => {
    for (const { name, valueEncrypted } of values) {
      const set = { valueEncrypted, ...verificationColumns(verification) };
      await tx
        .insert(credentials)
        .values({ organizationId, name, ...set })
        .onConflictDoUpdate({ target: [credentials.organizationId, credentials.name], set: { ...set, updatedAt: new Date() } });
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
