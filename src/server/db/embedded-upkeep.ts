/**
 * The embedded database's autovacuum and checkpointer. PGlite runs PostgreSQL in one process with
 * no background workers, so nothing ever vacuums or analyses it: the space of updated and deleted
 * rows is never reused (every call's end rewrites its roll-up rows; the job queue churns its
 * table), and the planner never has a column's statistics. Nor does anything checkpoint it while it
 * runs (single-user PostgreSQL requests no checkpoint when the WAL passes max_wal_size), so its WAL
 * grew without bound until the server stopped. Here a job on the queue looks every few minutes at
 * what changed and vacuums or analyses the tables autovacuum would, by autovacuum's own default
 * thresholds (ADR 087), then checkpoints once a WAL segment's worth was written since the last
 * checkpoint (ADR 089); a PostgreSQL server does all this itself.
 */
import { nextPeriod, type JobQueue } from "../jobs/job-queue.ts";
import type { Database } from "./client.ts";

const UPKEEP_JOB = "embedded-database-upkeep";
const UPKEEP_EVERY_MS = 5 * 60_000;

/** autovacuum's defaults: a table is due when its changes pass threshold + scale × its live rows. */
const VACUUM = { threshold: 50, scale: 0.2 };
const VACUUM_INSERTS = { threshold: 1000, scale: 0.2 };
const ANALYZE = { threshold: 50, scale: 0.1 };
/** One WAL segment: written since the last checkpoint, a checkpoint lets its space be reused. */
const CHECKPOINT_AFTER_BYTES = 16 * 1024 * 1024;

interface TableActivity {
  name: string;
  live: number;
  dead: number;
  inserted: number;
  modified: number;
}

const past = (count: number, live: number, rule: { threshold: number; scale: number }) => count > rule.threshold + rule.scale * live;

/**
 * What to run, table by table: a vacuum where dead rows (or, for the visibility map, inserted
 * ones) have piled up, an analyse where enough rows changed since the last; each its own statement.
 */
function upkeepStatements(tables: readonly TableActivity[]): string[] {
  const statements: string[] = [];
  for (const t of tables) {
    const vacuum = past(t.dead, t.live, VACUUM) || past(t.inserted, t.live, VACUUM_INSERTS);
    const analyze = past(t.modified, t.live, ANALYZE);
    if (vacuum || analyze) statements.push(`${vacuum ? (analyze ? "VACUUM (ANALYZE)" : "VACUUM") : "ANALYZE"} ${t.name}`);
  }
  return statements;
}

/** Vacuums and analyses the tables due, then checkpoints if the WAL is due; the statements it ran. */
export async function upkeep(database: Pick<Database, "sql">): Promise<string[]> {
  // Each statement's row counts reach the statistics views at most once a second; a forced flush
  // (at the next statement) makes them current.
  await database.sql("SELECT pg_stat_force_next_flush()");
  const { rows } = await database.sql(
    `SELECT format('%I.%I', schemaname, relname) AS name, n_live_tup AS live, n_dead_tup AS dead,
       n_ins_since_vacuum AS inserted, n_mod_since_analyze AS modified
     FROM pg_stat_user_tables`,
  );
  const statements = upkeepStatements(
    rows.map((r) => ({ name: String(r.name), live: Number(r.live), dead: Number(r.dead), inserted: Number(r.inserted), modified: Number(r.modified) })),
  );
  // One table a statement: the calls' audio gets the thread back between them (db/client.ts).
  for (const statement of statements) await database.sql(statement);
  // After the vacuums, whose WAL it then covers. The checkpoint recycles the segments before it
  // down to max_wal_size (db/pglite-lean.ts); it holds the thread for tens of milliseconds.
  const { rows: wal } = await database.sql(`SELECT pg_current_wal_lsn() - redo_lsn AS written FROM pg_control_checkpoint()`);
  if (Number(wal[0]?.written) >= CHECKPOINT_AFTER_BYTES) {
    await database.sql("CHECKPOINT");
    statements.push("CHECKPOINT");
  }
  return statements;
}

/** Registers the upkeep job; `start` (once the queue runs) chains it every UPKEEP_EVERY_MS. */
export function createEmbeddedUpkeep({ database, jobs, logger }: { database: Pick<Database, "sql">; jobs: Pick<JobQueue, "register" | "send">; logger: { debug(obj: object, msg: string): void } }) {
  const next = () => jobs.send(UPKEEP_JOB, {}, nextPeriod(UPKEEP_EVERY_MS));
  jobs.register(UPKEEP_JOB, async () => {
    try {
      const ran = await upkeep(database);
      if (ran.length) logger.debug({ statements: ran }, "embedded database vacuumed and analysed");
    } finally {
      // A failed look does not end the chain: the next period looks again.
      await next();
    }
  });
  // The first look a period after the start: a restart does not pay it at once.
  return { start: async (): Promise<void> => void (await next()) };
}
