/**
 * A fake OpenAI Realtime **GA** server over a real WebSocket on 127.0.0.1 (random port).
 *
 *   const fake = await startFakeRealtime({ apiKey: "sk-test", script: { userSays: ["Hi"], replies: ["Hello!"] } });
 *   // point the engine at fake.baseUrl (as OPENAI_BASE_URL) with fake.apiKey
 *   const conn = await fake.connection();          // the first connection, once it arrives
 *   await conn.waitFor("session.update");          // everything received is in conn.received
 *   conn.drop(1011, "boom");                       // cues: sendError, drop, expire, hear
 *   await fake.close();
 *
 * Upgrade: `GET {base}/realtime?model=…` with `Authorization: Bearer <apiKey>`; a wrong or
 * missing key is refused with HTTP 401 and OpenAI's JSON error body. The beta shape (header
 * `OpenAI-Beta` or subprotocol `openai-beta.realtime-v1`) is accepted, answered with the
 * `beta_api_shape_disabled` error and closed with 4000, as the provider does now.
 *
 * Per connection (see realtime-fake-connection.ts): session.created on open; session.update is
 * validated against the GA shape (error event when wrong) and answered with session.updated;
 * appended audio becomes a scripted user turn (speech_started/stopped, committed,
 * transcription.completed, then a VAD response); responses stream audio (a tone) and
 * transcript deltas, or function calls in pieces; function_call_output + response.create get
 * a reply quoting the output; truncate, cancel and the one-active-response rule are enforced.
 * A response.create carrying `response.instructions` speaks the double-quoted text in them
 * (the engine's first-message instructions).
 */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import type { Duplex } from "node:stream";
import { WebSocketServer, type WebSocket } from "ws";
import { FakeConnection, type FakeScript } from "./realtime-fake-connection.ts";

export type { FakeConnection, FakeItem, FakeReply, FakeReplyContext, FakeReplySpec, FakeScript, FakeToolCall } from "./realtime-fake-connection.ts";

export interface FakeRealtimeOptions {
  apiKey?: string;
  /** The script of every connection opened afterwards (can be replaced through `fake.script`). */
  script?: FakeScript;
  /** A fixed port (servers started beforehand point OPENAI_BASE_URL at it); a free one by default. */
  port?: number;
}

export interface RejectedUpgrade {
  status: number;
  url: string;
  reason: string;
}

const BETA_PROTOCOL = "openai-beta.realtime-v1";

export class FakeRealtime {
  readonly connections: FakeConnection[] = [];
  readonly rejected: RejectedUpgrade[] = [];
  script: FakeScript;
  /** Answers the REST requests this fake does not (one OPENAI_BASE_URL serves Realtime and Responses). */
  rest: ((req: IncomingMessage, res: ServerResponse) => void) | null = null;
  /**
   * Takes the WebSockets opened on `/v1/live/sessions` (GPT-Live: fake-gpt-live.ts `serveGptLive`),
   * after the same key check and refusals as Realtime's: one OPENAI_BASE_URL serves both.
   */
  live: ((ws: WebSocket, headers: IncomingMessage["headers"]) => void) | null = null;
  /** While set, every new connection is refused with this HTTP status and OpenAI error body (quota gone, outage, ...). */
  refuseUpgrades: { status: number; statusText: string; code: string; message: string } | null = null;
  private readonly wss = new WebSocketServer({ noServer: true, handleProtocols: (protocols) => [...protocols][0] ?? false });
  private readonly listeners = new Set<() => void>();

  private constructor(
    private readonly server: Server,
    readonly apiKey: string,
    options: FakeRealtimeOptions,
  ) {
    this.script = options.script ?? {};
    server.on("upgrade", (req, socket, head) => this.onUpgrade(req, socket, head));
  }

  static async start(options: FakeRealtimeOptions = {}): Promise<FakeRealtime> {
    const apiKey = options.apiKey ?? "sk-test-fake";
    const server = createServer((req, res) => {
      const send = (status: number, body: unknown) => {
        res.writeHead(status, { "content-type": "application/json" });
        res.end(JSON.stringify(body));
      };
      // The REST call Settings uses to verify a key.
      if (req.method === "GET" && req.url === "/v1/models") {
        if (req.headers.authorization !== `Bearer ${apiKey}`) {
          return send(401, { error: { message: "Incorrect API key provided.", type: "invalid_request_error", code: "invalid_api_key", param: null } });
        }
        return send(200, { object: "list", data: [{ id: "gpt-realtime-2.1", object: "model", created: 1760000000, owned_by: "system" }] });
      }
      // Other REST endpoints of the same base URL (the Responses API: fake-responses.ts `serveOn`).
      if (fake.rest) return fake.rest(req, res);
      send(404, { error: { message: "Not found", type: "invalid_request_error" } });
    });
    const fake = new FakeRealtime(server, apiKey, options);
    await new Promise<void>((resolve, reject) => {
      server.once("error", reject);
      server.listen(options.port ?? 0, "127.0.0.1", resolve);
    });
    return fake;
  }

  /** OPENAI_BASE_URL for the engine: http://127.0.0.1:<port>/v1 */
  get baseUrl(): string {
    const address = this.server.address();
    if (!address || typeof address === "string") throw new Error("fake realtime is not listening");
    return `http://127.0.0.1:${address.port}/v1`;
  }

  /** The `index`-th connection, waiting for it to arrive. */
  connection(index = 0, timeoutMs = 5000): Promise<FakeConnection> {
    const existing = this.connections[index];
    if (existing) return Promise.resolve(existing);
    return new Promise((resolve, reject) => {
      const listener = () => {
        const found = this.connections[index];
        if (!found) return;
        cleanup();
        resolve(found);
      };
      const timer = setTimeout(() => {
        cleanup();
        reject(new Error(`fake realtime: no connection #${index}`));
      }, timeoutMs);
      const cleanup = () => {
        clearTimeout(timer);
        this.listeners.delete(listener);
      };
      this.listeners.add(listener);
    });
  }

  private refuse(socket: Duplex, req: IncomingMessage, status: number, statusText: string, code: string, message: string): void {
    this.rejected.push({ status, url: req.url ?? "", reason: message });
    const body = JSON.stringify({ error: { message, type: "invalid_request_error", code, param: null } });
    socket.end(
      `HTTP/1.1 ${status} ${statusText}\r\nContent-Type: application/json\r\nContent-Length: ${Buffer.byteLength(body)}\r\nConnection: close\r\n\r\n${body}`,
    );
  }

  private onUpgrade(req: IncomingMessage, socket: Duplex, head: Buffer): void {
    socket.on("error", () => {});
    const url = new URL(req.url ?? "/", "http://fake");
    const model = url.searchParams.get("model");
    const livePath = url.pathname === "/v1/live/sessions" && this.live !== null;
    if (url.pathname !== "/v1/realtime" && !livePath) return this.refuse(socket, req, 404, "Not Found", "not_found", `Unknown path ${url.pathname}`);
    if (req.headers.authorization !== `Bearer ${this.apiKey}`) {
      const shown = (req.headers.authorization ?? "").replace(/^Bearer\s+/i, "").slice(0, 6);
      return this.refuse(socket, req, 401, "Unauthorized", "invalid_api_key", `Incorrect API key provided: ${shown}***.`);
    }
    const refusal = this.refuseUpgrades;
    if (refusal) return this.refuse(socket, req, refusal.status, refusal.statusText, refusal.code, refusal.message);
    const live = this.live;
    if (livePath && live) return this.wss.handleUpgrade(req, socket, head, (ws) => live(ws, { ...req.headers }));
    if (!model) return this.refuse(socket, req, 400, "Bad Request", "missing_model", "Missing required parameter: 'model'.");
    const protocols = String(req.headers["sec-websocket-protocol"] ?? "");
    const beta = req.headers["openai-beta"] !== undefined || protocols.split(",").some((p) => p.trim() === BETA_PROTOCOL);
    this.wss.handleUpgrade(req, socket, head, (ws) => {
      if (beta) {
        ws.on("error", () => {});
        ws.send(
          JSON.stringify({
            type: "error",
            event_id: "event_beta",
            error: { type: "invalid_request_error", code: "beta_api_shape_disabled", message: "The Realtime beta API shape is no longer supported. Use /v1/realtime for the GA API.", param: null, event_id: null },
          }),
        );
        ws.close(4000, "use /v1/realtime for the GA API");
        this.rejected.push({ status: 101, url: req.url ?? "", reason: "beta_api_shape_disabled" });
        return;
      }
      this.connections.push(new FakeConnection(ws, model, { ...req.headers }, this.script));
      for (const listener of this.listeners) listener();
    });
  }

  async close(): Promise<void> {
    for (const client of this.wss.clients) client.terminate();
    await new Promise<void>((resolve) => this.wss.close(() => resolve()));
    this.server.closeAllConnections();
    await new Promise<void>((resolve) => this.server.close(() => resolve()));
  }
}

export function startFakeRealtime(options: FakeRealtimeOptions = {}): Promise<FakeRealtime> {
  return FakeRealtime.start(options);
}
