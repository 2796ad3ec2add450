/**
 * A database of its own on the PostgreSQL server (DATABASE_URL, or the local one) for a file that
 * starts real server processes on it, and the clean-up that stops them and drops it.
 */
import { randomBytes } from "node:crypto";
import pg from "pg";
import type { ServerProcess } from "../fakes/server-process.ts";
import { withDatabase } from "../global-setup.ts";

const ADMIN_URL = process.env.DATABASE_URL ?? "postgres://postgres@127.0.0.1:5432/postgres";

async function adminQuery(sql: string): Promise<void> {
  const admin = new pg.Client({ connectionString: ADMIN_URL });
  await admin.connect();
  await admin.query(sql);
  await admin.end();
}

export interface ScratchDatabase {
  name: string;
  /** The connection string a server process is given as DATABASE_URL. */
  url: string;
}

/** Creates `<prefix>_<8 hex digits>`. */
export async function createScratchDatabase(prefix: string): Promise<ScratchDatabase> {
  const name = `${prefix}_${randomBytes(4).toString("hex")}`;
  await adminQuery(`CREATE DATABASE ${name}`);
  return { name, url: withDatabase(ADMIN_URL, name) };
}

/** Kills the servers outright and waits until each has exited. */
export async function killServers(servers: ServerProcess[]): Promise<void> {
  for (const server of servers) server.kill("SIGKILL");
  await Promise.all(servers.map((s) => s.exited));
}

/** Drops the database even with connections left open (a killed server's). */
export async function dropScratchDatabase(database: ScratchDatabase | undefined): Promise<void> {
  if (database) await adminQuery(`DROP DATABASE IF EXISTS ${database.name} WITH (FORCE)`);
}
