import { existsSync } from "node:fs";
import { readFile } from "node:fs/promises";
import { join } from "node:path";
import { spawn } from "node:child_process";
import { createRequire } from "node:module";
import v8 from "node:v8";
import { PGlite } from "@electric-sql/pglite";

/**
 * The embedded database's settings, chosen for memory (docs/decisions/055-lean-embedded-database.md).
 * PostgreSQL's default 128 MB buffer pool is written through as the database starts, so the whole
 * of it was resident from the first second; PGlite reads and writes its files through Node's
 * file system, so pages that do not fit the smaller pool are still served from the OS page cache.
 * A new 16 MB WAL segment is not zero-filled first (`wal_init_zero`): the statement that crossed
 * into one held the database's thread 19 ms on disk and 57 ms in memory doing it, 3–4 ms without (ADR 087).
 * A checkpoint (the upkeep's: db/embedded-upkeep.ts) keeps at most 64 MB of old segments for reuse
 * and removes the rest; at PostgreSQL's default of 1 GB the WAL folder settled at a gigabyte (ADR 089).
 */
export const PGLITE_START_PARAMS = [...PGlite.defaultStartParams, "-c", "shared_buffers=16MB", "-c", "wal_init_zero=off", "-c", "max_wal_size=64MB", "-c", "min_wal_size=32MB"];

/**
 * PostgreSQL's WebAssembly, compiled optimised up front, once per process (ADR 088). Left to V8's
 * default, it is compiled quickly and unoptimised and each function optimised once it is hot: for
 * a server's first ~750 statements every fifth one took ~5 ms more, and the unoptimised code
 * stayed resident beside the optimised. Up front costs ~3 s of a start (V8's background threads).
 * The flag holds for WebAssembly compiled after it in this process: the embedded database's.
 */
let compiled: Promise<WebAssembly.Module> | undefined;
export function compiledPglite(): Promise<WebAssembly.Module> {
  compiled ??= (async () => {
    v8.setFlagsFromString("--no-liftoff");
    return WebAssembly.compile(await readFile(createRequire(import.meta.url).resolve("@electric-sql/pglite/pglite.wasm")));
  })();
  return compiled;
}

/**
 * A data folder's first start (initdb) runs in a worker thread: PGlite's initdb makes a second
 * database instance and a tar of the new cluster in memory, about 500 MB, which on the main thread
 * stayed resident until V8 happened to collect it (a fresh server idled at 870 MB). A worker's
 * memory goes back to the system when the worker ends.
 */
export async function initialiseDataDir(dataDir: string): Promise<void> {
  if (existsSync(join(dataDir, "PG_VERSION"))) return;
  const source = [
    `import { PGlite } from ${JSON.stringify(import.meta.resolve("@electric-sql/pglite"))};`,
    `const [dataDir, startParams] = JSON.parse(process.argv[1]);`,
    `const db = await PGlite.create(dataDir, { startParams });`,
    `await db.close();`,
  ].join("\n");
  const child = spawn(process.execPath, ["--input-type=module", "--eval", source, JSON.stringify([dataDir, PGLITE_START_PARAMS])], {
    stdio: ["ignore", "ignore", "pipe"],
  });
  let stderr = "";
  child.stderr.on("data", (chunk: Buffer) => (stderr += chunk.toString()));
  await new Promise<void>((resolve, reject) => {
    child.once("error", reject);
    child.once("exit", (code) => (code === 0 ? resolve() : reject(new Error(`Creating the embedded database in ${dataDir} failed: ${stderr.trim() || `exit code ${code}`}`))));
  });
}
