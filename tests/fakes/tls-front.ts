/**
 * TLS in front of a plain TCP server, as stunnel would be: Debian's SIPp speaks no TLS, so a test
 * that needs a SIPp registrar or phone over TLS puts this before SIPp's TCP port. Each TLS
 * connection it accepts becomes one TCP connection to `to`, bytes passed both ways.
 */
import { connect } from "node:net";
import { readFile } from "node:fs/promises";
import { createServer, type Server } from "node:tls";
import type { TestCertificate } from "./tls-cert.ts";

export interface TlsFront {
  port: number;
  close(): Promise<void>;
}

export async function startTlsFront(certificate: TestCertificate, to: number): Promise<TlsFront> {
  const [cert, key] = await Promise.all([readFile(certificate.certFile), readFile(certificate.keyFile)]);
  const server: Server = createServer({ cert, key }, (secure) => {
    const plain = connect(to, "127.0.0.1");
    secure.pipe(plain).pipe(secure);
    const end = () => (secure.destroy(), plain.destroy());
    secure.on("error", end).on("close", end);
    plain.on("error", end).on("close", end);
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const port = (server.address() as { port: number }).port;
  return { port, close: () => new Promise<void>((resolve) => server.close(() => resolve())) };
}
