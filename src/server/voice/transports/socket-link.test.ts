import type { AddressInfo } from "node:net";
import { afterEach, describe, expect, it } from "vitest";
import WebSocket, { WebSocketServer } from "ws";
import { LiveBoard } from "../../modules/live/live-board.ts";
import type { SupervisionListener } from "../supervision.ts";
import { SocketLink } from "./socket-link.ts";

/**
 * A peer that stops reading (a paused supervisor tab, a stalled network) must not grow this
 * process's memory: over the cap audio is dropped, and a peer with twice the cap unread is cut
 * off. Real sockets on 127.0.0.1; the client's TCP socket is paused so nothing is read.
 */
const CAP = 512 * 1024;
const FRAME = Buffer.alloc(64 * 1024, 7);
let servers: WebSocketServer[] = [];

afterEach(async () => {
  for (const server of servers) {
    for (const client of server.clients) client.terminate();
    await new Promise((resolve) => server.close(resolve));
  }
  servers = [];
});

/** A server socket whose client has stopped reading. */
async function stalledPair(): Promise<{ server: WebSocket; client: WebSocket }> {
  const wss = new WebSocketServer({ port: 0, host: "127.0.0.1" });
  servers.push(wss);
  await new Promise((resolve) => wss.once("listening", resolve));
  const accepted = new Promise<WebSocket>((resolve) => wss.once("connection", resolve));
  const client = new WebSocket(`ws://127.0.0.1:${(wss.address() as AddressInfo).port}`);
  client.on("error", () => {});
  await new Promise((resolve) => client.once("open", resolve));
  (client as unknown as { _socket: { pause(): void } })._socket.pause();
  return { server: await accepted, client };
}

const tick = () => new Promise((resolve) => setImmediate(resolve));

describe("SocketLink sends", () => {
  /** A server socket and its client, the client's messages collected in order. */
  async function pair() {
    const { server, client } = await stalledPair();
    (client as unknown as { _socket: { resume(): void } })._socket.resume();
    const received: (string | number)[] = [];
    client.on("message", (data, isBinary) => received.push(isBinary ? (data as Buffer).length : data.toString()));
    const closed = new Promise<[number, string]>((resolve) => client.once("close", (code, reason) => resolve([code, reason.toString()])));
    return { server, received, closed };
  }

  it("writes what one tick sends as one write, every size framed right, in order", async () => {
    const { server, received } = await pair();
    const link = new SocketLink(server, { heartbeatMs: 0, maxBufferedBytes: CAP });
    link.attach({ message: () => {}, gone: () => {} });
    const socket = (server as unknown as { _socket: { write: (...args: unknown[]) => boolean } })._socket;
    let writes = 0;
    const write = socket.write.bind(socket);
    socket.write = (...args: unknown[]) => ((writes += 1), write(...args));
    const media = `{"event":"media","media":{"payload":"${"A".repeat(216)}"}}`;
    const long = "é".repeat(40_000); // 80,000 bytes: a 64-bit length
    link.send(media);
    link.send('{"event":"mark","mark":{"name":"1"}}');
    link.send(Buffer.alloc(100, 1), true);
    link.send(long);
    link.send(Buffer.alloc(70_000, 2), true);
    await expect.poll(() => received.length).toBe(5);
    expect(writes).toBe(1);
    expect(received).toEqual([media, '{"event":"mark","mark":{"name":"1"}}', 100, long, 70_000]);
  });

  it("sends what this tick sent before the close frame", async () => {
    const { server, received, closed } = await pair();
    const link = new SocketLink(server, { heartbeatMs: 0, maxBufferedBytes: CAP });
    link.attach({ message: () => {}, gone: () => {} });
    link.send('{"type":"ended"}');
    link.close(1000, "Call ended");
    expect(await closed).toEqual([1000, "Call ended"]);
    expect(received).toEqual(['{"type":"ended"}']);
  });
});

describe("SocketLink under a peer that stopped reading", () => {
  it("drops audio over the cap instead of buffering it", async () => {
    const { server } = await stalledPair();
    const link = new SocketLink(server, { heartbeatMs: 0, maxBufferedBytes: CAP });
    let gone = false;
    link.attach({ message: () => {}, gone: () => (gone = true) });
    let dropped = 0;
    let peak = 0;
    // 32 MB offered, far beyond what the kernel's socket buffers absorb.
    for (let i = 0; i < 512; i += 1) {
      if (!link.send(FRAME, true)) dropped += 1;
      peak = Math.max(peak, server.bufferedAmount);
      if (i % 16 === 0) await tick();
    }
    expect(dropped).toBeGreaterThan(0);
    expect(peak).toBeLessThanOrEqual(CAP + FRAME.length);
    expect(gone).toBe(false);
    expect(link.isOpen).toBe(true);
  });

  it("cuts off a peer whose unread text passes twice the cap, and reports it gone", async () => {
    const { server } = await stalledPair();
    const link = new SocketLink(server, { heartbeatMs: 0, maxBufferedBytes: CAP });
    let gone = false;
    link.attach({ message: () => {}, gone: () => (gone = true) });
    const text = "x".repeat(FRAME.length);
    let peak = 0;
    for (let i = 0; i < 512 && link.isOpen; i += 1) {
      link.send(text);
      peak = Math.max(peak, server.bufferedAmount);
      if (i % 16 === 0) await tick();
    }
    expect(peak).toBeLessThanOrEqual(2 * CAP + FRAME.length);
    for (let i = 0; i < 100 && !gone; i += 1) await new Promise((resolve) => setTimeout(resolve, 10));
    expect(gone).toBe(true);
  });
});

describe("the live board under a board that stopped reading", () => {
  it("holds a bounded backlog and drops the board", async () => {
    const { server } = await stalledPair();
    let listener: SupervisionListener | null = null;
    const board = new LiveBoard({ watchBoard: (l) => ((listener = l), () => {}), supervisedBy: () => [], carriedOnBoard: () => [] });
    board.open("user-1", server);
    const supervision = { organizationId: "user-1", callId: "call-1" } as Parameters<SupervisionListener["changed"]>[0];
    const summary = { callId: "call-1", lastSaid: { speaker: "caller", text: "y".repeat(60_000) } } as unknown as Parameters<SupervisionListener["changed"]>[1];
    let peak = 0;
    for (let i = 0; i < 512 && server.readyState === WebSocket.OPEN; i += 1) {
      listener!.changed(supervision, summary);
      peak = Math.max(peak, server.bufferedAmount);
      if (i % 16 === 0) await tick();
    }
    expect(peak).toBeLessThanOrEqual(2 * 256 * 1024 + 70_000);
    expect(server.readyState).not.toBe(WebSocket.OPEN);
    board.stop();
  });
});
