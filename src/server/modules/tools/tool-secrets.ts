import { isMaskedValue, secretHint, type ToolHeaders } from "../../../shared/tools.ts";
import type { Db } from "../../db/client.ts";
import { AppError } from "../../errors.ts";
import type { SecretBox } from "../../secrets/crypto.ts";
import { listToolsWithClearHeaders, sealStoredHeaders, type ToolRow } from "./tools.repo.ts";

/**
 * A tool's secrets at rest: the API key and the header values are sealed with the SecretBox;
 * header names stay readable (with masked values) so the API can list them without decrypting.
 */

export const UNREADABLE_MESSAGES = {
  apiKey: "This tool's API key can no longer be read (the server's secret changed). Edit the tool and enter the key again.",
  headers: "This tool's header values can no longer be read (the server's secret changed). Edit the tool and enter them again.",
} as const;

/** The columns that store `headers`. */
export function sealHeaders(secrets: SecretBox, headers: ToolHeaders): Pick<ToolRow, "httpHeaders" | "httpHeadersEncrypted"> {
  const names = Object.keys(headers);
  if (names.length === 0) return { httpHeaders: {}, httpHeadersEncrypted: null };
  return {
    httpHeaders: Object.fromEntries(names.map((name) => [name, secretHint(headers[name]!)])),
    httpHeadersEncrypted: secrets.encrypt(JSON.stringify(headers)),
  };
}

/** The real header values; undefined when they were sealed under another APP_SECRET. */
export function openHeaders(secrets: SecretBox, row: Pick<ToolRow, "httpHeaders" | "httpHeadersEncrypted">): Record<string, string> | undefined {
  // Written before header encryption: the clear values are still in http_headers.
  if (!row.httpHeadersEncrypted) return row.httpHeaders;
  try {
    return JSON.parse(secrets.decrypt(row.httpHeadersEncrypted)) as Record<string, string>;
  } catch {
    return undefined;
  }
}

/** What the API shows: names, with masked values. */
export function headerHints(row: Pick<ToolRow, "httpHeaders" | "httpHeadersEncrypted">): Record<string, string> {
  if (row.httpHeadersEncrypted) return row.httpHeaders;
  return Object.fromEntries(Object.entries(row.httpHeaders).map(([name, value]) => [name, secretHint(String(value))]));
}

/**
 * The headers an edit means: a header sent back with the very mask the API showed for it keeps
 * its stored value; any other value replaces it. A mask that stands for nothing stored (a renamed
 * header, or values no longer readable) is refused rather than sent to the endpoint literally.
 */
export function resolveHeaderEdit(edited: ToolHeaders, stored: Record<string, string> | undefined, hints: Record<string, string>): ToolHeaders {
  const result: ToolHeaders = {};
  for (const [name, value] of Object.entries(edited)) {
    if (stored && Object.hasOwn(stored, name) && Object.hasOwn(hints, name) && value === hints[name]) {
      result[name] = stored[name]!;
    } else if (isMaskedValue(value)) {
      throw new AppError(
        400,
        "validation_error",
        stored ? `Header ${name}: enter its value (a masked value can only keep the header it belongs to)` : UNREADABLE_MESSAGES.headers,
      );
    } else {
      result[name] = value;
    }
  }
  return result;
}

/** The plaintext key, null when none is stored, undefined when it can no longer be decrypted. */
export function openApiKey(secrets: SecretBox, row: Pick<ToolRow, "apiKeyEncrypted">): string | null | undefined {
  if (!row.apiKeyEncrypted) return null;
  try {
    return secrets.decrypt(row.apiKeyEncrypted);
  } catch {
    // Sealed with another APP_SECRET (e.g. the secret was rotated): unusable until re-entered.
    return undefined;
  }
}

/**
 * Seals the header values of rows written before header encryption (run at start). Returns how
 * many tools were updated. Idempotent: only rows with clear values and no sealed copy are touched.
 */
export async function sealLegacyToolHeaders(db: Db, secrets: SecretBox): Promise<number> {
  const rows = await listToolsWithClearHeaders(db);
  for (const row of rows) await sealStoredHeaders(db, row.id, sealHeaders(secrets, row.httpHeaders));
  return rows.length;
}
