/**
 * A real HTTP endpoint for webhook deliveries: verifies every request with the `standardwebhooks`
 * package (as any receiver would), can fail its first answers, and can be stopped and started
 * again on the same port.
 */
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { Webhook } from "standardwebhooks";

export interface Received {
  id: string;
  type: string;
  data: Record<string, unknown>;
  /** Whether the signature verified with the endpoint's secret. */
  verified: boolean;
  status: number;
  at: number;
}

export interface WebhookReceiver {
  url: string;
  port: number;
  /** Every request, answered or refused. */
  requests: Received[];
  /** The secret to verify with (set once the endpoint is created). */
  secret: string;
  /** More secrets that verify too: one receiver behind several endpoints. */
  moreSecrets: string[];
  /** Answer this many requests with a 500 before answering 200. */
  failFirst: number;
  /** Delay before answering (ms). */
  delayMs: number;
  /** The answer's body instead of "ok" / "no" (a receiver that says a lot). */
  answerBody: string | null;
  stop(): Promise<void>;
  start(): Promise<void>;
  close(): Promise<void>;
}

export async function startWebhookReceiver(options: { failFirst?: number; delayMs?: number } = {}): Promise<WebhookReceiver> {
  let server: Server | null = null;
  const receiver: WebhookReceiver = {
    url: "",
    port: 0,
    requests: [],
    secret: "",
    moreSecrets: [],
    failFirst: options.failFirst ?? 0,
    delayMs: options.delayMs ?? 0,
    answerBody: null,
    async stop() {
      const s = server;
      server = null;
      if (!s) return;
      s.closeAllConnections();
      await new Promise<void>((r) => s.close(() => r()));
    },
    async start() {
      const s = createServer((req, res) => {
        const chunks: Buffer[] = [];
        req.on("data", (c: Buffer) => chunks.push(c));
        req.on("end", () => {
          const body = Buffer.concat(chunks).toString("utf8");
          const verifies = (secret: string) => {
            try {
              new Webhook(secret).verify(body, req.headers as Record<string, string>);
              return true;
            } catch {
              return false;
            }
          };
          const verified = [receiver.secret, ...receiver.moreSecrets].some((s) => s !== "" && verifies(s));
          const parsed = JSON.parse(body) as { type: string; data: Record<string, unknown> };
          const failing = receiver.requests.length < receiver.failFirst;
          const status = !verified ? 400 : failing ? 500 : 200;
          receiver.requests.push({ id: String(req.headers["webhook-id"]), type: parsed.type, data: parsed.data, verified, status, at: Date.now() });
          setTimeout(() => res.writeHead(status, { "content-type": "text/plain" }).end(receiver.answerBody ?? (status === 200 ? "ok" : "no")), receiver.delayMs);
        });
      });
      await new Promise<void>((r) => s.listen(receiver.port, "127.0.0.1", () => r()));
      receiver.port = (s.address() as AddressInfo).port;
      receiver.url = `http://127.0.0.1:${receiver.port}/hooks`;
      server = s;
    },
    close: () => receiver.stop(),
  };
  await receiver.start();
  return receiver;
}
