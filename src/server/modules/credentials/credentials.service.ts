import {
  OPENAI_CREDENTIAL_MESSAGES,
  openAiKeyValueSchema,
  type CredentialName,
  type CredentialSaveResult,
  type CredentialStatus,
  type TwilioCredentialsInput,
  type TwilioCredentialsSaveResult,
} from "../../../shared/credentials.ts";
import type { ModuleContext } from "../../context.ts";
import { AppError } from "../../errors.ts";
import { maskSecret } from "../../secrets/crypto.ts";
import type { AccountCredentials, CredentialCheck } from "../../carriers/carrier.ts";
import * as repo from "./credentials.repo.ts";

/**
 * The database, the SecretBox that seals the values, the providers' addresses, and the carrier's
 * check of Twilio credentials (services.ts hands in carriers/twilio's; a service made only to read
 * credentials, as tests and benches do, needs none).
 */
export type CredentialsServiceDeps = Pick<ModuleContext, "db" | "secrets" | "config"> & { checkTwilio?: CredentialCheck };

export interface CredentialsService {
  status(organizationId: string, name: CredentialName): Promise<CredentialStatus>;
  /** Stores the value, then asks the provider whether it accepts it; a refusal is reported, not fatal. */
  save(organizationId: string, name: CredentialName, value: string): Promise<CredentialSaveResult>;
  /** Stores the SID and token together, then asks Twilio's account endpoint whether they work. */
  saveTwilio(organizationId: string, input: TwilioCredentialsInput): Promise<TwilioCredentialsSaveResult>;
  remove(organizationId: string, name: CredentialName): Promise<void>;
  /**
   * The plaintext of a stored credential, for server-side use only (the call engine, telephony).
   * Throws `credentialUnreadable` (409) when it was sealed under another APP_SECRET.
   */
  read(organizationId: string, name: CredentialName): Promise<string | null>;
  /** As `read`, but null when the value can no longer be read: for callers whose fix is the same as for a missing one. */
  readUsable(organizationId: string, name: CredentialName): Promise<string | null>;
  /** The user's Twilio pair, or null unless both halves are stored (409 when unreadable). */
  readTwilio(organizationId: string): Promise<AccountCredentials | null>;
}

const LABELS: Record<CredentialName, string> = {
  openai_api_key: "OpenAI API key",
  twilio_account_sid: "Twilio Account SID",
  twilio_auth_token: "Twilio Auth Token",
};

/** Sealed under another APP_SECRET: the value is lost, and entering it again is the only fix. */
export function credentialUnreadable(name: CredentialName): AppError {
  return new AppError(
    409,
    "credential_unreadable",
    `The stored ${LABELS[name]} can no longer be read (the server's secret changed). Enter it again and save it.`,
  );
}

export function createCredentialsService(deps: CredentialsServiceDeps): CredentialsService {
  const { db, secrets, config } = deps;

  function open(name: CredentialName, sealed: string): string {
    try {
      return secrets.decrypt(sealed);
    } catch {
      throw credentialUnreadable(name);
    }
  }

  async function read(organizationId: string, name: CredentialName): Promise<string | null> {
    const row = await repo.findCredential(db, organizationId, name);
    return row ? open(name, row.valueEncrypted) : null;
  }

  async function status(organizationId: string, name: CredentialName): Promise<CredentialStatus> {
    const row = await repo.findCredential(db, organizationId, name);
    return {
      name,
      exists: Boolean(row),
      // The Twilio token never comes back, not even as a hint; the others show a recognisable one.
      hint: row && name !== "twilio_auth_token" ? maskSecret(open(name, row.valueEncrypted)) : null,
      updated_at: row ? row.updatedAt.toISOString() : null,
      verification:
        row && row.verified !== null
          ? { verified: row.verified, message: row.verificationMessage ?? "", checked_at: row.checkedAt?.toISOString() ?? null }
          : null,
    };
  }

  return {
    status,
    read,

    async readUsable(organizationId, name) {
      try {
        return await read(organizationId, name);
      } catch {
        // Sealed under another APP_SECRET: as good as missing, and the fix is the same (enter it again).
        return null;
      }
    },

    async readTwilio(organizationId) {
      const [accountSid, authToken] = await Promise.all([read(organizationId, "twilio_account_sid"), read(organizationId, "twilio_auth_token")]);
      return accountSid && authToken ? { accountSid, authToken } : null;
    },

    async save(organizationId, name, value) {
      // The shape is checked before anything is stored or sent: a malformed key never reaches OpenAI.
      if (name === "openai_api_key") {
        const shape = openAiKeyValueSchema.safeParse(value);
        if (!shape.success) throw new AppError(400, "validation_error", shape.error.issues[0]?.message ?? "Invalid API key");
      }
      const verification = name === "openai_api_key" ? await verifyOpenAiKey(config.openaiBaseUrl, value) : null;
      // The outcome is stored with the value, so a reload of Settings still says whether it was accepted.
      await repo.upsertCredential(db, organizationId, name, secrets.encrypt(value), verification);
      return status(organizationId, name);
    },

    async saveTwilio(organizationId, input) {
      if (!deps.checkTwilio) throw new AppError(500, "internal_error", "Twilio credentials cannot be checked by this service");
      const verification = await deps.checkTwilio({ accountSid: input.account_sid, authToken: input.auth_token });
      await repo.upsertCredentials(
        db,
        organizationId,
        [
          { name: "twilio_account_sid", valueEncrypted: secrets.encrypt(input.account_sid) },
          { name: "twilio_auth_token", valueEncrypted: secrets.encrypt(input.auth_token) },
        ],
        verification,
      );
      const [accountSid, authToken] = await Promise.all([status(organizationId, "twilio_account_sid"), status(organizationId, "twilio_auth_token")]);
      return { account_sid: accountSid, auth_token: authToken, verification: accountSid.verification! };
    },

    async remove(organizationId, name) {
      // Removing what is not stored is no error: the outcome the user asked for holds.
      await repo.deleteCredential(db, organizationId, name);
    },
  };
}

const VERIFY_TIMEOUT_MS = 10_000;

/** `GET /models` is the cheapest authenticated call the provider offers. */
export async function verifyOpenAiKey(baseUrl: string, key: string): Promise<{ verified: boolean; message: string }> {
  try {
    const res = await fetch(`${baseUrl}/models`, {
      headers: { authorization: `Bearer ${key}` },
      signal: AbortSignal.timeout(VERIFY_TIMEOUT_MS),
    });
    if (res.ok) return { verified: true, message: OPENAI_CREDENTIAL_MESSAGES.accepted };
    if (res.status === 401) return { verified: false, message: OPENAI_CREDENTIAL_MESSAGES.refused };
    const body = (await res.json().catch(() => null)) as { error?: { message?: string } } | null;
    const reason = body?.error?.message ?? `${res.status} ${res.statusText}`;
    return { verified: false, message: `OpenAI did not accept the key: ${reason}` };
  } catch (err) {
    const reason = err instanceof Error && err.name === "TimeoutError" ? "no answer within 10 seconds" : "it could not be reached";
    return { verified: false, message: `The key was saved, but OpenAI could not verify it: ${reason}.` };
  }
}
