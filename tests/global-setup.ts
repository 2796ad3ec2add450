import { randomBytes } from "node:crypto";
import pg from "pg";
import type { TestProject } from "vitest/node";
import { buildServer } from "../scripts/build-server.ts";
import { openDatabase, type Database } from "../src/server/db/client.ts";
import { createJobQueue } from "../src/server/jobs/job-queue.ts";

declare module "vitest" {
  export interface ProvidedContext {
    /** Embedded runs: a migrated PGlite data dir, dumped once and cloned by every test file. */
    pgliteTemplate: ArrayBuffer | null;
    /** TEST_DB=pg runs: the template database every test file copies with CREATE DATABASE … TEMPLATE. */
    pgTemplate: { adminUrl: string; name: string } | null;
  }
}

/**
 * Builds the server once (tests of real server processes run dist/server/main.js, as `npm run
 * serve` does) and migrates once per run; each test file then starts from a clone of that database.
 */
export default async function setup(project: TestProject) {
  await buildServer();
  if (process.env.TEST_DB === "pg") {
    const adminUrl = process.env.DATABASE_URL ?? "postgres://postgres@127.0.0.1:5432/postgres";
    const name = `switchboard_tpl_${randomBytes(4).toString("hex")}`;
    const admin = new pg.Client({ connectionString: adminUrl });
    await admin.connect();
    await admin.query(`CREATE DATABASE ${name}`);
    const database = await openDatabase({ kind: "postgres", url: withDatabase(adminUrl, name) });
    await database.migrate();
    await installJobQueue(database);
    await database.close();
    project.provide("pgTemplate", { adminUrl, name });
    project.provide("pgliteTemplate", null);
    return async () => {
      // Test files' databases start with the template's name, so one sweep drops them all.
      const { rows } = await admin.query<{ datname: string }>("SELECT datname FROM pg_database WHERE datname LIKE $1", [`${name}%`]);
      for (const { datname } of rows.filter((r) => r.datname !== name)) await admin.query(`DROP DATABASE IF EXISTS ${datname} WITH (FORCE)`);
      await admin.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
      await admin.end();
    };
  }
  const database = await openDatabase({ kind: "pglite" });
  await database.migrate();
  await installJobQueue(database);
  const dump = await database.pglite!.dumpDataDir("none");
  await database.close();
  project.provide("pgliteTemplate", await dump.arrayBuffer());
  project.provide("pgTemplate", null);
}

/** The job queue creates its tables on its first start; in the template, no test file pays for it. */
async function installJobQueue(database: Database) {
  const queue = createJobQueue({ database, pollIntervalMs: 500, logger: { warn: () => undefined, error: () => undefined } });
  await queue.start();
  await queue.stop(1000);
}

export function withDatabase(url: string, name: string) {
  const u = new URL(url);
  u.pathname = `/${name}`;
  return u.toString();
}
