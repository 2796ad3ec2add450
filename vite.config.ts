import { readdirSync, readFileSync, writeFileSync } from "node:fs";
import { availableParallelism } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { brotliCompressSync, constants as zlib, gzipSync } from "node:zlib";
import tailwindcss from "@tailwindcss/vite";
import react from "@vitejs/plugin-react";
import type { Plugin } from "vite";
import { defineConfig } from "vitest/config";
import { databaseFreeTestFiles } from "./tests/database-free.ts";

const src = (p: string) => fileURLToPath(new URL(p, import.meta.url));
const SERVER_TEST_FOLDERS = ["src/server", "src/shared", "src/client", "tests"];

/**
 * Writes .br and .gz beside each built script and stylesheet; the server sends them to browsers
 * that accept them (@fastify/static `preCompressed`), so visitors download a quarter of the bytes.
 */
function precompress(): Plugin {
  let outDir = "";
  return {
    name: "switchboard:precompress",
    apply: "build",
    configResolved: (config) => void (outDir = config.build.outDir),
    closeBundle() {
      const assets = join(outDir, "assets");
      for (const file of readdirSync(assets).filter((f) => /\.(js|css|svg)$/.test(f))) {
        const body = readFileSync(join(assets, file));
        if (body.length < 1024) continue;
        writeFileSync(join(assets, `${file}.br`), brotliCompressSync(body, { params: { [zlib.BROTLI_PARAM_QUALITY]: 11 } }));
        writeFileSync(join(assets, `${file}.gz`), gzipSync(body, { level: 9 }));
      }
    },
  };
}

export default defineConfig({
  plugins: [react(), tailwindcss(), precompress()],
  resolve: { alias: { "@": src("./src/web"), "@shared": src("./src/shared") } },
  build: { outDir: "dist/web", emptyOutDir: true, sourcemap: false },
  // `npm run dev` (scripts/dev.ts) runs the API on API_PORT behind this dev server.
  server: {
    proxy: {
      "/api": { target: `http://127.0.0.1:${process.env.API_PORT ?? 3001}`, ws: true },
      "/telephony": { target: `http://127.0.0.1:${process.env.API_PORT ?? 3001}`, ws: true },
    },
  },
  test: {
    // Vitest's default is one file at a time on two cores (cores − 1). The files mostly wait on
    // sockets, timers and databases rather than compute: two at a time take ~60 % of the time.
    maxWorkers: Math.max(2, availableParallelism() - 1),
    projects: [
      {
        extends: true,
        test: {
          name: "server",
          environment: "node",
          include: SERVER_TEST_FOLDERS.map((folder) => `${folder}/**/*.test.ts`),
          // The PostgreSQL pass (TEST_DB=pg) would only run these again as in the first pass: real
          // server processes on a scratch PostgreSQL database (which the first pass runs already),
          // and the files that cannot reach a database at all (tests/database-free.ts).
          exclude:
            process.env.TEST_DB === "pg"
              ? ["tests/instances/**", "**/node_modules/**", ...databaseFreeTestFiles(src("."), SERVER_TEST_FOLDERS)]
              : ["**/node_modules/**"],
          // The files share a worker's modules rather than each importing the server anew: the
          // imports were a third of the pass (397 s of 1259 s on two cores, against 867 s shared).
          // Each file still starts its own apps and databases.
          isolate: false,
          globalSetup: ["tests/global-setup.ts"],
          setupFiles: ["tests/fail-on-unhandled.ts"],
          testTimeout: 20_000,
          // A file's set-up starts apps and databases: on a loaded CI machine it can take a minute.
          hookTimeout: 120_000,
        },
      },
      {
        extends: true,
        test: {
          // The client's pure parts (call-state reducer, transcript rows, tool test parameters,
          // the capture resampler): plain functions, so no DOM and no database.
          name: "web",
          environment: "node",
          include: ["src/web/**/*.test.ts"],
        },
      },
    ],
  },
});
