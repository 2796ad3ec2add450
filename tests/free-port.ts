import { createServer, type Server } from "node:net";

/**
 * A port free right now on 127.0.0.1 (the OS picks it; it is released at once for the caller to
 * take): for servers whose address must be known before they start (PUBLIC_URL, webhooks).
 */
export async function freePort(): Promise<number> {
  const { port, release } = await reservePort();
  await release();
  return port;
}

/**
 * A free port held until `release`: for a server built before it listens (seconds, for an app on a
 * fresh database), so that no other process's listener or outgoing connection takes the port
 * meanwhile — Linux gives neither a port something is bound to.
 */
export function reservePort(): Promise<{ port: number; release(): Promise<void> }> {
  return new Promise((resolve, reject) => {
    const holder = createServer();
    holder.once("error", reject);
    holder.listen(0, "127.0.0.1", () => resolve({ port: portOf(holder), release: () => new Promise((done) => holder.close(() => done())) }));
  });
}

/** The port a listening server took (0 before it listens). */
export function portOf(server: Server): number {
  const address = server.address();
  return typeof address === "object" && address ? address.port : 0;
}
