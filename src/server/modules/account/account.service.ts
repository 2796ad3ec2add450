import type { FastifyBaseLogger } from "fastify";
import type { AccountSummary } from "../../../shared/account.ts";
import { ACCOUNT_MESSAGES } from "../../../shared/account.ts";
import type { Auth } from "../../auth/auth.ts";
import type { Db } from "../../db/client.ts";
import { AppError } from "../../errors.ts";
import type { Storage } from "../../storage/storage.ts";
import { recordingKey } from "../../voice/call-record.ts";
import { createAccountRepo } from "./account.repo.ts";

/**
 * Releases every phone number of an organisation at the telephony provider (Twilio), so the
 * account's deletion stops the provider billing for them. It runs before any row is removed; throwing
 * stops the deletion with nothing removed. The phone-numbers module supplies it (services.ts).
 */
export type ReleaseUserPhoneNumbers = (organizationId: string) => Promise<void>;

export interface AccountServiceDeps {
  db: Db;
  auth: Auth;
  storage: Storage;
  releasePhoneNumbers: ReleaseUserPhoneNumbers;
}

export interface AccountService {
  /** What deleting the account would remove. */
  summary(userId: string): Promise<AccountSummary>;
  deleteAccount(userId: string, password: string, log: FastifyBaseLogger): Promise<void>;
}

export const invalidPassword = () => new AppError(400, "invalid_password", ACCOUNT_MESSAGES.wrongPassword);

export function createAccountService({ db, auth, storage, releasePhoneNumbers }: AccountServiceDeps): AccountService {
  const repo = createAccountRepo(db);

  async function checkPassword(userId: string, password: string): Promise<void> {
    const hash = await repo.passwordHash(userId);
    const ctx = await auth.$context;
    if (!hash || !(await ctx.password.verify({ hash, password }))) throw invalidPassword();
  }

  return {
    async summary(userId) {
      const { alone } = await repo.organizations(userId);
      const [counts, recordings] = await Promise.all([repo.counts(alone), repo.callRecordings(alone)]);
      return { ...counts, calls: recordings.length, recordings: recordings.filter((c) => c.recording).length };
    },

    /**
     * Deletes the account and the organisations only it belonged to (a team with other members
     * stays theirs; its last owner must hand ownership on first): numbers are released at the
     * provider first, then the rows go in one cascading delete, then the recordings leave
     * storage. A recording that cannot be removed is logged rather than resurrecting an account
     * the user asked to delete.
     */
    async deleteAccount(userId, password, log) {
      await checkPassword(userId, password);
      const { alone, lastOwnerOf } = await repo.organizations(userId);
      if (lastOwnerOf.length) throw new AppError(409, "last_owner", ACCOUNT_MESSAGES.lastOwner(lastOwnerOf[0]!));
      for (const organizationId of alone) await releasePhoneNumbers(organizationId);
      const recorded = await repo.callRecordings(alone);
      const deleted = await repo.deleteUser(userId, alone);
      if (deleted === "gone") throw new AppError(404, "not_found", "Account not found");
      if (deleted !== "deleted") throw new AppError(409, "last_owner", ACCOUNT_MESSAGES.lastOwner(deleted.lastOwnerOf));
      // The stored key, and the key a still-running call would write to (recordingKey), both go.
      const keys = new Set(recorded.flatMap((c) => [c.recording, recordingKey(c.id)].filter((k): k is string => Boolean(k))));
      await Promise.all(
        [...keys].map((key) =>
          storage.delete(key).catch((err: unknown) => log.error({ err, key }, "could not remove a deleted account's recording")),
        ),
      );
    },
  };
}
