/**
 * A database of its own on the PostgreSQL server (DATABASE_URL, or the local one) for a file that
 * starts real server processes on it, and the clean-up that stops them and drops it. The benches
 * that run on a PostgreSQL server make theirs here too (on the server they are given).
 */
import { randomBytes } from "node:crypto";
import pg from "pg";
import type { ServerProcess } from "../fakes/server-process.ts";
import { withDatabase } from "../global-setup.ts";

const ADMIN_URL = process.env.DATABASE_URL ?? "postgres://postgres@127.0.0.1:5432/postgres";

async function adminQuery(adminUrl: string, sql: string): Promise<void> {
  const admin = new pg.Client({ connectionString: adminUrl });
  await admin.connect();
  try {
    await admin.query(sql);
  } finally {
    await admin.end();
  }
}

export interface ScratchDatabase {
  name: string;
  /** The connection string a server process is given as DATABASE_URL. */
  url: string;
  /** The server's administrative connection it was made through, and is dropped through. */
  adminUrl: string;
}

/** Creates `<prefix>_<8 hex digits>` on the server of `adminUrl`. */
export async function createScratchDatabase(prefix: string, adminUrl = ADMIN_URL): Promise<ScratchDatabase> {
  const name = `${prefix}_${randomBytes(4).toString("hex")}`;
  await adminQuery(adminUrl, `CREATE DATABASE ${name}`);
  return { name, url: withDatabase(adminUrl, name), adminUrl };
}

/** Kills the servers outright and waits until each has exited. */
export async function killServers(servers: ServerProcess[]): Promise<void> {
  for (const server of servers) server.kill("SIGKILL");
  await Promise.all(servers.map((s) => s.exited));
}

/** Drops the database even with connections left open (a killed server's). */
export async function dropScratchDatabase(database: ScratchDatabase | undefined): Promise<void> {
  if (database) await adminQuery(database.adminUrl, `DROP DATABASE IF EXISTS ${database.name} WITH (FORCE)`);
}
