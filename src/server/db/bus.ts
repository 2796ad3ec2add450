/**
 * Messages between the instances sharing one database (docs/decisions/047-live-board-across-instances.md):
 * PostgreSQL LISTEN/NOTIFY on a server, an in-process emitter on the embedded database (one
 * process only). Delivery is at most once, in publish order per publisher, to every subscriber
 * of the channel including the publisher's own; nothing is stored, so users of the bus repeat
 * what must converge (the live board's periodic snapshots).
 *
 * NOTIFY carries at most 8000 bytes: a longer message goes as numbered parts, put together on
 * arrival. Publishes of one bus are sent one after the other, so parts and messages keep their
 * order (the pool would otherwise run them on different connections at once).
 */
import { EventEmitter } from "node:events";
import { randomUUID } from "node:crypto";
import pg from "pg";

export type BusHandler = (payload: string) => void;

export interface Bus {
  publish(channel: string, payload: string): Promise<void>;
  /** Resolves once the subscription is live; the returned function ends it. */
  subscribe(channel: string, handler: BusHandler): Promise<() => void>;
  close(): Promise<void>;
}

/** One process: what is published reaches this process's subscribers, on a later turn. */
export function localBus(): Bus {
  const emitter = new EventEmitter();
  emitter.setMaxListeners(0);
  return {
    publish: async (channel, payload) => void setImmediate(() => emitter.emit(channel, payload)),
    subscribe: async (channel, handler) => {
      emitter.on(channel, handler);
      return () => void emitter.off(channel, handler);
    },
    close: async () => void emitter.removeAllListeners(),
  };
}

/** Under NOTIFY's 8000 bytes with room for the part's envelope. */
const PART_CHARS = 7000;
const PART_MARK = "\u0001part";
/** Parts of a message whose rest never came are forgotten after this. */
const PARTS_TTL_MS = 30_000;
const RECONNECT_MS = 1000;

export interface PgBusOptions {
  url: string;
  /** Runs `select pg_notify($1, $2)` on the shared pool. */
  notify: (channel: string, payload: string) => Promise<unknown>;
  onError?: (err: unknown) => void;
}

/** Runs jobs one after another in the order given; a failed one does not stop the next. `idle` settles once all given so far have. */
function inTurn() {
  let tail: Promise<unknown> = Promise.resolve();
  const run = <T>(job: () => Promise<T>): Promise<T> => {
    const done = tail.then(job);
    tail = done.catch(() => {});
    return done;
  };
  return Object.assign(run, { idle: () => tail });
}

export function pgBus(o: PgBusOptions): Bus {
  const handlers = new Map<string, Set<BusHandler>>();
  const partial = new Map<string, { parts: string[]; got: number; at: number }>();
  let client: pg.Client | null = null;
  let connecting: Promise<pg.Client> | null = null;
  let closed = false;
  /** Publishes, one after the other: the pool would run them on several connections at once, out of order. */
  const sending = inTurn();
  /** LISTEN and UNLISTEN one at a time: pg warns of overlapping queries on a client (refused from pg 9 on). */
  const listening = inTurn();
  const onListener = (c: pg.Client, sql: string) => listening(() => c.query(sql));

  const deliver = (channel: string, payload: string) => {
    for (const handler of handlers.get(channel) ?? []) {
      try {
        handler(payload);
      } catch (err) {
        o.onError?.(err);
      }
    }
  };

  const arrived = (channel: string, payload: string) => {
    if (!payload.startsWith(PART_MARK)) return deliver(channel, payload);
    // PART_MARK id i n | text
    const bar = payload.indexOf("|");
    const [, id = "", i = "0", n = "0"] = payload.slice(0, bar).split(" ");
    const now = Date.now();
    for (const [key, p] of partial) if (now - p.at > PARTS_TTL_MS) partial.delete(key);
    const entry = partial.get(id) ?? { parts: Array.from<string>({ length: Number(n) }), got: 0, at: now };
    partial.set(id, entry);
    if (entry.parts[Number(i)] === undefined) entry.got += 1;
    entry.parts[Number(i)] = payload.slice(bar + 1);
    if (entry.got < entry.parts.length) return;
    partial.delete(id);
    deliver(channel, Buffer.from(entry.parts.join(""), "base64").toString("utf8"));
  };

  const quoted = (channel: string) => `"${channel.replace(/"/g, '""')}"`;

  const connect = (): Promise<pg.Client> => {
    connecting ??= (async () => {
      const c = new pg.Client({ connectionString: o.url });
      c.on("notification", (n) => arrived(n.channel, n.payload ?? ""));
      c.on("error", (err) => {
        o.onError?.(err);
        if (client === c) reconnect();
      });
      // A connection the server closed (a restart, an idle timeout) is opened again and listens again.
      c.on("end", () => {
        if (client === c) reconnect();
      });
      await c.connect();
      for (const channel of handlers.keys()) await c.query(`LISTEN ${quoted(channel)}`);
      client = c;
      return c;
    })().finally(() => (connecting = null));
    return connecting;
  };

  const reconnect = () => {
    const old = client;
    client = null;
    void old?.end().catch(() => {});
    if (closed) return;
    setTimeout(() => {
      if (!closed && !client) connect().catch((err: unknown) => (o.onError?.(err), reconnect()));
    }, RECONNECT_MS).unref();
  };

  const split = (payload: string) => {
    const messages: string[] = [];
    if (Buffer.byteLength(payload) <= PART_CHARS) messages.push(payload);
    else {
      // Parts are cut from the base64 of the text, so each stays ASCII and under the limit.
      const text = Buffer.from(payload).toString("base64");
      const id = randomUUID();
      const n = Math.ceil(text.length / PART_CHARS);
      for (let i = 0; i < n; i++) messages.push(`${PART_MARK} ${id} ${i} ${n}|${text.slice(i * PART_CHARS, (i + 1) * PART_CHARS)}`);
    }
    return messages;
  };

  return {
    publish(channel, payload) {
      const messages = split(payload);
      return sending(async () => {
        for (const message of messages) await o.notify(channel, message);
      });
    },
    async subscribe(channel, handler) {
      let own = handlers.get(channel);
      const fresh = !own;
      if (!own) handlers.set(channel, (own = new Set()));
      own.add(handler);
      const c = client ?? (await connect());
      if (fresh && client === c) await onListener(c, `LISTEN ${quoted(channel)}`);
      return () => {
        own.delete(handler);
        if (own.size > 0 || handlers.get(channel) !== own) return;
        handlers.delete(channel);
        if (client) onListener(client, `UNLISTEN ${quoted(channel)}`).catch(() => {});
      };
    },
    async close() {
      closed = true;
      handlers.clear();
      await sending.idle();
      await listening.idle();
      const c = client;
      client = null;
      await c?.end().catch(() => {});
    },
  };
}
