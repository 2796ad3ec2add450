import { afterAll, afterEach } from "vitest";

/**
 * Setup file of the `server` project: a promise that rejects with no one to hear it, or an
 * exception thrown outside any test's await, fails the test it happened in (or the file, after
 * its last test). Vitest alone reports such an error beside the results but leaves the test that
 * caused it green; in production the same error is a process that stops serving its live calls.
 */
const escaped: { kind: string; error: unknown }[] = [];
const onRejection = (error: unknown) => void escaped.push({ kind: "unhandled rejection", error });
const onException = (error: unknown) => void escaped.push({ kind: "uncaught exception", error });
process.on("unhandledRejection", onRejection);
process.on("uncaughtException", onException);

function failIfAnyEscaped(): void {
  if (escaped.length === 0) return;
  const found = escaped.splice(0);
  const detail = found.map(({ kind, error }) => `${kind}: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}`).join("\n\n");
  throw new Error(`${found.length} error(s) escaped every handler (the server process would have stopped):\n\n${detail}`);
}

afterEach(async () => {
  // Rejections are reported once the microtask queue drains: let a just-failed promise surface.
  await new Promise((resolve) => setImmediate(resolve));
  failIfAnyEscaped();
});

afterAll(async () => {
  await new Promise((resolve) => setImmediate(resolve));
  failIfAnyEscaped();
});
