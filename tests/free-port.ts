import { createServer, type Server } from "node:net";

/**
 * A port free right now on 127.0.0.1 (the OS picks it; it is released at once for the caller to
 * take): for servers whose address must be known before they start (PUBLIC_URL, webhooks).
 */
export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const probe = createServer();
    probe.once("error", reject);
    probe.listen(0, "127.0.0.1", () => {
      const port = portOf(probe);
      probe.close(() => resolve(port));
    });
  });
}

/** The port a listening server took (0 before it listens). */
export function portOf(server: Server): number {
  const address = server.address();
  return typeof address === "object" && address ? address.port : 0;
}
