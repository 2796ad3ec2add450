/**
 * The pipeline's HTTP requests — the model's and the voices' — each a POST whose answer streams.
 * On node:http(s) with keep-alive agents of their own rather than `fetch`: per request `fetch`
 * builds WHATWG streams, a Headers object, a chain of abort signals and a promise per chunk, which
 * `npm run bench:pipeline`'s profile put at about a sixth of the server's CPU during calls.
 *
 * Connections stay open between turns (a new one to a real service costs a TLS handshake, tens of
 * milliseconds, on the turn's critical path). An answer read to its end, or left early once the
 * reader has what it wanted (the model's `[DONE]`), gives its connection back to the pool. An
 * aborted request (a barge-in, a timeout) closes its connection, as HTTP/1.1 requires — unless the
 * caller says the rest of the answer costs nothing more (`drainOnAbort`: a voice billed by the
 * characters it was sent), and then the rest is read and dropped, for a few seconds at most, so the
 * connection is reused: every barge-in otherwise cost the next turn's voice request a new one.
 */
import { Agent as HttpAgent, request as httpRequest, type IncomingMessage } from "node:http";
import { Agent as HttpsAgent, request as httpsRequest } from "node:https";

/** Most recently used first: the warmest connection, and the idle ones age out on the server's keep-alive hint. */
const POOL = { keepAlive: true, scheduling: "lifo", maxFreeSockets: 1024 } as const;
const agents = { http: new HttpAgent(POOL), https: new HttpsAgent(POOL) };
/** How long an aborted answer may take to run out before its connection is closed after all. */
export const DRAIN_MS = 3000;
/** Chunks held for a slow reader before the answer is paused (TCP's backpressure reaches the service). */
const HIGH_WATER = 16;

export interface PostOptions {
  /**
   * On abort, read the rest of an answer that is already coming and drop it, so the connection
   * goes back to the pool; for answers whose rest is not billed (the caller stops reading at once
   * either way). Else the connection is closed, which also tells the service to stop.
   */
  drainOnAbort?: boolean;
}

export interface StreamedAnswer {
  status: number;
  ok: boolean;
  /** The body as it arrives; it throws if the request is aborted or the connection drops before the end. */
  body: AsyncIterable<Buffer>;
  /** A refusal's JSON body (null if it has none). */
  json(): Promise<unknown>;
}

/** Idle connections in the pool to this URL's origin (tests: an answer's connection went back). */
export function idleConnections(url: string): number {
  const target = new URL(url);
  const agent = target.protocol === "https:" ? agents.https : agents.http;
  const port = target.port || (target.protocol === "https:" ? "443" : "80");
  return Object.entries(agent.freeSockets)
    .filter(([name]) => name.startsWith(`${target.hostname}:${port}:`))
    .reduce((n, [, sockets]) => n + (sockets?.length ?? 0), 0);
}

export function postStreaming(url: string, headers: Record<string, string>, body: string, signal: AbortSignal, options: PostOptions = {}): Promise<StreamedAnswer> {
  const target = new URL(url);
  const https = target.protocol === "https:";
  const payload = Buffer.from(body);
  return new Promise((resolve, reject) => {
    if (signal.aborted) return reject(signal.reason);
    const req = (https ? httpsRequest : httpRequest)(target, {
      method: "POST",
      agent: https ? agents.https : agents.http,
      headers: { ...headers, "content-length": String(payload.length) },
    });
    let response: IncomingMessage | null = null;
    const onAbort = () => {
      reject(signal.reason);
      if (!options.drainOnAbort) return void req.destroy(signal.reason);
      const bound = setTimeout(() => req.destroy(signal.reason), DRAIN_MS);
      bound.unref();
      req.once("close", () => clearTimeout(bound));
      response?.resume();
    };
    signal.addEventListener("abort", onAbort, { once: true });
    req.once("close", () => signal.removeEventListener("abort", onAbort));
    req.on("error", reject);
    req.on("response", (res) => {
      response = res;
      // An abort ends the answer with an error: whoever reads it sees that; unread, it must not crash the server.
      res.on("error", () => {});
      // Aborted while its headers were on the way: the rest runs out unread.
      if (signal.aborted) return void res.resume();
      resolve(answer(res, signal));
    });
    req.end(payload);
  });
}

function answer(res: IncomingMessage, signal: AbortSignal): StreamedAnswer {
  const status = res.statusCode ?? 0;
  return {
    status,
    ok: status >= 200 && status < 300,
    body: { [Symbol.asyncIterator]: () => new Body(res, signal) },
    json: async () => {
      const parts: Buffer[] = [];
      for await (const part of res) parts.push(part as Buffer);
      try {
        return JSON.parse(Buffer.concat(parts).toString()) as unknown;
      } catch {
        return null;
      }
    },
  };
}

/**
 * An answer's chunks for one reader. An abort ends the reading at once, whether or not the answer
 * goes on (drained); a reader that stops early leaves the rest drained, so the connection is reused.
 */
class Body implements AsyncIterator<Buffer> {
  private readonly queue: Buffer[] = [];
  private waiter: { resolve(r: IteratorResult<Buffer>): void; reject(err: unknown): void } | null = null;
  private ended = false;
  private failure: unknown = null;
  private detached = false;

  constructor(
    private readonly res: IncomingMessage,
    private readonly signal: AbortSignal,
  ) {
    res.on("data", this.onData);
    res.once("end", this.onEnd);
    res.once("close", this.onClose);
    signal.addEventListener("abort", this.onAbort, { once: true });
  }

  next(): Promise<IteratorResult<Buffer>> {
    const chunk = this.queue.shift();
    if (chunk) {
      if (this.res.isPaused() && this.queue.length < HIGH_WATER / 2) this.res.resume();
      return Promise.resolve({ value: chunk, done: false });
    }
    if (this.failure !== null) return Promise.reject(this.failure);
    if (this.ended) return Promise.resolve({ value: undefined, done: true });
    return new Promise((resolve, reject) => (this.waiter = { resolve, reject }));
  }

  return(): Promise<IteratorResult<Buffer>> {
    this.detach();
    return Promise.resolve({ value: undefined, done: true });
  }

  private readonly onData = (chunk: Buffer) => {
    if (this.detached) return;
    const waiter = this.waiter;
    if (waiter) {
      this.waiter = null;
      return waiter.resolve({ value: chunk, done: false });
    }
    this.queue.push(chunk);
    if (this.queue.length >= HIGH_WATER) this.res.pause();
  };

  private readonly onEnd = () => this.settle(null);

  private readonly onClose = () => {
    if (!this.res.complete) this.settle(new Error("the connection closed before the answer was complete"));
  };

  private readonly onAbort = () => {
    this.queue.length = 0;
    this.settle(this.signal.reason);
  };

  private settle(failure: unknown): void {
    if (this.ended || this.failure !== null) return;
    this.signal.removeEventListener("abort", this.onAbort);
    if (failure === null) this.ended = true;
    else this.failure = failure;
    const waiter = this.waiter;
    this.waiter = null;
    if (waiter) {
      if (failure === null) waiter.resolve({ value: undefined, done: true });
      else waiter.reject(failure);
    }
    if (failure !== null) this.detach();
  }

  /** No more reading: what is left of the answer is dropped as it comes. */
  private detach(): void {
    if (this.detached) return;
    this.detached = true;
    this.queue.length = 0;
    this.res.off("data", this.onData);
    this.signal.removeEventListener("abort", this.onAbort);
    if (!this.res.complete && !this.res.destroyed) this.res.resume();
  }
}
