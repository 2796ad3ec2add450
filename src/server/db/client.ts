import { mkdirSync } from "node:fs";
import { join } from "node:path";
import { PGlite } from "@electric-sql/pglite";
import type { PgDatabase, PgQueryResultHKT } from "drizzle-orm/pg-core";
import { drizzle as drizzlePglite } from "drizzle-orm/pglite";
import { migrate as migratePglite } from "drizzle-orm/pglite/migrator";
import { drizzle as drizzlePg } from "drizzle-orm/node-postgres";
import { migrate as migratePg } from "drizzle-orm/node-postgres/migrator";
import pg from "pg";
import * as schema from "./schema.ts";

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
  /** Set for the embedded database: the test harness dumps a migrated one and clones it per file. */
  pglite?: PGlite;
}

const migrationsFolder = join(import.meta.dirname, "../../../drizzle");

export type DatabaseSource =
  | { kind: "postgres"; url: string }
  /** `dataDir` undefined = in memory; `loadDataDir` clones a template dump (tests). */
  | { kind: "pglite"; dataDir?: string; loadDataDir?: Blob };

export async function openDatabase(source: DatabaseSource): Promise<Database> {
  if (source.kind === "postgres") {
    const pool = new pg.Pool({ connectionString: source.url, max: 10 });
    const db = drizzlePg(pool, { schema }) as unknown as Db;
    return {
      db,
      kind: "postgres",
      migrate: () => migratePg(drizzlePg(pool), { migrationsFolder }),
      sql: async (text, values) => {
        const result = await pool.query(text, values?.length ? values : undefined);
        const last = Array.isArray(result) ? (result.at(-1) as pg.QueryResult) : result;
        return { rows: last?.rows ?? [], rowCount: last?.rowCount ?? 0 };
      },
      close: () => pool.end(),
    };
  }
  if (source.dataDir) mkdirSync(source.dataDir, { recursive: true });
  const client = await PGlite.create(source.dataDir, source.loadDataDir ? { loadDataDir: source.loadDataDir } : {});
  const db = drizzlePglite(client, { schema }) as unknown as Db;
  return {
    db,
    kind: "pglite",
    migrate: () => migratePglite(drizzlePglite(client), { migrationsFolder }),
    sql: async (text, values) => {
      // PGlite's extended protocol takes one statement; its simple protocol (exec) takes several.
      if (values?.length) {
        const result = await client.query<Record<string, unknown>>(text, values);
        return { rows: result.rows, rowCount: result.affectedRows ?? result.rows.length };
      }
      const last = (await client.exec(text)).at(-1);
      return { rows: (last?.rows ?? []) as Record<string, unknown>[], rowCount: last?.affectedRows ?? last?.rows.length ?? 0 };
    },
    close: () => client.close(),
    pglite: client,
  };
}

export function databaseSourceFromConfig(config: { databaseUrl?: string; dataDir: string }): DatabaseSource {
  return config.databaseUrl
    ? { kind: "postgres", url: config.databaseUrl }
    : { kind: "pglite", dataDir: join(config.dataDir, "pglite") };
}
