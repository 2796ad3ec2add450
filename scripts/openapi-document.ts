/**
 * The OpenAPI document this server serves, made without a port or a database on disk: the app
 * built on an in-memory PGlite, `GET /api/openapi.json` asked through `inject`.
 */
import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { buildApp } from "../src/server/app.ts";
import { loadConfig } from "../src/server/config.ts";
import { openDatabase } from "../src/server/db/client.ts";

export async function servedDocument(): Promise<Record<string, unknown>> {
  const database = await openDatabase({ kind: "pglite" });
  await database.migrate();
  const config = loadConfig({ NODE_ENV: "test", LOG_LEVEL: "silent", DATA_DIR: mkdtempSync(join(tmpdir(), "switchboard-openapi-")) });
  const app = await buildApp({ ...config, appSecret: "openapi-document-only-0123456789abcdef" }, { database });
  try {
    await app.ready();
    return (await app.inject({ method: "GET", url: "/api/openapi.json" })).json();
  } finally {
    await app.close();
    await database.close();
  }
}
