import { mkdirSync } from "node:fs";
import { join } from "node:path";
import type { PGlite } from "@electric-sql/pglite";
import type { MessagePort } from "node:worker_threads";
import type { PgDatabase, PgQueryResultHKT } from "drizzle-orm/pg-core";
import { drizzle as drizzlePglite } from "drizzle-orm/pglite";
import { migrate as migratePglite } from "drizzle-orm/pglite/migrator";
import { drizzle as drizzlePg } from "drizzle-orm/node-postgres";
import { migrate as migratePg } from "drizzle-orm/node-postgres/migrator";
import pg from "pg";
import { ROOT_DIR } from "../paths.ts";
import * as schema from "./schema.ts";
import { localBus, pgBus, type Bus } from "./bus.ts";
import { compiledPglite, initialiseDataDir, PGLITE_START_PARAMS } from "./pglite-lean.ts";
import { ThreadedPglite } from "./pglite-thread.ts";

/** Both drivers expose the same query builder; code above this file never knows which one runs. */
export type Db = PgDatabase<PgQueryResultHKT, typeof schema>;

export interface Database {
  db: Db;
  kind: "pglite" | "postgres";
  migrate(): Promise<void>;
  close(): Promise<void>;
  /**
   * Raw SQL on the same connection(s) as `db`, for a library that brings its own statements (the
   * job queue). Without values the text may hold several statements; the last one's rows answer.
   */
  sql(text: string, values?: unknown[]): Promise<{ rows: Record<string, unknown>[]; rowCount: number }>;
  /** Messages between the instances on this database (bus.ts). */
  bus: Bus;
  /** Set for the embedded database: the test harness dumps a migrated one and clones it per file. */
  pglite?: Pick<ThreadedPglite, "dumpDataDir">;
  /** How another thread reaches this database (`openLinkedDb`); a port is for one thread, transferred to it. */
  link(): DatabaseLink;
}

export type DatabaseLink = { kind: "postgres"; url: string } | { kind: "pglite"; port: MessagePort };

const migrationsFolder = join(ROOT_DIR, "drizzle");

export type DatabaseSource =
  | { kind: "postgres"; url: string }
  /** `dataDir` undefined = in memory; `loadDataDir` clones a template dump (tests). */
  | { kind: "pglite"; dataDir?: string; loadDataDir?: Blob };

export async function openDatabase(source: DatabaseSource): Promise<Database> {
  if (source.kind === "postgres") {
    const pool = serverPool(source.url, 10);
    const db = drizzlePg(pool, { schema }) as unknown as Db;
    const bus = pgBus({ url: source.url, notify: (channel, payload) => pool.query("select pg_notify($1, $2)", [channel, payload]) });
    return {
      bus,
      db,
      kind: "postgres",
      migrate: () => migratePg(drizzlePg(pool), { migrationsFolder }),
      link: () => ({ kind: "postgres", url: source.url }),
      sql: async (text, values) => {
        const result = await pool.query(text, values?.length ? values : undefined);
        const last = Array.isArray(result) ? (result.at(-1) as pg.QueryResult) : result;
        return { rows: last?.rows ?? [], rowCount: last?.rowCount ?? 0 };
      },
      close: async () => {
        await bus.close();
        await pool.end();
      },
    };
  }
  if (source.dataDir) {
    mkdirSync(source.dataDir, { recursive: true });
    await initialiseDataDir(source.dataDir);
  }
  // On a thread of its own (ADR 091): a statement runs there, not on the thread of the calls' audio.
  const client = await ThreadedPglite.start({
    dataDir: source.dataDir,
    startParams: PGLITE_START_PARAMS,
    wasmModule: await compiledPglite(),
    ...(source.loadDataDir ? { loadDataDir: await source.loadDataDir.arrayBuffer() } : {}),
  });
  // The query builder takes it as PGlite's client: it calls only `query` and `transaction`.
  const db = drizzlePglite(client as unknown as PGlite, { schema }) as unknown as Db;
  const bus = localBus();
  return {
    db,
    kind: "pglite",
    migrate: () => migratePglite(drizzlePglite(client as unknown as PGlite), { migrationsFolder }),
    sql: async (text, values) => {
      // PGlite's extended protocol takes one statement; its simple protocol (exec) takes several.
      if (values?.length) {
        const result = await client.query<Record<string, unknown>>(text, values);
        return { rows: result.rows, rowCount: result.affectedRows ?? result.rows.length };
      }
      const last = (await client.exec(text)).at(-1);
      return { rows: (last?.rows ?? []) as Record<string, unknown>[], rowCount: last?.affectedRows ?? last?.rows.length ?? 0 };
    },
    bus,
    close: async () => {
      await bus.close();
      await client.close();
    },
    pglite: client,
    link: () => ({ kind: "pglite", port: client.link() }),
  };
}

/** The database as another thread of this process sees it through `link`: the same query builder, and its own end. */
export function openLinkedDb(link: DatabaseLink): { db: Db; close(): Promise<void> } {
  if (link.kind === "postgres") {
    // A thread's own few connections: it runs one statement at a time.
    const pool = serverPool(link.url, 2);
    return { db: drizzlePg(pool, { schema }) as unknown as Db, close: () => pool.end() };
  }
  const client = ThreadedPglite.over(link.port);
  return { db: drizzlePglite(client as unknown as PGlite, { schema }) as unknown as Db, close: () => client.close() };
}

/**
 * A pool on a PostgreSQL server. No JIT compilation: the server compiles a statement whose
 * estimated cost passes jit_above_cost, and estimates over bounds a statement computes itself (the
 * stats' window, ADR 079) pass it easily: 350 ms compiling a statement that ran in 30
 * (bench:stats). Set on each new connection before the pool hands it out (a startup option would
 * be refused by a connection pooler such as PgBouncer); a server that refuses it keeps its default.
 */
function serverPool(url: string, max: number): pg.Pool {
  const pool = new pg.Pool({ connectionString: url, max, onConnect: (client) => client.query("SET jit = off").then(() => undefined, () => undefined) });
  // An idle connection the server ended (a restart, a failover, an administrator) is raised on the
  // pool, and an unheard 'error' event ends the process. The pool has already dropped it; the next
  // query opens a new one, or fails to its caller while the server is away.
  pool.on("error", () => undefined);
  return pool;
}

export function databaseSourceFromConfig(config: { databaseUrl?: string; dataDir: string }): DatabaseSource {
  return config.databaseUrl
    ? { kind: "postgres", url: config.databaseUrl }
    : { kind: "pglite", dataDir: join(config.dataDir, "pglite") };
}
