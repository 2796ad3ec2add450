/**
 * SIP over UDP and TCP on one port (RFC 3261 §18), and over TLS on another (§26.2, node:tls).
 * UDP: one message a datagram. TCP and TLS: a byte stream framed by Content-Length; a peer that
 * sends more header than a message may hold, or a body longer than that, loses its connection
 * (the stream cannot be resynchronised).
 */
import { createSocket, type Socket as UdpSocket } from "node:dgram";
import { createServer, connect, isIP, type Server, type Socket } from "node:net";
import { connect as connectTls, createServer as createTlsServer, rootCertificates, type Server as TlsServer } from "node:tls";
import { MAX_MESSAGE_BYTES, parseMessage, serialize, type ParseResult, type SipMessage } from "./message.ts";

export type TransportName = "UDP" | "TCP" | "TLS";

/** Where a message came from or goes to; `socket` is the TCP or TLS connection it came on. */
export interface Peer {
  transport: TransportName;
  address: string;
  port: number;
  socket?: Socket;
  /** The host name the address was looked up from: what a TLS peer's certificate must name. */
  name?: string;
}

/** Our certificate and key (PEM) for the TLS listener, and what else we trust when we connect out. */
export interface TlsSettings {
  /** The TLS port; 0 picks a free one. */
  port: number;
  cert: Buffer;
  key: Buffer;
  /** CA certificates (PEM) trusted besides the system's, for a PBX with a self-signed certificate. */
  ca?: Buffer;
}

export type Receive = (result: ParseResult, from: Peer) => void;
/** A connection of ours that failed before carrying anything (refused, or a certificate not trusted). */
export type ConnectFailed = (to: Peer, error: Error) => void;

const TCP_IDLE_MS = 5 * 60_000;
/**
 * The UDP socket's receive buffer. The system's default (about 200 KB, a few hundred datagrams)
 * overflows when a trunk sends a burst — hundreds of BYEs or INVITEs at once — while the event
 * loop is busy with RTP, and a dropped BYE leaves a call up until its retransmission (if the far
 * end still sends one). Linux caps it at net.core.rmem_max, silently.
 */
const UDP_RECEIVE_BUFFER_BYTES = 4 * 1024 * 1024;

/** Node's codes for a TLS peer whose certificate does not chain to a trusted CA, has expired, or names another host. */
const UNTRUSTED = new Set(["DEPTH_ZERO_SELF_SIGNED_CERT", "SELF_SIGNED_CERT_IN_CHAIN", "UNABLE_TO_VERIFY_LEAF_SIGNATURE", "UNABLE_TO_GET_ISSUER_CERT_LOCALLY", "CERT_HAS_EXPIRED", "CERT_NOT_YET_VALID", "ERR_TLS_CERT_ALTNAME_INVALID"]);
export const untrustedCertificate = (error: Error) => UNTRUSTED.has((error as NodeJS.ErrnoException).code ?? "");

export class SipTransport {
  private udp: UdpSocket | null = null;
  private tcp: Server | null = null;
  private tlsServer: TlsServer | null = null;
  private tlsSettings: TlsSettings | null = null;
  private readonly connections = new Map<string, Socket>();
  port = 0;
  /** The TLS listener's port, or null without one. */
  tlsPort: number | null = null;

  constructor(
    private readonly receive: Receive,
    private readonly connectFailed: ConnectFailed = () => {},
  ) {}

  /**
   * Port 0 lets the system pick UDP's port, which TCP must then share; another process may hold
   * that number for TCP, so a picked port is tried again (a few times) rather than failing.
   */
  async listen(host: string, port: number, transports: { udp: boolean; tcp: boolean }, tls?: TlsSettings): Promise<void> {
    for (let attempt = 1; ; attempt++) {
      try {
        await this.listenOnce(host, port, transports);
        if (tls) await this.listenTls(host, tls);
        return;
      } catch (err) {
        await this.close();
        const retry = port === 0 && attempt < 10 && (err as NodeJS.ErrnoException).code === "EADDRINUSE";
        if (!retry) throw err;
      }
    }
  }

  private async listenOnce(host: string, port: number, transports: { udp: boolean; tcp: boolean }): Promise<void> {
    if (transports.udp) {
      const udp = createSocket({ type: host.includes(":") ? "udp6" : "udp4" });
      udp.on("message", (data, rinfo) => this.receive(parseMessage(data), { transport: "UDP", address: rinfo.address, port: rinfo.port }));
      // A send to an unreachable peer surfaces here (ICMP); the transaction's timers handle it.
      udp.on("error", () => {});
      await new Promise<void>((resolve, reject) => {
        udp.once("error", reject);
        udp.bind(port, host, () => (udp.off("error", reject), resolve()));
      });
      try {
        udp.setRecvBufferSize(UDP_RECEIVE_BUFFER_BYTES);
      } catch {
        // The system refused the size: its default stays.
      }
      this.udp = udp;
      port = udp.address().port;
    }
    if (transports.tcp) {
      const tcp = createServer((socket) => this.adopt(socket, "TCP"));
      await new Promise<void>((resolve, reject) => {
        tcp.once("error", reject);
        tcp.listen(port, host, () => (tcp.off("error", reject), resolve()));
      });
      this.tcp = tcp;
      const address = tcp.address();
      if (address && typeof address === "object") port = address.port;
    }
    this.port = port;
  }

  /** A TLS listener of its own port (5061 by convention); a cert or key node:tls cannot read throws here. */
  private async listenTls(host: string, settings: TlsSettings): Promise<void> {
    const server = createTlsServer({ cert: settings.cert, key: settings.key }, (socket) => this.adopt(socket, "TLS"));
    // A client that fails its handshake (a scanner, a wrong certificate) is its own problem.
    server.on("tlsClientError", (_err, socket) => socket.destroy());
    await new Promise<void>((resolve, reject) => {
      server.once("error", reject);
      server.listen(settings.port, host, () => (server.off("error", reject), resolve()));
    });
    this.tlsServer = server;
    this.tlsSettings = settings;
    const address = server.address();
    this.tlsPort = address && typeof address === "object" ? address.port : settings.port;
  }

  /** Whether this transport can open TLS connections (it listens for TLS, so has a Contact for them). */
  get tls(): boolean {
    return this.tlsSettings !== null;
  }

  send(message: SipMessage, to: Peer): void {
    const bytes = serialize(message);
    if (to.transport === "UDP") {
      this.udp?.send(bytes, to.port, to.address);
      return;
    }
    const open = to.socket && !to.socket.destroyed ? to.socket : this.connections.get(`${to.transport}|${to.address}:${to.port}`);
    if (open && !open.destroyed) {
      open.write(bytes);
      return;
    }
    const socket = to.transport === "TLS" ? this.connectTls(to) : connect({ host: to.address, port: to.port });
    // No certificate, so no TLS: told after the sender has filed its transaction, as a refused connection would be.
    if (!socket) return void setImmediate(() => this.connectFailed(to, new Error("SIP over TLS is not configured")));
    this.adopt(socket, to.transport);
    socket.once("error", (err) => {
      if (!socket.bytesRead) this.connectFailed(to, err);
    });
    // A TLS socket holds what is written until its handshake is done.
    socket.write(bytes);
  }

  /**
   * A TLS connection out: the peer's certificate must chain to the system's CAs (or the one
   * configured for self-signed PBXs) and name the host we looked up, or the IP address we were given.
   */
  private connectTls(to: Peer): Socket | null {
    const settings = this.tlsSettings;
    if (!settings) return null;
    const name = to.name && !isIP(to.name) ? to.name : undefined;
    return connectTls({
      host: to.address,
      port: to.port,
      servername: name,
      ca: settings.ca ? [...rootCertificates, settings.ca] : undefined,
      rejectUnauthorized: true,
    });
  }

  private adopt(socket: Socket, transport: "TCP" | "TLS"): void {
    const key = `${transport}|${socket.remoteAddress}:${socket.remotePort}`;
    socket.once("connect", () => this.connections.set(`${transport}|${socket.remoteAddress}:${socket.remotePort}`, socket));
    if (socket.remoteAddress) this.connections.set(key, socket);
    socket.setTimeout(TCP_IDLE_MS, () => socket.destroy());
    socket.on("error", () => socket.destroy());
    socket.on("close", () => {
      for (const [k, s] of this.connections) if (s === socket) this.connections.delete(k);
    });
    let buffered: Buffer = Buffer.alloc(0);
    socket.on("data", (chunk: Buffer) => {
      buffered = buffered.length === 0 ? chunk : Buffer.concat([buffered, chunk]);
      for (;;) {
        // Keep-alive CRLFs between messages (RFC 5626 §3.5.1) are skipped.
        let skip = 0;
        while (skip + 1 < buffered.length && buffered[skip] === 13 && buffered[skip + 1] === 10) skip += 2;
        if (skip) buffered = buffered.subarray(skip);
        const end = buffered.indexOf("\r\n\r\n");
        if (end < 0) {
          if (buffered.length > MAX_MESSAGE_BYTES) socket.destroy();
          return;
        }
        const head = buffered.toString("latin1", 0, end);
        const length = /\r\n(?:content-length|l)[ \t]*:[ \t]*(\d{1,6})[ \t]*(?:\r\n|$)/i.exec(`\r\n${head}`);
        // §18.3: over a stream Content-Length is mandatory; without it the framing is lost.
        if (!length) return void socket.destroy();
        const total = end + 4 + Number(length[1]);
        if (total > MAX_MESSAGE_BYTES) return void socket.destroy();
        if (buffered.length < total) return;
        const message = buffered.subarray(0, total);
        buffered = buffered.subarray(total);
        this.receive(parseMessage(Buffer.from(message)), { transport, address: socket.remoteAddress ?? "", port: socket.remotePort ?? 0, socket });
      }
    });
  }

  async close(): Promise<void> {
    for (const socket of this.connections.values()) socket.destroy();
    this.connections.clear();
    const udp = this.udp;
    const tcp = this.tcp;
    const tls = this.tlsServer;
    this.udp = null;
    this.tcp = null;
    this.tlsServer = null;
    this.tlsPort = null;
    if (udp) await new Promise<void>((resolve) => udp.close(() => resolve()));
    if (tcp) await new Promise<void>((resolve) => tcp.close(() => resolve()));
    if (tls) await new Promise<void>((resolve) => tls.close(() => resolve()));
  }
}
