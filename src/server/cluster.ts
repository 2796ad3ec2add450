/**
 * `npm start` with a PostgreSQL server: one primary process that prepares once (secret,
 * migrations) and runs WORKERS worker processes (node:cluster), each a full instance — its own
 * lease, calls, job workers — accepting on the one shared port. The primary carries no traffic;
 * it restarts a worker that dies and passes a stop on to every worker (docs/decisions/045-…).
 */
import cluster, { type Worker } from "node:cluster";
import { hostname } from "node:os";
import type { ShutdownMessage } from "./cluster-messages.ts";

/** A worker that lived shorter than this before dying is restarted after a growing pause. */
const FAST_FAILURE_MS = 10_000;
const MAX_RESTART_PAUSE_MS = 30_000;

/** pino's line shape, so the primary's lines read like the workers' in the same log. */
export function primaryLog(level: "info" | "warn" | "error", msg: string, extra: object = {}): void {
  const levels = { info: 30, warn: 40, error: 50 } as const;
  process.stdout.write(JSON.stringify({ level: levels[level], time: Date.now(), pid: process.pid, hostname: hostname(), role: "primary", ...extra, msg }) + "\n");
}

/** INSTANCE_ID names one process, so each worker gets its own: `<id>-<slot>`, the same after a restart. */
export function workerInstanceId(base: string, slot: number): string {
  const suffix = `-${slot}`;
  return base.slice(0, 64 - suffix.length) + suffix;
}

export interface PrimaryOptions {
  workers: number;
  /** Passed to every worker, so none generates a secret of its own. */
  appSecret: string;
  instanceId: string | undefined;
  /** After a stop was asked, how long workers may drain and close before they are killed. */
  stopTimeoutMs: number;
}

export function runPrimary(o: PrimaryOptions): void {
  const slots = new Map<number, Worker>();
  const startedAt = new Map<Worker, number>();
  const fastFailures = new Map<number, number>();
  const restarts = new Set<NodeJS.Timeout>();
  let anyListened = false;
  let stopping: ShutdownMessage["signal"] | null = null;
  let exitCode = 0;

  const fork = (slot: number) => {
    const worker = cluster.fork({ APP_SECRET: o.appSecret, ...(o.instanceId ? { INSTANCE_ID: workerInstanceId(o.instanceId, slot) } : {}) });
    slots.set(slot, worker);
    startedAt.set(worker, Date.now());
    primaryLog("info", `Worker ${slot} started (pid ${worker.process.pid})`, { worker: slot, workerPid: worker.process.pid });
  };
  const slotOf = (worker: Worker) => [...slots].find(([, w]) => w === worker)?.[0];

  cluster.on("listening", () => (anyListened = true));
  cluster.on("exit", (worker, code, signal) => {
    const slot = slotOf(worker);
    if (slot === undefined) return;
    slots.delete(slot);
    const how = signal ? `was killed by ${signal}` : `exited with code ${code}`;
    if (stopping) {
      if (code !== 0) exitCode = 1;
      primaryLog("info", `Worker ${slot} (pid ${worker.process.pid}) ${how}`);
      if (slots.size === 0) process.exit(exitCode);
      return;
    }
    if (!anyListened) {
      // Dying before any worker could listen is a start that fails (database, port): stop like one process would.
      primaryLog("error", `Worker ${slot} (pid ${worker.process.pid}) ${how} before listening; stopping`);
      exitCode = 1;
      stop("SIGTERM");
      if (slots.size === 0) process.exit(exitCode);
      return;
    }
    const lived = Date.now() - (startedAt.get(worker) ?? 0);
    const failures = lived < FAST_FAILURE_MS ? (fastFailures.get(slot) ?? 0) + 1 : 0;
    fastFailures.set(slot, failures);
    const pause = failures === 0 ? 0 : Math.min(MAX_RESTART_PAUSE_MS, 500 * 2 ** failures);
    primaryLog("warn", `Worker ${slot} (pid ${worker.process.pid}) ${how}; starting another${pause ? ` in ${pause} ms` : ""}`, { worker: slot });
    const timer = setTimeout(() => {
      restarts.delete(timer);
      if (!stopping) fork(slot);
    }, pause);
    restarts.add(timer);
  });

  const stop = (signal: ShutdownMessage["signal"]) => {
    if (stopping) return;
    stopping = signal;
    for (const timer of restarts) clearTimeout(timer);
    primaryLog("info", `${signal} received: stopping ${slots.size} worker(s)`);
    const message: ShutdownMessage = { switchboard: "shutdown", signal };
    for (const worker of slots.values()) {
      if (worker.isConnected()) worker.send(message);
      else worker.process.kill(signal);
    }
    setTimeout(() => {
      primaryLog("error", `Workers still running after ${o.stopTimeoutMs} ms: killing them`);
      for (const worker of slots.values()) worker.process.kill("SIGKILL");
      process.exit(1);
    }, o.stopTimeoutMs).unref();
  };
  const onSignal = (signal: ShutdownMessage["signal"]) => {
    if (!stopping) return stop(signal);
    // A second Ctrl-C: the operator wants out now.
    primaryLog("warn", `second ${signal}: killing the workers`);
    for (const worker of slots.values()) worker.process.kill("SIGKILL");
    process.exit(1);
  };
  // As in a worker (ADR 050): a rejection nobody handled is logged with its stack, never a reason
  // to stop the primary, whose exit would take every worker and their live calls with it.
  process.on("unhandledRejection", (reason) => {
    const stack = reason instanceof Error ? (reason.stack ?? reason.message) : String(reason);
    primaryLog("error", "unhandled promise rejection in the primary; workers go on", { err: { message: String(reason), stack } });
  });
  process.on("SIGTERM", () => onSignal("SIGTERM"));
  process.on("SIGINT", () => onSignal("SIGINT"));

  primaryLog("info", `PostgreSQL server: running ${o.workers} worker processes on the shared port (WORKERS)`);
  for (let slot = 1; slot <= o.workers; slot++) fork(slot);
}
