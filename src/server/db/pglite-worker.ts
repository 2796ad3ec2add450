/**
 * The embedded database's thread (pglite-thread.ts is the app's side): PGlite runs here, so its
 * statements — WebAssembly that holds whichever thread runs it until the statement is done, an
 * HNSW insert ~5 ms, a stats sum tens — never hold the thread that carries the calls' audio.
 * Requests go to PGlite as they arrive; its own locks run them one at a time and hold other
 * statements back while a transaction is open, as on one thread.
 */
import { PGlite, type Results, type Transaction } from "@electric-sql/pglite";
import { vector } from "@electric-sql/pglite-pgvector";
import { setPriority } from "node:os";
import { parentPort, workerData, type MessagePort } from "node:worker_threads";
import type { PgliteLink, PgliteReply, PgliteRequest, PgliteStart } from "./pglite-thread.ts";

const DATABASE_NICE = 10;

const start = workerData as PgliteStart;
// Below the calls' audio (Linux keeps a nice value per thread): when the cores are contended the
// event loop of the calls runs first, and the database on what is left, never starved of it.
try {
  setPriority(DATABASE_NICE);
} catch {
  // Refused (another system's rules): the database runs at the server's own priority.
}
const db = await PGlite.create(start.dataDir, {
  startParams: start.startParams,
  pgliteWasmModule: start.wasmModule,
  // pgvector for the knowledge bases' embeddings (ADR 060); loaded only when a statement needs it.
  extensions: { vector },
  ...(start.loadDataDir ? { loadDataDir: new Blob([start.loadDataDir]) } : {}),
});

/** Open transactions by id: each holds PGlite's transaction until the app's side ends it. */
const open = new Map<number, { tx: Transaction; end(commit: boolean): Promise<void> }>();
let nextTx = 1;

/** A parser cannot cross threads: the types the app's side gave one for come back as their text (the query builder maps those itself). */
const asText = (oids: number[] | undefined) => (oids?.length ? Object.fromEntries(oids.map((oid) => [oid, (value: string) => value])) : undefined);

function begin(): Promise<number> {
  return new Promise((begun, failed) => {
    const done = db.transaction(
      (tx) =>
        new Promise<void>((commit, rollback) => {
          const id = nextTx++;
          open.set(id, {
            tx,
            end: async (ok) => {
              open.delete(id);
              if (ok) commit();
              else rollback(new Error("rolled back"));
              await done.catch((err: unknown) => {
                if (ok) throw err;
              });
            },
          });
          begun(id);
        }),
    );
    done.catch(failed);
  });
}

/** The database, or the open transaction `tx`. */
function on(tx: number | undefined): Pick<Transaction, "query" | "exec"> {
  const target = tx ? open.get(tx)?.tx : db;
  if (!target) throw new Error("The transaction has ended");
  return target;
}

async function answer(request: PgliteRequest): Promise<unknown> {
  switch (request.op) {
    case "query":
      return on(request.tx).query(request.text, request.params, { rowMode: request.rowMode, parsers: asText(request.textOids) }) as Promise<Results>;
    case "exec":
      return on(request.tx).exec(request.text);
    case "begin":
      return begin();
    case "end": {
      const tx = open.get(request.tx);
      if (!tx) throw new Error("The transaction has ended");
      return tx.end(request.commit);
    }
    case "dump":
      return (await db.dumpDataDir(request.compression)).arrayBuffer();
    case "close":
      return db.close();
  }
}

/** An error as plain fields: PostgreSQL's (code, detail, constraint…) survive the crossing, functions do not. */
function fieldsOf(err: unknown): Record<string, unknown> {
  if (!(err instanceof Error)) return { message: String(err) };
  const fields: Record<string, unknown> = { message: err.message, name: err.name, stack: err.stack };
  for (const [key, value] of Object.entries(err)) if (value === null || ["string", "number", "boolean"].includes(typeof value)) fields[key] = value;
  if (err.cause !== undefined) fields.cause = fieldsOf(err.cause);
  return fields;
}

/**
 * Answers the requests that arrive on `port` on it: the app's (the thread's own port) or a linked
 * thread's. A linked thread that ends (its port closes) with a transaction open would hold every
 * other statement back for good: that transaction is rolled back.
 */
function serve(port: MessagePort) {
  const begun = new Set<number>();
  let closed = false;
  const rollBack = (id: number) => void open.get(id)?.end(false).catch(() => undefined);
  port.on("close", () => {
    closed = true;
    begun.forEach(rollBack);
  });
  port.on("message", (request: PgliteRequest | PgliteLink) => {
    if (request.op === "link") return serve(request.port);
    if (request.op === "end") begun.delete(request.tx);
    answer(request).then(
      (result) => {
        if (request.op === "begin") {
          if (closed) return rollBack(result as number);
          begun.add(result as number);
        }
        port.postMessage({ id: request.id, ok: true, result } satisfies PgliteReply, result instanceof ArrayBuffer ? [result] : []);
      },
      (err: unknown) => port.postMessage({ id: request.id, ok: false, error: fieldsOf(err) } satisfies PgliteReply),
    );
  });
}

serve(parentPort!);
parentPort!.postMessage({ id: 0, ok: true, result: "ready" } satisfies PgliteReply);
