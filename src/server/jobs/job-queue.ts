/**
 * The one durable job queue every background feature uses (webhook deliveries, analyses,
 * campaign dialling, test runs): pg-boss 10 over the app's own database handle, so it runs the
 * same on the embedded PGlite (one connection) and on a PostgreSQL server
 * (docs/decisions/035-job-queue.md). Jobs live in the database (schema `pgboss`): they survive a
 * restart, and a job is taken by one worker of one instance at a time (FOR UPDATE SKIP LOCKED).
 *
 * Delivery is at least once: a job whose instance dies mid-run is run again once its timeout has
 * passed, so a handler must be safe to repeat (check what it already did).
 */
import { createHash } from "node:crypto";
import PgBoss from "pg-boss";
import type { Database } from "../db/client.ts";

export const JOB_SCHEMA = "pgboss";
/** On shutdown, how long running jobs may finish: within the shutdown's grace (shutdown.ts). */
export const JOB_STOP_TIMEOUT_MS = 10_000;

export interface JobContext {
  id: string;
  /** 1 for the first run, 2 for the first retry, … */
  attempt: number;
  /** No retry follows if this run fails. */
  lastAttempt: boolean;
  /**
   * If this run fails, its retry waits at least `ms` (the larger of this and the schedule's
   * delay): what an upstream asked for, e.g. a 429's Retry-After. Call it before throwing.
   */
  retryNoSoonerThan(ms: number): void;
}

export type JobHandler<T> = (data: T, job: JobContext) => Promise<void>;

export interface JobOptions {
  /** Jobs of this name run at most this many at a time in each instance (default 1). */
  concurrency?: number;
  /**
   * A failed run (the handler threw) is retried after each of these delays in turn, then the job
   * is failed for good; whole seconds (rounded). Default: no retry.
   */
  retryDelaysMs?: readonly number[];
  /** A run still going after this long is failed (and retried): an instance died. Default 15 min. */
  timeoutMs?: number;
}

export interface SendOptions {
  /** Not before this time (a Date) or this many ms from now. */
  startAfter?: Date | number;
  /** A second job of the same name and key is not queued while the first is kept: `send` answers null. */
  key?: string;
  /** Of the jobs of one name due, the highest priority is taken first (then the oldest). Default 0. */
  priority?: number;
}

export interface JobQueue {
  /** Before `start`: the handler for jobs of `name`, run on every instance that registers it. */
  register<T extends object>(name: string, handler: JobHandler<T>, options?: JobOptions): void;
  /** Stores the job (durable once this resolves); answers its id, or null for a duplicate key. */
  send<T extends object>(name: string, data: T, options?: SendOptions): Promise<string | null>;
  /**
   * The data of the jobs of `name` not finished yet (waiting, due for a retry, or running): a
   * module's recovery compares it with its own pending work to re-send what no job carries.
   */
  unfinished<T extends object>(name: string): Promise<T[]>;
  start(): Promise<void>;
  /** Takes no new jobs, waits up to `timeoutMs` for running ones (their job is retried if cut). */
  stop(timeoutMs?: number): Promise<void>;
}

export interface JobQueueOptions {
  database: Pick<Database, "sql">;
  /** How often the queues are looked at for due jobs (≥ 500 ms); jobs sent by this instance wake its workers at once. */
  pollIntervalMs: number;
  logger: { warn(obj: object, msg: string): void; error(obj: object, msg: string): void };
}

interface Registration {
  name: string;
  handler: JobHandler<object>;
  options: JobOptions;
  workerIds: string[];
}

const seconds = (ms: number) => Math.max(0, Math.round(ms / 1000));
/** Workers, woken when there is work (lookForDueJobs, send, the worker before), look on their own this seldom. */
const SELF_POLL_SECONDS = 60;

/**
 * A periodic job's next run, as `send`'s options: at the next multiple of `everyMs`, keyed by that
 * period, so a chain started by every instance still runs once a period.
 */
export function nextPeriod(everyMs: number, now = Date.now()): { startAfter: number; key: string } {
  const startAfter = everyMs - (now % everyMs);
  return { startAfter, key: `period:${Math.round((now + startAfter) / everyMs)}` };
}

/** A stable job id per (name, key): pg-boss inserts with ON CONFLICT DO NOTHING, which is the dedupe. */
function keyedId(name: string, key: string): string {
  const h = createHash("sha256").update(`${name}\0${key}`).digest("hex");
  return `${h.slice(0, 8)}-${h.slice(8, 12)}-4${h.slice(13, 16)}-8${h.slice(17, 20)}-${h.slice(20, 32)}`;
}

export function createJobQueue(options: JobQueueOptions): JobQueue {
  // Once stopped, the database may close. A run that outlived the stop's wait still ends, and
  // pg-boss then records it without awaiting the write: that write is left pending for good (the
  // job expires and runs again), instead of failing on a closed database with no one to catch it.
  let stopped = false;
  const boss = new PgBoss({
    db: { executeSql: (text, values) => (stopped ? new Promise<never>(() => undefined) : options.database.sql(text, values)) },
    schema: JOB_SCHEMA,
    // Cron is not used; maintenance (expiring stuck runs, archiving) runs on one instance at a time.
    schedule: false,
  });
  boss.on("error", (err) => options.logger.error({ err }, "job queue error"));
  const registrations = new Map<string, Registration>();
  let started = false;
  let look: NodeJS.Timeout | null = null;
  /** Which start the looks belong to: a look still running across a stop and a start ends its line. */
  let looks = 0;

  /**
   * One statement an interval looks for due jobs in every queue and wakes the queues that have
   * one: each queue's worker polling on its own was 15 statements every 2 s on an idle server, each
   * holding the embedded database's thread (and the calls' audio on it) some milliseconds. The
   * workers still poll on their own, seldom, should a look fail.
   */
  function lookForDueJobs(line: number) {
    look = setTimeout(async () => {
      try {
        const { rows } = await options.database.sql(`SELECT DISTINCT name FROM ${JOB_SCHEMA}.job WHERE name = ANY($1) AND state < 'active' AND start_after <= now()`, [
          [...registrations.keys()],
        ]);
        for (const { name } of rows) {
          const first = registrations.get(name as string)?.workerIds[0];
          if (first && started) boss.notifyWorker(first);
        }
      } catch (err) {
        if (started) options.logger.warn({ err }, "looking for due jobs failed");
      }
      if (started && line === looks) lookForDueJobs(line);
    }, options.pollIntervalMs);
    look.unref();
  }

  const wakes = new Set<NodeJS.Timeout>();
  function wakeAt(reg: Registration, inMs: number) {
    const timer = setTimeout(() => {
      wakes.delete(timer);
      if (started && reg.workerIds[0]) boss.notifyWorker(reg.workerIds[0]);
    }, inMs);
    timer.unref();
    wakes.add(timer);
  }

  async function run(reg: Registration, job: PgBoss.JobWithMetadata<object>): Promise<void> {
    const delays = reg.options.retryDelaysMs ?? [];
    const attempt = job.retryCount + 1;
    let askedMs = 0;
    const retryNoSoonerThan = (ms: number) => {
      askedMs = Math.max(askedMs, ms);
    };
    try {
      await reg.handler(job.data, { id: job.id, attempt, lastAttempt: attempt > delays.length, retryNoSoonerThan });
    } catch (err) {
      // pg-boss waits `retry_delay` (whole seconds) before the next run; one delay per attempt
      // gives the schedule. Written before the failure is recorded, so the retry that follows uses
      // it. A delay the handler asked for is rounded up, so the retry never comes before it.
      const next = delays[attempt - 1];
      if (next !== undefined && (attempt > 1 || askedMs > 0)) {
        const delay = Math.max(seconds(next), Math.ceil(askedMs / 1000));
        await options.database.sql(`UPDATE ${JOB_SCHEMA}.job SET retry_delay = $1 WHERE name = $2 AND id = $3`, [delay, reg.name, job.id]);
      }
      options.logger.warn({ err, job: reg.name, id: job.id, attempt }, "job failed");
      throw err;
    }
  }

  return {
    register(name, handler, jobOptions = {}) {
      if (started) throw new Error(`Job handler "${name}" registered after the queue started`);
      if (registrations.has(name)) throw new Error(`Job handler "${name}" registered twice`);
      registrations.set(name, { name, handler: handler as JobHandler<object>, options: jobOptions, workerIds: [] });
    },

    async send(name, data, sendOptions = {}) {
      const { startAfter, key, priority } = sendOptions;
      const id = await boss.send(name, data, {
        ...(key ? { id: keyedId(name, key) } : {}),
        ...(priority ? { priority } : {}),
        ...(startAfter === undefined ? {} : { startAfter: startAfter instanceof Date ? startAfter : new Date(Date.now() + startAfter) }),
      });
      const inMs = startAfter === undefined ? 0 : startAfter instanceof Date ? startAfter.getTime() - Date.now() : startAfter;
      const reg = registrations.get(name);
      if (id && reg && started) {
        if (inMs <= 0) for (const workerId of reg.workerIds) boss.notifyWorker(workerId);
        // A job due soon (a campaign's next tick, a quick retry) is looked for when it falls due
        // here, not at the look after: the look alone made a 1 s tick come every 1–1.5 s.
        else if (inMs < SELF_POLL_SECONDS * 1000) wakeAt(reg, inMs);
      }
      return id;
    },

    async unfinished<T extends object>(name: string): Promise<T[]> {
      const { rows } = await options.database.sql(`SELECT data FROM ${JOB_SCHEMA}.job WHERE name = $1 AND state < 'completed'`, [name]);
      return rows.map((r) => r.data as T);
    },

    async start() {
      if (started) return;
      stopped = false;
      await boss.start();
      for (const reg of registrations.values()) {
        const delays = reg.options.retryDelaysMs ?? [];
        const queue = {
          name: reg.name,
          retryLimit: delays.length,
          retryDelay: seconds(delays[0] ?? 0),
          retryBackoff: false,
          expireInSeconds: Math.max(1, seconds(reg.options.timeoutMs ?? 15 * 60_000)),
        };
        // Instances starting together on a new database can deadlock creating the same queue
        // (PostgreSQL picks one to fail): the loser tries again, and then finds the queue made.
        for (let attempt = 1; ; attempt++) {
          try {
            await boss.createQueue(reg.name, queue);
            break;
          } catch (err) {
            if ((err as { code?: string }).code !== "40P01" || attempt >= 5) throw err;
          }
        }
        // createQueue keeps an existing queue as it was: a changed schedule or timeout applies too.
        await boss.updateQueue(reg.name, queue);
        for (let i = 0; i < (reg.options.concurrency ?? 1); i++) {
          let workerId = "";
          // Woken by the look for due jobs (the first worker) or by the worker before it: a worker
          // that takes a job wakes the next one to look for another, so a backlog is worked at full
          // concurrency while an idle server costs one statement an interval (36 workers polling
          // were 18 statements a second).
          workerId = await boss.work<object>(reg.name, { batchSize: 1, includeMetadata: true, pollingIntervalSeconds: SELF_POLL_SECONDS }, async ([job]) => {
            if (!job) return;
            const next = reg.workerIds[i + 1];
            if (next) boss.notifyWorker(next);
            try {
              await run(reg, job);
            } finally {
              // pg-boss waits a whole poll interval after every job before fetching the next: a
              // worker with a queue to drain would take one job per interval (8 workers, 2 s:
              // 4 jobs/s whatever their length). Notified, it fetches again at once; an empty
              // fetch then waits the interval as usual.
              if (workerId) boss.notifyWorker(workerId);
            }
          });
          reg.workerIds.push(workerId);
        }
      }
      started = true;
      lookForDueJobs((looks += 1));
    },

    async stop(timeoutMs = 30_000) {
      if (!started) return;
      started = false;
      if (look) clearTimeout(look);
      for (const timer of wakes) clearTimeout(timer);
      wakes.clear();
      await boss.stop({ graceful: true, wait: true, timeout: timeoutMs, close: false });
      // pg-boss records a finished job without awaiting it; one more statement behind it (queued
      // after it on PGlite's one connection) lets it land before the database is closed.
      await options.database.sql("SELECT 1").catch(() => undefined);
      stopped = true;
    },
  };
}
