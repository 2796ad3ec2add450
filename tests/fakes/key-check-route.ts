/**
 * The cheapest authenticated request of each stand-in service (its list of models, projects or
 * voices), which Settings → Providers makes to check a key on save: 200 with an empty list when
 * the key is the service's, else 401 with the service's own refusal body.
 */
import type { IncomingMessage, Server, ServerResponse } from "node:http";
import { WebSocketServer, type WebSocket } from "ws";

export function answerKeyCheck(req: IncomingMessage, res: ServerResponse, route: { path: string; accepted: boolean; refusal: unknown }): boolean {
  if (req.method !== "GET" || new URL(req.url ?? "/", "http://x").pathname !== route.path) return false;
  res.writeHead(route.accepted ? 200 : 401, { "content-type": "application/json" });
  res.end(JSON.stringify(route.accepted ? { data: [] } : route.refusal));
  return true;
}

export const OPENAI_REFUSAL = { error: { message: "Incorrect API key provided.", type: "invalid_request_error", code: "invalid_api_key" } };

/**
 * A streaming service's WebSocket door: a request `route` does not match is a 404, one without
 * the service's key the 401 with its refusal body (as the real services answer before upgrading),
 * and the rest are upgraded and handed to `serve` with their query.
 */
export function acceptKeyedUpgrades(
  server: Server,
  route: { matches: (url: URL) => boolean; accepted: (req: IncomingMessage) => boolean; refusal: unknown },
  serve: (ws: WebSocket, query: Record<string, string>) => void,
): WebSocketServer {
  const wss = new WebSocketServer({ noServer: true });
  server.on("upgrade", (req, socket, head) => {
    const url = new URL(req.url ?? "/", "http://x");
    if (!route.matches(url)) {
      socket.end("HTTP/1.1 404 Not Found\r\nContent-Length: 0\r\n\r\n");
      return;
    }
    if (!route.accepted(req)) {
      const body = JSON.stringify(route.refusal);
      socket.end(`HTTP/1.1 401 Unauthorized\r\nContent-Type: application/json\r\nContent-Length: ${Buffer.byteLength(body)}\r\n\r\n${body}`);
      return;
    }
    wss.handleUpgrade(req, socket, head, (ws) => serve(ws, Object.fromEntries(url.searchParams)));
  });
  return wss;
}
