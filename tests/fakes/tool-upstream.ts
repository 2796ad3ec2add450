import type { IncomingHttpHeaders, IncomingMessage, ServerResponse } from "node:http";
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { gzipSync } from "node:zlib";
import type { FakeScript } from "./realtime-fake-connection.ts";

/**
 * A real HTTP server standing in for the endpoints users point their tools at. Routes:
 *
 * | path                      | answer                                                             |
 * |---------------------------|--------------------------------------------------------------------|
 * | /echo (any other path)    | 200 JSON `{ method, path, query, rawQuery, headers, body }`        |
 * | /json                     | 200 JSON `{ ok: true, items: [...] }`                              |
 * | /text                     | 200 text/plain                                                     |
 * | /gzip                     | 200 gzip-compressed JSON                                           |
 * | /empty                    | 204                                                                |
 * | /status/:code             | that status; 404 answers JSON, others text                         |
 * | /slow?ms=N                | JSON after N ms                                                    |
 * | /large?bytes=N[&declare=1]| N bytes of text, streamed; `declare=1` sends Content-Length first  |
 * | /redirect/:n[?status=S]   | S (302) to /redirect/n-1 on the same server; /redirect/0 echoes    |
 * | /redirect-to?url=U[&status=S] | S (302) to U                                                   |
 *
 * Every request is recorded in `requests`, so a test can see what arrived, and whether anything did.
 */

export interface RecordedRequest {
  method: string;
  path: string;
  query: Record<string, string | string[]>;
  rawQuery: string;
  headers: IncomingHttpHeaders;
  /** Parsed JSON for JSON bodies, otherwise the text; null when empty. */
  body: unknown;
}

export interface ToolUpstream {
  /** e.g. http://127.0.0.1:41234 */
  origin: string;
  /** host:port as an allow-list entry would name it, e.g. 127.0.0.1:41234 or [::1]:41234 */
  hostPort: string;
  port: number;
  requests: RecordedRequest[];
  /**
   * One entry per /large request, resolving when its connection closes: true when the client
   * hung up before the whole body was sent.
   */
  largeBodies: Promise<boolean>[];
  close(): Promise<void>;
}

function queryOf(params: URLSearchParams): Record<string, string | string[]> {
  const query: Record<string, string | string[]> = {};
  for (const key of new Set(params.keys())) {
    const values = params.getAll(key);
    query[key] = values.length === 1 ? (values[0] ?? "") : values;
  }
  return query;
}

async function readBody(req: IncomingMessage): Promise<unknown> {
  const chunks: Buffer[] = [];
  for await (const chunk of req) chunks.push(chunk as Buffer);
  const text = Buffer.concat(chunks).toString("utf8");
  if (text === "") return null;
  if (!(req.headers["content-type"] ?? "").includes("json")) return text;
  try {
    return JSON.parse(text);
  } catch {
    return text;
  }
}

/** What `/status/:code` answers with: JSON for a 404, a line of text for any other code. */
export const statusBody = (code: number): { message: string } | string => (code === 404 ? { message: "No such order" } : `upstream failure ${code}`);

const sendJson = (res: ServerResponse, status: number, value: unknown) => {
  res.writeHead(status, { "Content-Type": "application/json; charset=utf-8" });
  res.end(JSON.stringify(value));
};

/** The "Lookup Order" tool (the model's `Lookup_Order`) as tests create it: `GET {origin}/orders?order_id=…`, which this upstream answers. */
export const orderLookupTool = (origin: string) => ({
  name: "Lookup Order",
  description: "Finds an order by its number",
  end_point_url: `${origin}/orders`,
  parameters: { type: "object", properties: { order_id: { type: "string", description: "Order number" } }, required: ["order_id"] },
});

/**
 * The model's side of a phone call that asks about order 42 and talks over the answer: a filler
 * that runs the order lookup, the answer (generated a little faster than real time, so it is still
 * streaming when the caller interrupts), then `afterInterruption`.
 */
export function interruptedOrderScript(afterInterruption: string): FakeScript {
  const answerWords = Array.from({ length: 40 }, (_, i) => `word${i} `);
  return {
    speechMs: 1000,
    chunkMs: 20,
    userSays: ["Where is my order 42?", "Wait, stop."],
    replies: [
      { say: "Let me check that for you.", audioMs: 800, toolCalls: [{ name: "Lookup_Order", arguments: { order_id: "42" } }] },
      { say: answerWords.join(""), pieces: answerWords, pieceGapMs: 90, audioMs: 4000, chunkMs: 100 },
      afterInterruption,
    ],
  };
}

export async function startToolUpstream(options: { host?: string } = {}): Promise<ToolUpstream> {
  const host = options.host ?? "127.0.0.1";
  const requests: RecordedRequest[] = [];
  const largeBodies: Promise<boolean>[] = [];
  const timers = new Set<NodeJS.Timeout>();

  const server = createServer(async (req, res) => {
    const url = new URL(req.url ?? "/", "http://upstream.invalid");
    const body = await readBody(req);
    const recorded: RecordedRequest = {
      method: req.method ?? "",
      path: url.pathname,
      query: queryOf(url.searchParams),
      rawQuery: url.search.replace(/^\?/, ""),
      headers: req.headers,
      body,
    };
    requests.push(recorded);
    const [, route = "", arg = ""] = url.pathname.split("/");
    const status = Number(url.searchParams.get("status") ?? 302);

    switch (route) {
      case "json":
        return sendJson(res, 200, { ok: true, items: [{ id: 1, name: "Widget" }] });
      case "text":
        res.writeHead(200, { "Content-Type": "text/plain; charset=utf-8" });
        return res.end("plain text answer");
      case "gzip":
        res.writeHead(200, { "Content-Type": "application/json", "Content-Encoding": "gzip" });
        return res.end(gzipSync(JSON.stringify({ compressed: true })));
      case "empty":
        res.writeHead(204);
        return res.end();
      case "status": {
        const code = Number(arg);
        const body = statusBody(code);
        if (typeof body !== "string") return sendJson(res, code, body);
        res.writeHead(code, { "Content-Type": "text/plain" });
        return res.end(body);
      }
      case "slow": {
        const timer = setTimeout(() => {
          timers.delete(timer);
          sendJson(res, 200, { slow: true });
        }, Number(url.searchParams.get("ms") ?? 2000));
        timers.add(timer);
        res.on("close", () => clearTimeout(timer));
        return;
      }
      case "large": {
        const bytes = Number(url.searchParams.get("bytes"));
        largeBodies.push(new Promise((resolve) => streamLarge(res, bytes, url.searchParams.has("declare"), resolve)));
        return;
      }
      case "redirect": {
        const n = Number(arg);
        if (n <= 0) return sendJson(res, 200, recorded);
        res.writeHead(status, { Location: `/redirect/${n - 1}${url.search}` });
        return res.end();
      }
      case "redirect-to":
        res.writeHead(status, { Location: url.searchParams.get("url") ?? "/" });
        return res.end();
      default:
        return sendJson(res, 200, recorded);
    }
  });

  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(0, host, () => resolve());
  });
  const { port } = server.address() as AddressInfo;
  const hostPort = host.includes(":") ? `[${host}]:${port}` : `${host}:${port}`;

  return {
    origin: `http://${hostPort}`,
    hostPort,
    port,
    requests,
    largeBodies,
    close: async () => {
      for (const timer of timers) clearTimeout(timer);
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

/** Writes `total` bytes in 64 KiB pieces, honouring back-pressure, and reports whether the client hung up first. */
function streamLarge(res: ServerResponse, total: number, declare: boolean, report: (abandoned: boolean) => void) {
  res.writeHead(200, { "Content-Type": "text/plain", ...(declare ? { "Content-Length": String(total) } : {}) });
  const piece = Buffer.alloc(64 * 1024, "x");
  let sent = 0;
  let finished = false;
  res.on("close", () => report(!finished));
  const pump = () => {
    while (sent < total && !res.destroyed) {
      const size = Math.min(piece.length, total - sent);
      sent += size;
      if (!res.write(size === piece.length ? piece : piece.subarray(0, size))) return void res.once("drain", pump);
    }
    if (!res.destroyed) {
      finished = true;
      res.end();
    }
  };
  pump();
}
