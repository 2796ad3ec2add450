/**
 * Reads `read()` every 100 ms until `ok` accepts it, and returns that value; after `timeoutMs` it
 * fails naming `what` and the last value read (for state a job queue or a clock moves on).
 */
export async function until<T>(what: string, read: () => Promise<T>, ok: (v: T) => boolean, timeoutMs = 15_000): Promise<T> {
  const started = Date.now();
  for (;;) {
    const v = await read();
    if (ok(v)) return v;
    if (Date.now() - started > timeoutMs) throw new Error(`timed out waiting for ${what}: ${JSON.stringify(v)}`);
    await new Promise((r) => setTimeout(r, 100));
  }
}
