import { afterAll, afterEach } from "vitest";

/**
 * Setup file of the `server` project: a promise that rejects with no one to hear it, or an
 * exception thrown outside any test's await, fails the test it happened in (or the file, after
 * its last test). Vitest alone reports such an error beside the results but leaves the test that
 * caused it green; in production the same error is a process that stops serving its live calls.
 */
type Escaped = { kind: string; error: unknown }[];
// Files share a worker (the server project's `isolate: false`), and this file runs again for
// each of them: the listeners are added once per worker, the list they fill kept on globalThis.
const shared = globalThis as typeof globalThis & { switchboardEscaped?: Escaped };
const escaped = (shared.switchboardEscaped ??= listen());

function listen(): Escaped {
  const list: Escaped = [];
  process.on("unhandledRejection", (error: unknown) => void list.push({ kind: "unhandled rejection", error }));
  process.on("uncaughtException", (error: unknown) => void list.push({ kind: "uncaught exception", error }));
  return list;
}

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
