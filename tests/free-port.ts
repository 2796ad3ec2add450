import { createServer } from "node:net";

/**
 * A port free right now on 127.0.0.1 (the OS picks it; it is released at once for the caller to
 * take): for servers whose address must be known before they start (PUBLIC_URL, webhooks).
 */
export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const probe = createServer();
    probe.once("error", reject);
    probe.listen(0, "127.0.0.1", () => {
      const address = probe.address();
      const port = typeof address === "object" && address ? address.port : 0;
      probe.close(() => resolve(port));
    });
  });
}
