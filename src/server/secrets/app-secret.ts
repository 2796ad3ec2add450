import { randomBytes } from "node:crypto";
import { mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";

/**
 * The secret signs sessions and media URLs and encrypts stored credentials, so it must survive
 * restarts: generate it once into DATA_DIR (mode 0600) when the operator did not set APP_SECRET.
 */
export function ensureAppSecret(dataDir: string, given: string | undefined): { secret: string; generated: boolean } {
  if (given) return { secret: given, generated: false };
  const file = join(dataDir, "app-secret");
  try {
    const existing = readFileSync(file, "utf8").trim();
    if (existing.length >= 32) return { secret: existing, generated: false };
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== "ENOENT") throw err;
  }
  mkdirSync(dataDir, { recursive: true });
  const secret = randomBytes(48).toString("base64url");
  writeFileSync(file, secret + "\n", { mode: 0o600 });
  return { secret, generated: true };
}
