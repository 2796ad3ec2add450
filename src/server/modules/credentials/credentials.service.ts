import type {
  CredentialName,
  CredentialSaveResult,
  CredentialStatus,
  TwilioCredentialsInput,
  TwilioCredentialsSaveResult,
} from "../../../shared/credentials.ts";
import type { ModuleContext } from "../../context.ts";
import { AppError } from "../../errors.ts";
import { maskSecret } from "../../secrets/crypto.ts";
import { createTwilioRest, type TwilioCredentials } from "../../telephony/twilio-client.ts";
import { deleteCredential, findCredential, upsertCredential, upsertCredentials } from "./credentials.repo.ts";

type Ctx = Pick<ModuleContext, "db" | "secrets" | "config">;

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

function open(ctx: Ctx, name: CredentialName, sealed: string): string {
  try {
    return ctx.secrets.decrypt(sealed);
  } catch {
    throw credentialUnreadable(name);
  }
}

/**
 * The plaintext of a stored credential, for server-side use only (the call engine, telephony).
 * Throws `credentialUnreadable` (409) when it was sealed under another APP_SECRET.
 */
export async function readCredential(ctx: Ctx, userId: string, name: CredentialName): Promise<string | null> {
  const row = await findCredential(ctx.db, userId, name);
  return row ? open(ctx, name, row.valueEncrypted) : null;
}

export async function credentialStatus(ctx: Ctx, userId: string, name: CredentialName): Promise<CredentialStatus> {
  const row = await findCredential(ctx.db, userId, name);
  return {
    name,
    exists: Boolean(row),
    // The Twilio token never comes back, not even as a hint; the others show a recognisable one.
    hint: row && name !== "twilio_auth_token" ? maskSecret(open(ctx, name, row.valueEncrypted)) : null,
    updated_at: row ? row.updatedAt.toISOString() : null,
  };
}

/** Stores the value, then asks the provider whether it accepts it; a refusal is reported, not fatal. */
export async function saveCredential(ctx: Ctx, userId: string, name: CredentialName, value: string): Promise<CredentialSaveResult> {
  await upsertCredential(ctx.db, userId, name, ctx.secrets.encrypt(value));
  const verification = name === "openai_api_key" ? await verifyOpenAiKey(ctx.config.openaiBaseUrl, value) : null;
  return { ...(await credentialStatus(ctx, userId, name)), verification };
}

/** The user's Twilio pair, or null unless both halves are stored. */
export async function readTwilioCredentials(ctx: Ctx, userId: string): Promise<TwilioCredentials | null> {
  const [accountSid, authToken] = await Promise.all([
    readCredential(ctx, userId, "twilio_account_sid"),
    readCredential(ctx, userId, "twilio_auth_token"),
  ]);
  return accountSid && authToken ? { accountSid, authToken } : null;
}

/** Stores the SID and token together, then asks Twilio's account endpoint whether they work. */
export async function saveTwilioCredentials(ctx: Ctx, userId: string, input: TwilioCredentialsInput): Promise<TwilioCredentialsSaveResult> {
  await upsertCredentials(ctx.db, userId, [
    { name: "twilio_account_sid", valueEncrypted: ctx.secrets.encrypt(input.account_sid) },
    { name: "twilio_auth_token", valueEncrypted: ctx.secrets.encrypt(input.auth_token) },
  ]);
  const verification = await verifyTwilioCredentials(ctx.config.twilioApiBase, { accountSid: input.account_sid, authToken: input.auth_token });
  const [accountSid, authToken] = await Promise.all([
    credentialStatus(ctx, userId, "twilio_account_sid"),
    credentialStatus(ctx, userId, "twilio_auth_token"),
  ]);
  return { account_sid: accountSid, auth_token: authToken, verification };
}

/** `GET /Accounts/{sid}.json` is Twilio's cheapest authenticated call; a suspended account is no use either. */
export async function verifyTwilioCredentials(apiBase: string, credentials: TwilioCredentials): Promise<{ verified: boolean; message: string }> {
  try {
    const account = await createTwilioRest(credentials, apiBase).fetchAccount();
    if (account.status !== "active") return { verified: false, message: `Twilio says the account is ${account.status}.` };
    return { verified: true, message: `Twilio accepted the credentials for ${account.friendlyName}.` };
  } catch (err) {
    const reason = err instanceof Error ? err.message : String(err);
    return { verified: false, message: `Twilio did not accept the credentials: ${reason}` };
  }
}

export async function removeCredential(ctx: Ctx, userId: string, name: CredentialName): Promise<boolean> {
  return deleteCredential(ctx.db, userId, name);
}

const VERIFY_TIMEOUT_MS = 10_000;

/** `GET /models` is the cheapest authenticated call the provider offers. */
export async function verifyOpenAiKey(baseUrl: string, key: string): Promise<{ verified: boolean; message: string }> {
  try {
    const res = await fetch(`${baseUrl}/models`, {
      headers: { authorization: `Bearer ${key}` },
      signal: AbortSignal.timeout(VERIFY_TIMEOUT_MS),
    });
    if (res.ok) return { verified: true, message: "OpenAI accepted the key." };
    const body = (await res.json().catch(() => null)) as { error?: { message?: string } } | null;
    const reason = body?.error?.message ?? `${res.status} ${res.statusText}`;
    return { verified: false, message: `OpenAI did not accept the key: ${reason}` };
  } catch (err) {
    const reason = err instanceof Error && err.name === "TimeoutError" ? "no answer within 10 seconds" : "it could not be reached";
    return { verified: false, message: `The key was saved, but OpenAI could not verify it: ${reason}.` };
  }
}
