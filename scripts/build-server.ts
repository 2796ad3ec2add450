/**
 * `npm run build:server`: the server as one ES module, dist/server/main.js (with its source
 * map), which `npm run serve` runs with plain Node — no TypeScript loader in the running process
 * (docs/decisions/048-the-server-runs-built.md). Packages stay imports from node_modules.
 */
import { pathToFileURL } from "node:url";
import { basename, dirname, join } from "node:path";
import { build } from "esbuild";

const root = join(import.meta.dirname, "..");
/** The built server; src/server/paths.ts relies on it being two folders below the root. */
export const BUILT_SERVER = join(root, "dist/server/main.js");

/** Worker threads' entry files, each bundled beside main.js under its own name (the server starts them from there). */
const WORKERS = ["src/server/modules/knowledge/ingestion-worker.ts", "src/server/carriers/sip/rtp-worker.ts", "src/server/db/pglite-worker.ts"];

export async function buildServer(): Promise<void> {
  for (const [entry, outfile] of [["src/server/main.ts", BUILT_SERVER], ...WORKERS.map((w) => [w, join(dirname(BUILT_SERVER), basename(w).replace(/\.ts$/, ".js"))])] as const) await bundle(entry, outfile);
}

function bundle(entry: string, outfile: string) {
  return build({
    entryPoints: [join(root, entry)],
    outfile,
    bundle: true,
    packages: "external",
    platform: "node",
    format: "esm",
    target: "node20",
    sourcemap: true,
    logLevel: "warning",
  });
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? "").href) await buildServer();
