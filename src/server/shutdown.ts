/**
 * Graceful shutdown with a time limit (close-with-grace): on SIGINT/SIGTERM (or a crash) the
 * server stops taking calls, ends the live ones (each sends `ended` to its caller, finishes its
 * recording and writes its record) and closes the database — but a stalled database or storage
 * cannot hold the process: after `delayMs` it exits anyway (code 1), and the records left
 * "In progress" are closed once this instance's lease lapses (instances/instance-lease.ts).
 *
 * An uncaught exception closes the process this way; an unhandled rejection does not: it is
 * logged with its stack and the process goes on serving its live calls (ADR 050).
 */
import cluster from "node:cluster";
import closeWithGrace from "close-with-grace";
import { isShutdownMessage } from "./cluster-messages.ts";

/** Longer than a call's final write normally takes, shorter than a supervisor's kill timeout. */
export const SHUTDOWN_GRACE_MS = 15_000;

export interface ShutdownLogger {
  info(msg: string): void;
  error(obj: object, msg?: string): void;
}

export function onShutdown(log: ShutdownLogger, close: (signal: string | undefined) => Promise<void>, delayMs = SHUTDOWN_GRACE_MS): void {
  // A cluster worker hears a stop twice: the signal (a terminal's Ctrl-C or systemd reach the
  // whole group) and its primary's message. close-with-grace exits at once on a second signal,
  // which would cut the drain short, so a worker takes those two signals itself, once.
  const worker = cluster.isWorker;
  let requested: string | undefined;
  logUnhandledRejections(log);
  const closer = closeWithGrace(
    { delay: delayMs, skip: worker ? ["SIGINT", "SIGTERM", "unhandledRejection"] : ["unhandledRejection"], logger: { error: (message: unknown) => log.error({ message }, "shutdown") } },
    async ({ signal, err }) => {
      const cause = signal ?? requested;
      if (err) log.error({ err }, "closing after an uncaught error");
      else log.info(`${cause ?? "shutdown"} received: finishing live calls and closing (at most ${delayMs / 1000} s)`);
      await close(cause);
    },
  );
  if (!worker) return;
  const begin = (signal: string) => {
    if (requested) return;
    requested = signal;
    void closer.close();
  };
  process.on("SIGTERM", () => begin("SIGTERM"));
  process.on("SIGINT", () => begin("SIGINT"));
  process.on("message", (message: unknown) => {
    if (isShutdownMessage(message)) begin(message.signal);
  });
}

/**
 * A promise that rejected with no handler failed the one piece of work it belonged to (a request,
 * a write, a job); the live calls on this process are not part of it. Ending them all for it
 * would let any request that finds such a path drop every call on the instance, so the rejection
 * is logged at error level, with its stack, and the process goes on (ADR 050). The server's tests
 * fail on any such rejection (tests/fail-on-unhandled.ts), so each one logged here is a bug to fix.
 */
export function logUnhandledRejections(log: Pick<ShutdownLogger, "error">): void {
  process.on("unhandledRejection", (reason) => {
    const err = reason instanceof Error ? reason : new Error(`a promise rejected with a non-error: ${String(reason)}`);
    log.error({ err }, "unhandled promise rejection: the work it belonged to failed; live calls go on");
  });
}
