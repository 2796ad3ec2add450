/**
 * The embedded database on a thread of its own (ADR 091): PGlite runs in pglite-worker.ts, and
 * this is its handle on the app's side — the part of PGlite's client the query builder, the
 * migrations and `Database.sql` use (`query`, `exec`, `transaction`), plus the test harness's
 * `dumpDataDir`. A statement crosses as one message each way; its rows come back parsed. Another
 * thread (the ingestion thread) reaches the same database through a port of its own (`link`).
 */
import type { Results } from "@electric-sql/pglite";
import { MessageChannel, type MessagePort, type Worker } from "node:worker_threads";
import { startWorkerThread } from "../worker-thread.ts";

export interface PgliteStart {
  dataDir?: string;
  startParams: string[];
  wasmModule: WebAssembly.Module;
  loadDataDir?: ArrayBuffer;
}

interface QueryOptions {
  rowMode?: "array" | "object";
  parsers?: Record<number, unknown>;
}

export type PgliteRequest = { id: number } & (
  | { op: "query"; tx?: number; text: string; params?: unknown[]; rowMode?: "array" | "object"; textOids?: number[] }
  | { op: "exec"; tx?: number; text: string }
  | { op: "begin" }
  | { op: "end"; tx: number; commit: boolean }
  | { op: "dump"; compression: "none" | "gzip" | "auto" }
  | { op: "close" }
);
/** The message that opens another port on the database (`link`): answered on that port, like the app's. */
export type PgliteLink = { op: "link"; port: MessagePort };
/** A request before it is numbered. */
type Unsent = PgliteRequest extends infer R ? (R extends unknown ? Omit<R, "id"> : never) : never;

export type PgliteReply = { id: number; ok: true; result: unknown } | { id: number; ok: false; error: Record<string, unknown> };

/** The query side of PGlite's client and of its `Transaction`, as the query builder calls them. */
interface Statements {
  query<T>(text: string, params?: unknown[], options?: QueryOptions): Promise<Results<T>>;
  exec(text: string): Promise<Results[]>;
}

/** Where statements are sent: the database's thread itself (the app's handle), or a port linked to it. */
type Endpoint = Pick<Worker, "postMessage" | "ref" | "unref"> & { on(event: "message", listener: (reply: PgliteReply) => void): unknown };

export class ThreadedPglite {
  private readonly pending = new Map<number, { resolve(value: unknown): void; reject(err: Error): void }>();
  private nextId = 1;
  private stopped: Error | null = null;

  private constructor(
    private readonly endpoint: Endpoint,
    /** Ends this handle: the database itself for the app's, only the port for a linked one. */
    private readonly shut: () => Promise<void>,
  ) {
    endpoint.on("message", (reply: PgliteReply) => this.settle(reply));
  }

  /** Starts the thread and opens the database there; resolves once it answers. */
  static async start(start: PgliteStart): Promise<ThreadedPglite> {
    const worker = startWorkerThread(import.meta.url, "pglite-worker", { workerData: start, transferList: start.loadDataDir ? [start.loadDataDir] : [] });
    const handle: ThreadedPglite = new ThreadedPglite(worker, async () => {
      if (!handle.stopped) await handle.call({ op: "close" });
      await worker.terminate();
    });
    worker.on("error", (err) => handle.stop(new Error(`The embedded database stopped: ${err.message}`, { cause: err })));
    worker.on("exit", (code) => handle.stop(new Error(`The embedded database stopped (its thread exited with code ${code})`)));
    await new Promise<unknown>((resolve, reject) => handle.pending.set(0, { resolve, reject }));
    handle.idle();
    return handle;
  }

  /** A port on this database for another thread, which opens it with `over`; transfer it there. */
  link(): MessagePort {
    const { port1, port2 } = new MessageChannel();
    this.endpoint.postMessage({ op: "link", port: port2 } satisfies PgliteLink, [port2]);
    return port1;
  }

  /** The database through a port from `link` (on another thread): statements and transactions as on the app's handle. */
  static over(port: MessagePort): ThreadedPglite {
    const handle = new ThreadedPglite(port, async () => port.close());
    port.on("close", () => handle.stop(new Error("The embedded database stopped (its port closed)")));
    handle.idle();
    return handle;
  }

  query<T>(text: string, params?: unknown[], options?: QueryOptions): Promise<Results<T>> {
    return this.statements().query<T>(text, params, options);
  }

  exec(text: string): Promise<Results[]> {
    return this.statements().exec(text);
  }

  /** `callback`'s statements in one transaction: committed when it resolves, rolled back when it throws. */
  async transaction<T>(callback: (tx: Statements) => Promise<T>): Promise<T> {
    const id = (await this.call({ op: "begin" })) as number;
    let result: T;
    try {
      result = await callback(this.statements(id));
    } catch (err) {
      await this.call({ op: "end", tx: id, commit: false }).catch(() => undefined);
      throw err;
    }
    await this.call({ op: "end", tx: id, commit: true });
    return result;
  }

  async dumpDataDir(compression: "none" | "gzip" | "auto" = "auto"): Promise<Blob> {
    return new Blob([(await this.call({ op: "dump", compression })) as ArrayBuffer]);
  }

  async close(): Promise<void> {
    await this.shut();
    this.stopped ??= new Error("The embedded database is closed");
  }

  /** Statements on their own, or inside the open transaction `tx`. */
  private statements(tx?: number): Statements {
    return {
      query: <T>(text: string, params?: unknown[], options?: QueryOptions) => this.call({ op: "query", tx, text, params, ...queryOptions(options) }) as Promise<Results<T>>,
      exec: (text: string) => this.call({ op: "exec", tx, text }) as Promise<Results[]>,
    };
  }

  private call(request: Unsent): Promise<unknown> {
    if (this.stopped) return Promise.reject(this.stopped);
    const id = this.nextId++;
    // The thread keeps the process alive only while it owes an answer: an idle database does not hold up an exit.
    if (this.pending.size === 0) this.endpoint.ref();
    return new Promise((resolve, reject) => {
      this.pending.set(id, { resolve, reject });
      this.endpoint.postMessage({ ...request, id });
    });
  }

  private settle(reply: PgliteReply) {
    const waiting = this.pending.get(reply.id);
    if (!waiting) return;
    this.pending.delete(reply.id);
    this.idle();
    if (reply.ok) waiting.resolve(reply.result);
    else waiting.reject(errorFrom(reply.error));
  }

  private idle() {
    if (this.pending.size === 0) this.endpoint.unref();
  }

  private stop(reason: Error) {
    this.stopped ??= reason;
    for (const waiting of this.pending.values()) waiting.reject(reason);
    this.pending.clear();
  }
}

/** The query builder's parsers are for types it maps itself: they are asked for as text. */
function queryOptions(options: QueryOptions | undefined) {
  return { rowMode: options?.rowMode, textOids: options?.parsers ? Object.keys(options.parsers).map(Number) : undefined };
}

/** An Error again, with PostgreSQL's fields (`code`, `detail`, `constraint`…) where the code reads them. */
function errorFrom(fields: Record<string, unknown>): Error {
  // The app's stack, not the thread's: it names the statement's caller.
  const { message, cause, stack: _, ...rest } = fields;
  const err = new Error(String(message), cause ? { cause: errorFrom(cause as Record<string, unknown>) } : undefined);
  return Object.assign(err, rest);
}
