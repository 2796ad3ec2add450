/**
 * The pipeline's HTTP requests — the model's and the voices' — each a POST whose answer streams.
 * On node:http(s) with keep-alive agents of their own rather than `fetch`: per request `fetch`
 * builds WHATWG streams, a Headers object, a chain of abort signals and a promise per chunk, which
 * `npm run bench:pipeline`'s profile put at about a sixth of the server's CPU during calls.
 *
 * Connections stay open between turns (a new one to a real service costs a TLS handshake, tens of
 * milliseconds, on the turn's critical path). An answer read to its end, or left early once the
 * reader has what it wanted (the model's `[DONE]`), gives its connection back to the pool; only
 * an aborted request (a barge-in, a timeout) closes its connection, as HTTP/1.1 requires.
 */
import { Agent as HttpAgent, request as httpRequest, type IncomingMessage } from "node:http";
import { Agent as HttpsAgent, request as httpsRequest } from "node:https";

/** Most recently used first: the warmest connection, and the idle ones age out on the server's keep-alive hint. */
const POOL = { keepAlive: true, scheduling: "lifo", maxFreeSockets: 1024 } as const;
const agents = { http: new HttpAgent(POOL), https: new HttpsAgent(POOL) };

export interface StreamedAnswer {
  status: number;
  ok: boolean;
  /** The body as it arrives; it throws if the request is aborted or the connection drops before the end. */
  body: AsyncIterable<Buffer>;
  /** A refusal's JSON body (null if it has none). */
  json(): Promise<unknown>;
}

export function postStreaming(url: string, headers: Record<string, string>, body: string, signal: AbortSignal): Promise<StreamedAnswer> {
  const target = new URL(url);
  const https = target.protocol === "https:";
  const payload = Buffer.from(body);
  return new Promise((resolve, reject) => {
    const req = (https ? httpsRequest : httpRequest)(target, {
      method: "POST",
      agent: https ? agents.https : agents.http,
      headers: { ...headers, "content-length": String(payload.length) },
      signal,
    });
    req.on("error", reject);
    req.on("response", (res) => resolve(answer(res, signal)));
    req.end(payload);
  });
}

function answer(res: IncomingMessage, signal: AbortSignal): StreamedAnswer {
  // An abort destroys the answer with an error: whoever reads it sees that; unread, it must not crash the server.
  res.on("error", () => {});
  const status = res.statusCode ?? 0;
  return {
    status,
    ok: status >= 200 && status < 300,
    body: chunks(res, signal),
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

async function* chunks(res: IncomingMessage, signal: AbortSignal): AsyncGenerator<Buffer> {
  // Not destroyed when the reader stops early: the rest is drained, so the connection is reused.
  const parts = res.iterator({ destroyOnReturn: false }) as AsyncIterableIterator<Buffer>;
  try {
    for await (const part of parts) yield part;
  } finally {
    if (!res.complete && !res.destroyed) res.resume();
  }
  if (signal.aborted) throw signal.reason;
  if (!res.complete) throw new Error("the connection closed before the answer was complete");
}
