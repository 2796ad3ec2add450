import { chmodSync, lstatSync, mkdirSync, readdirSync } from "node:fs";
import { join } from "node:path";

/**
 * DATA_DIR holds the embedded database (its write-ahead log has password hashes, session tokens
 * and whatever users typed), recordings and the generated secret: only the server's own user may
 * read it. The folder's 0700 is what protects files a library writes with modes of its own.
 */

/** New files 0600 and folders 0700 from now on, whoever creates them (PGlite, storage, secrets). */
export function restrictNewFiles(): void {
  process.umask(0o077);
}

/**
 * Creates DATA_DIR 0700, or takes group and other access away from an existing one and
 * everything inside it. Returns the paths whose mode was changed (for one log line).
 */
export function secureDataDir(dataDir: string): string[] {
  mkdirSync(dataDir, { recursive: true, mode: 0o700 });
  const fixed: string[] = [];
  const walk = (path: string) => {
    const stats = lstatSync(path);
    // Links are not followed: their target may be outside the folder and not ours to change.
    if (stats.isSymbolicLink()) return;
    if ((stats.mode & 0o077) !== 0) {
      chmodSync(path, stats.mode & 0o700);
      fixed.push(path);
    }
    if (stats.isDirectory()) for (const entry of readdirSync(path)) walk(join(path, entry));
  };
  walk(dataDir);
  return fixed;
}
