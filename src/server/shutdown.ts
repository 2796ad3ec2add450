/**
 * Graceful shutdown with a time limit (close-with-grace): on SIGINT/SIGTERM (or a crash) the
 * server stops taking calls, ends the live ones (each sends `ended` to its caller, finishes its
 * recording and writes its record) and closes the database — but a stalled database or storage
 * cannot hold the process: after `delayMs` it exits anyway (code 1), and the records left
 * "In progress" are closed once this instance's lease lapses (instances/instance-lease.ts).
 */
import closeWithGrace from "close-with-grace";

/** Longer than a call's final write normally takes, shorter than a supervisor's kill timeout. */
export const SHUTDOWN_GRACE_MS = 15_000;

export interface ShutdownLogger {
  info(msg: string): void;
  error(obj: object, msg?: string): void;
}

export function onShutdown(log: ShutdownLogger, close: (signal: string | undefined) => Promise<void>, delayMs = SHUTDOWN_GRACE_MS): void {
  closeWithGrace(
    { delay: delayMs, logger: { error: (message: unknown) => log.error({ message }, "shutdown") } },
    async ({ signal, err }) => {
      if (err) log.error({ err }, "closing after an uncaught error");
      else log.info(`${signal ?? "shutdown"} received: finishing live calls and closing (at most ${delayMs / 1000} s)`);
      await close(signal);
    },
  );
}
