/**
 * The cheapest authenticated request of each stand-in service (its list of models, projects or
 * voices), which Settings → Providers makes to check a key on save: 200 with an empty list when
 * the key is the service's, else 401 with the service's own refusal body.
 */
import type { IncomingMessage, ServerResponse } from "node:http";

export function answerKeyCheck(req: IncomingMessage, res: ServerResponse, route: { path: string; accepted: boolean; refusal: unknown }): boolean {
  if (req.method !== "GET" || new URL(req.url ?? "/", "http://x").pathname !== route.path) return false;
  res.writeHead(route.accepted ? 200 : 401, { "content-type": "application/json" });
  res.end(JSON.stringify(route.accepted ? { data: [] } : route.refusal));
  return true;
}

export const OPENAI_REFUSAL = { error: { message: "Incorrect API key provided.", type: "invalid_request_error", code: "invalid_api_key" } };
