import { mkdirSync } from "node:fs";
import { join } from "node:path";
import { PGlite } from "@electric-sql/pglite";
import { vector } from "@electric-sql/pglite-pgvector";
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
  pglite?: PGlite;
}

const migrationsFolder = join(ROOT_DIR, "drizzle");

export type DatabaseSource =
  | { kind: "postgres"; url: string }
  /** `dataDir` undefined = in memory; `loadDataDir` clones a template dump (tests). */
  | { kind: "pglite"; dataDir?: string; loadDataDir?: Blob };

export async function openDatabase(source: DatabaseSource): Promise<Database> {
  if (source.kind === "postgres") {
    // No JIT compilation: the server compiles a statement whose estimated cost passes
    // jit_above_cost, and estimates over bounds a statement computes itself (the stats' window,
    // ADR 079) pass it easily: 350 ms compiling a statement that ran in 30 (bench:stats). Set on
    // each new connection before the pool hands it out (a startup option would be refused by a
    // connection pooler such as PgBouncer); a server that refuses it keeps its default.
    const pool = new pg.Pool({ connectionString: source.url, max: 10, onConnect: (client) => client.query("SET jit = off").then(() => undefined, () => undefined) });
    // An idle connection the server ended (a restart, a failover, an administrator) is raised on the
    // pool, and an unheard 'error' event ends the process. The pool has already dropped it; the next
    // query opens a new one, or fails to its caller while the server is away.
    pool.on("error", () => undefined);
    const db = drizzlePg(pool, { schema }) as unknown as Db;
    const bus = pgBus({ url: source.url, notify: (channel, payload) => pool.query("select pg_notify($1, $2)", [channel, payload]) });
    return {
      bus,
      db,
      kind: "postgres",
      migrate: () => migratePg(drizzlePg(pool), { migrationsFolder }),
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
  const client = await PGlite.create(source.dataDir, {
    startParams: PGLITE_START_PARAMS,
    pgliteWasmModule: await compiledPglite(),
    // pgvector for the knowledge bases' embeddings (ADR 060); loaded only when a statement needs it.
    extensions: { vector },
    ...(source.loadDataDir ? { loadDataDir: source.loadDataDir } : {}) });
  const turn = takeTurns();
  const db = drizzlePglite(inTurns(client, turn), { schema }) as unknown as Db;
  const bus = localBus();
  return {
    db,
    kind: "pglite",
    migrate: () => migratePglite(drizzlePglite(client), { migrationsFolder }),
    sql: async (text, values) => {
      // PGlite's extended protocol takes one statement; its simple protocol (exec) takes several.
      if (values?.length) {
        const result = await turn(() => client.query<Record<string, unknown>>(text, values));
        return { rows: result.rows, rowCount: result.affectedRows ?? result.rows.length };
      }
      const last = (await turn(() => client.exec(text))).at(-1);
      return { rows: (last?.rows ?? []) as Record<string, unknown>[], rowCount: last?.affectedRows ?? last?.rows.length ?? 0 };
    },
    bus,
    close: async () => {
      await bus.close();
      await client.close();
    },
    pglite: client,
  };
}

/**
 * The embedded database runs each statement synchronously on this thread, and its lock hands
 * over to the next waiting statement in a microtask: a backlog of statements (a burst of
 * background jobs) ran back to back without letting in a socket's audio frame or a timer, and the
 * event loop stalled for the whole backlog (bench:analysis: loop delay p99 22 → 1,235 ms under
 * 1,000 analyses). Here statements (a transaction as a whole) take turns, and once they have held
 * the thread for PGLITE_SLICE_MS the next one waits a macrotask, so pending I/O is served at
 * least that often; statements that come seldom, or quickly, run as before.
 */
const PGLITE_SLICE_MS = 8;
type Turn = <T>(run: () => Promise<T>) => Promise<T>;
function takeTurns(): Turn {
  let last: Promise<unknown> = Promise.resolve();
  let sliceStart = performance.now();
  const yieldIfDue = async () => {
    if (performance.now() - sliceStart < PGLITE_SLICE_MS) return;
    await new Promise<void>((resolve) => setImmediate(resolve));
    sliceStart = performance.now();
  };
  return (run) => {
    const mine = last.then(yieldIfDue).then(run);
    last = mine.catch(() => undefined);
    return mine;
  };
}

/**
 * `client` for the query builder, its top-level statements and transactions taken in turns
 * (a transaction's own statements run inside its turn, on the transaction's handle).
 */
function inTurns(client: PGlite, turn: Turn): PGlite {
  const wrapped = new Set<PropertyKey>(["query", "exec", "transaction"]);
  return new Proxy(client, {
    get(target, prop) {
      const value: unknown = Reflect.get(target, prop, target);
      if (typeof value !== "function") return value;
      const method = (value as (...args: unknown[]) => unknown).bind(target);
      return wrapped.has(prop) ? (...args: unknown[]) => turn(() => method(...args) as Promise<unknown>) : method;
    },
  });
}

export function databaseSourceFromConfig(config: { databaseUrl?: string; dataDir: string }): DatabaseSource {
  return config.databaseUrl
    ? { kind: "postgres", url: config.databaseUrl }
    : { kind: "pglite", dataDir: join(config.dataDir, "pglite") };
}
