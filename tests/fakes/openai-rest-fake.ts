import type { Server } from "node:http";
import type { Socket } from "node:net";
import { portOf } from "../free-port.ts";

/**
 * What the OpenAI REST stand-ins (Responses, embeddings) share: a server of their own on
 * 127.0.0.1, or a path on another fake's server (`hostBaseUrl`); steps a test queues to be
 * answered first; and a close that cuts the connections still open (a client's keep-alive would
 * hold the server's close otherwise).
 */
export abstract class OpenAiRestFake<Step> {
  protected readonly queue: Step[] = [];
  private readonly sockets = new Set<Socket>();

  protected constructor(
    private readonly server: Server | null,
    readonly apiKey: string,
    private readonly hostBaseUrl: string | null,
  ) {
    server?.on("connection", (socket) => this.track(socket));
  }

  get baseUrl(): string {
    return this.hostBaseUrl ?? `http://127.0.0.1:${portOf(this.server!)}/v1`;
  }

  /** Steps answered, in order, before the usual answers resume. */
  enqueue(...steps: Step[]): void {
    this.queue.push(...steps);
  }

  async close(): Promise<void> {
    for (const socket of this.sockets) socket.destroy();
    if (this.server) await new Promise<void>((resolve) => this.server!.close(() => resolve()));
  }

  /** A connection to cut at close: its own server's are tracked already, a host's are tracked per request. */
  protected track(socket: Socket): void {
    if (this.sockets.has(socket)) return;
    this.sockets.add(socket);
    socket.on("close", () => this.sockets.delete(socket));
  }
}
